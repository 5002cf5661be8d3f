import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { makeTempHome, ROOT, runCli, startServer } from "../helpers/server.ts";

const FIXTURE = `${ROOT}/tests/fixtures/models/tiny-bert-embed`;
const FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"];

/** A manifest naming the tiny fixture model, served from `base`. */
function fixtureManifest(base: string): unknown {
  const bundled = JSON.parse(Deno.readTextFileSync(`${ROOT}/models.manifest.json`));
  return {
    schema_version: 1,
    models: [...bundled.models, {
      id: "tiny-bert-embed",
      task: "embedding",
      description: "random-weight BERT fixture",
      license: "MIT",
      dim: 32,
      pooling: "mean",
      normalize: true,
      similarity_floor: -1,
      files: FILES.map((path) => {
        const bytes = Deno.readFileSync(`${FIXTURE}/${path}`);
        return {
          path,
          url: `${base}/${path}`,
          size: bytes.length,
          sha256: createHash("sha256").update(bytes).digest("hex"),
        };
      }),
    }],
  };
}

Deno.test("setup --model static-wink-100d builds the offline model and selects it", async () => {
  const home = makeTempHome();
  try {
    const run = await runCli(home, ["setup", "--model", "static-wink-100d"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /built static-wink-100d locally/);
    const config = JSON.parse(Deno.readTextFileSync(`${home.dir}/config/mema/config.json`));
    assert.equal(config.embedding_model, "static-wink-100d");
    assert.ok(
      Deno.statSync(`${home.dir}/cache/mema/models/static-wink-100d/onnx/model.onnx`).isFile,
    );
    const again = await runCli(home, ["setup"]);
    assert.equal(again.code, 0);
    assert.equal(
      JSON.parse(Deno.readTextFileSync(`${home.dir}/config/mema/config.json`)).embedding_model,
      "static-wink-100d",
    );
  } finally {
    home.cleanup();
  }
});

Deno.test("setup --install downloads a model from its URLs, verifies it, and the server uses it", async () => {
  const home = makeTempHome();
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const path = new URL(request.url).pathname.slice(1);
    requests.push(path);
    if (!FILES.includes(path)) return new Response("missing", { status: 404 });
    return new Response(Deno.readFileSync(`${FIXTURE}/${path}`));
  });
  try {
    const manifest = `${home.dir}/manifest.json`;
    Deno.writeTextFileSync(
      manifest,
      JSON.stringify(fixtureManifest(`http://127.0.0.1:${server.addr.port}`)),
    );
    const env = { MEMA_MANIFEST: manifest };
    const run = await runCli(home, ["setup", "--install", "--model", "tiny-bert-embed"], env);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /installed tiny-bert-embed/);
    assert.deepEqual(requests.sort(), [...FILES].sort());
    const again = await runCli(home, ["setup", "--install", "--model", "tiny-bert-embed"], env);
    assert.match(again.stdout, /already installed/);
    assert.equal(requests.length, FILES.length, "a second install downloads nothing");

    const session = await startServer(home, { env });
    try {
      const id = (await session.call("remember", {
        content: "The deploy key rotates monthly.",
        subject: "keys",
        workspace: "w",
      })).data.memory_id;
      for (let i = 0; i < 100; i++) {
        const status = await session.call("status");
        if (status.data.capabilities.vector_state === "ready") break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const status = await session.call("status");
      assert.equal(status.data.capabilities.embedding_model, "tiny-bert-embed");
      assert.match(status.data.capabilities.embedding_space, /^tiny-bert-embed:32:[0-9a-f]{12}$/);
      const found = await session.call("find", { query: "deploy key" });
      assert.equal(found.mode, "hybrid");
      assert.equal(found.data.results[0].memory_id, id);
    } finally {
      await session.close();
    }
  } finally {
    await server.shutdown();
    home.cleanup();
  }
});

Deno.test("setup --install offline fails with manual steps and leaves the config alone", async () => {
  const home = makeTempHome();
  try {
    const manifest = `${home.dir}/manifest.json`;
    // Port 9 (discard) on loopback refuses connections: the machine looks offline.
    Deno.writeTextFileSync(manifest, JSON.stringify(fixtureManifest("http://127.0.0.1:9")));
    const run = await runCli(home, ["setup", "--install", "--model", "tiny-bert-embed"], {
      MEMA_MANIFEST: manifest,
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /sha256sum/);
    assert.match(run.stderr, /curl/);
    const config = JSON.parse(Deno.readTextFileSync(`${home.dir}/config/mema/config.json`));
    assert.equal(config.embedding_model, undefined);
  } finally {
    home.cleanup();
  }
});
