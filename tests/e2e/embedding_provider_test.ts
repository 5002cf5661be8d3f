import assert from "node:assert/strict";
import { libraryHolds, onBothBackends } from "../helpers/e2e_backends.ts";
import {
  type Envelope,
  runCli,
  type ServerSession,
  startServer,
  type TempHome,
} from "../helpers/server.ts";
import { type FakeEmbeddingServer, startFakeEmbeddingServer } from "../helpers/embedding_server.ts";

const KEY = "sk-e2e-7c1f9a-this-key-must-never-leak";
const KEY_ENV = { MEMA_E2E_PROVIDER_KEY: KEY };

function writeConfig(home: TempHome, provider: Record<string, unknown>): string {
  const path = `${home.dir}/config/mema/config.json`;
  Deno.mkdirSync(`${home.dir}/config/mema`, { recursive: true });
  Deno.writeTextFileSync(path, JSON.stringify({ embedding_provider: provider }, null, 2));
  return path;
}

function providerBlock(fake: FakeEmbeddingServer, extra: Record<string, unknown> = {}) {
  return {
    url: fake.url,
    model: "fake-embed",
    api_key_env: "MEMA_E2E_PROVIDER_KEY",
    query_timeout_ms: 500,
    timeout_ms: 2_000,
    ...extra,
  };
}

async function seed(server: ServerSession): Promise<number> {
  const car = await server.call("remember", {
    content: "My car broke down on the highway, so I was late.",
    subject: "commute trouble",
    workspace: "life",
  });
  for (
    const [content, subject] of [
      ["Quantum physics describes subatomic particles.", "physics notes"],
      ["I love eating fresh strawberries in June.", "food"],
      ["The quarterly tax filing is due on April 15.", "taxes"],
    ]
  ) {
    await server.call("remember", { content, subject, workspace: "life" });
  }
  return car.data.memory_id;
}

/** Polls status until `check` holds (30 s at most: the outage backoff can reach 8 s). */
async function waitForStatus(
  server: ServerSession,
  check: (status: Envelope) => boolean,
  what: string,
): Promise<Envelope> {
  let last: Envelope | undefined;
  for (let attempt = 0; attempt < 300; attempt++) {
    last = await server.repair("semantic_control", { action: "status" });
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} never happened: ${JSON.stringify(last?.data)}`);
}

const ready = (status: Envelope) => status.data.state === "ready" && !status.data.warning;

onBothBackends(
  "provider: recall by meaning from the model server, lexical with a warning while it is away, and the backlog drains when it is back",
  async (home) => {
    const fake = startFakeEmbeddingServer();
    writeConfig(home, providerBlock(fake));
    const server = await startServer(home, { env: KEY_ENV });
    try {
      const carId = await seed(server);
      await waitForStatus(server, ready, "the index filling from the provider");
      assert.equal(fake.requests[0].headers.get("authorization"), `Bearer ${KEY}`);
      const found = await server.call("find", { query: "automobile stopped working" });
      assert.equal(found.mode, "hybrid", found.warnings.join("; "));
      assert.equal(found.data.results[0]?.memory_id, carId);
      const status = await server.call("status");
      assert.equal(status.data.capabilities.embedding_model, "provider:fake-embed");

      // The server goes away: nothing waits on it, answers say so, writes are kept.
      await fake.stop();
      const written = await server.call("remember", {
        content: "Puppy barks loudly.",
        subject: "pets",
        workspace: "life",
      });
      assert.equal(written.ok, true, JSON.stringify(written));
      const started = performance.now();
      const away = await server.call("find", { query: "automobile stopped working" });
      const waited = performance.now() - started;
      assert.equal(away.ok, true);
      assert.equal(away.mode, "lexical");
      assert.ok(
        away.warnings.some((w) => /embedding provider|semantic recall failed/.test(w)),
        away.warnings.join("; "),
      );
      assert.ok(waited < 2_000, `find waited ${Math.round(waited)} ms for a server that is away`);
      const down = await server.call("status");
      assert.ok(
        down.warnings.some((w) => /embedding provider .* is unavailable/.test(w)),
        down.warnings.join("; "),
      );
      assert.equal(down.data.evidence.coverage < 1, true, "the new memory waits for its vectors");

      // Back: the waiting job runs again by itself and the new memory is found by meaning.
      fake.start();
      await waitForStatus(server, ready, "the backlog draining after the provider came back");
      const dog = await server.call("find", { query: "hound" });
      assert.equal(dog.mode, "hybrid");
      assert.equal(dog.data.results[0]?.memory_id, written.data.memory_id);
      // A server that accepts but does not answer holds a find no longer than query_timeout_ms.
      fake.script({ hangMs: 3_000 });
      const hangStarted = performance.now();
      const slow = await server.call("find", { query: "automobile stopped working" });
      const hung = performance.now() - hangStarted;
      console.log(
        `find while away: ${Math.round(waited)} ms (refused); with a hung server: ${
          Math.round(hung)
        } ms (query_timeout_ms 500)`,
      );
      assert.equal(slow.mode, "lexical");
      assert.ok(slow.warnings.some((w) => /within 500 ms/.test(w)), slow.warnings.join("; "));
      assert.ok(hung < 2_000, `find waited ${Math.round(hung)} ms for a hung server`);
      const jobs = (await server.call("status")).data.jobs;
      assert.equal(JSON.stringify(jobs).includes('poisoned":1'), false, JSON.stringify(jobs));
    } finally {
      await server.close();
      await fake.stop();
    }
  },
);

onBothBackends(
  "provider: the API key appears in no answer, status, doctor output, log, config file or database",
  async (home, backend) => {
    const fake = startFakeEmbeddingServer();
    const seen: string[] = [];
    const server = await (async () => {
      // setup writes the setting and checks the endpoint once.
      const setup = await runCli(home, [
        "setup",
        "--provider",
        fake.url,
        "--model",
        "fake-embed",
        "--api-key-env",
        "MEMA_E2E_PROVIDER_KEY",
      ], KEY_ENV);
      seen.push(setup.stdout, setup.stderr);
      assert.equal(setup.code, 0, setup.stdout + setup.stderr);
      assert.match(setup.stdout, /answers for fake-embed: 64 dimensions/);
      return await startServer(home, { env: KEY_ENV });
    })();
    const configPath = `${home.dir}/config/mema/config.json`;
    try {
      const config = JSON.parse(Deno.readTextFileSync(configPath));
      assert.deepEqual(config.embedding_provider, {
        url: fake.url,
        model: "fake-embed",
        api_key_env: "MEMA_E2E_PROVIDER_KEY",
        dimensions: 64,
      });
      await seed(server);
      await waitForStatus(server, ready, "the index filling");
      seen.push(JSON.stringify(await server.call("find", { query: "car on the road" })));
      // The server refuses, echoing the key in its error body.
      fake.breakWith({ status: 401, body: `{"error": "invalid api key ${KEY}"}` });
      await server.call("remember", {
        content: "Strawberries are in season.",
        subject: "fruit",
        workspace: "life",
      });
      seen.push(JSON.stringify(await server.call("find", { query: "berries" })));
      const refused = await waitForStatus(
        server,
        (status) => /unavailable/.test(status.data.warning ?? ""),
        "the refusal showing in status",
      );
      seen.push(JSON.stringify(refused));
      assert.match(refused.data.warning, /HTTP 401/);
      assert.match(refused.data.warning, /\[redacted\]/);
      seen.push(JSON.stringify(await server.call("status")));
      seen.push(JSON.stringify(await server.call("find", { query: "berries" })));
      seen.push(JSON.stringify(await server.repair("semantic_control", { action: "status" })));
      const doctor = await runCli(home, ["doctor"], KEY_ENV);
      seen.push(doctor.stdout, doctor.stderr);
      assert.match(doctor.stdout, /embedding provider/);
      assert.match(doctor.stdout, /\$MEMA_E2E_PROVIDER_KEY/);
      // The embedding job meets the refusal on its own schedule: let it, before the server heals.
      for (
        let waited = 0;
        !server.stderr().includes("[redacted]") && waited < 15_000;
        waited += 100
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      fake.heal();
      const healthy = await runCli(home, ["doctor", "--json"], KEY_ENV);
      seen.push(healthy.stdout, healthy.stderr);
      const finding = JSON.parse(healthy.stdout).findings.find((f: { check_id: string }) =>
        f.check_id === "vector.provider"
      );
      assert.equal(finding.severity, "info");
      assert.match(finding.detail, /64 dimensions, \d+ ms/);
    } finally {
      await server.close();
      await fake.stop();
    }
    seen.push(server.stderr(), Deno.readTextFileSync(configPath));
    for (const text of seen) {
      assert.ok(!text.includes(KEY), `the key leaked into: ${text.slice(0, 400)}`);
    }
    assert.ok(
      server.stderr().includes("[redacted]"),
      `the log quoted the refusal, redacted: ${server.stderr()}`,
    );
    const needle = new TextEncoder().encode(KEY);
    // The data folder holds the SQLite file; a PostgreSQL library may leave it unmade.
    Deno.mkdirSync(`${home.dir}/data/mema`, { recursive: true });
    for (const entry of Deno.readDirSync(`${home.dir}/data/mema`)) {
      const bytes = Deno.readFileSync(`${home.dir}/data/mema/${entry.name}`);
      assert.equal(indexOf(bytes, needle), -1, `the key is in ${entry.name}`);
    }
    assert.equal(await libraryHolds(home, backend, KEY), false, "the key is in the database");
  },
);

onBothBackends(
  "provider: another model or dimension rebuilds the index by itself in the background, waiting while the server is away",
  async (home) => {
    const fake = startFakeEmbeddingServer();
    writeConfig(home, providerBlock(fake));
    const first = await startServer(home, { env: KEY_ENV });
    let carId: number;
    try {
      carId = await seed(first);
      await waitForStatus(first, ready, "the first index");
    } finally {
      await first.close();
    }
    // Another model, and the server away while the rebuild starts: the index switches (the
    // dimension is configured, nothing to ask), the rows wait, and every answer says how far it is.
    writeConfig(home, providerBlock(fake, { model: "fake-embed-v2", dimensions: 64 }));
    fake.breakWith({ status: 503 });
    const second = await startServer(home, { env: KEY_ENV });
    try {
      const waiting = await waitForStatus(
        second,
        (s) =>
          s.data.rebuild !== undefined && s.data.rebuild.from_space !== undefined &&
          /^provider:fake-embed-v2:64:/.test(s.data.space ?? "") && s.data.rebuild.done === 0,
        "the rebuild's start",
      );
      assert.match(waiting.data.rebuild.from_space, /^provider:fake-embed:64:/);
      assert.ok(waiting.data.rebuild.total > 0);
      assert.match(waiting.data.warning, new RegExp(`0/${waiting.data.rebuild.total} rows`));
      const lexical = await second.call("find", { query: "automobile stopped working" });
      assert.equal(lexical.mode, "lexical");
      assert.ok(
        lexical.warnings.some((warning: string) => /rebuilt/.test(warning)),
        lexical.warnings.join("; "),
      );
    } finally {
      await second.close();
    }
    // Back to the old model before that rebuild finished: the old vectors were dropped when it
    // began, so the old model's space is rebuilt, and nothing of the half-built one is searched.
    writeConfig(home, providerBlock(fake));
    fake.heal();
    const back = await startServer(home, { env: KEY_ENV });
    try {
      const done = await waitForStatus(
        back,
        (s) => ready(s) && /^provider:fake-embed:64:/.test(s.data.space),
        "the index rebuilt for the old model",
      );
      assert.equal(done.data.rebuild, undefined);
      const found = await back.call("find", { query: "automobile stopped working" });
      assert.equal(found.mode, "hybrid", found.warnings.join("; "));
      assert.equal(found.data.results[0]?.memory_id, carId);
    } finally {
      await back.close();
    }
    writeConfig(home, providerBlock(fake, { model: "fake-embed-v2", dimensions: 64 }));
    const again = await startServer(home, { env: KEY_ENV });
    try {
      const done = await waitForStatus(
        again,
        (s) => ready(s) && /^provider:fake-embed-v2:64:/.test(s.data.space),
        "the rebuilt index",
      );
      assert.equal(done.data.rebuild, undefined);
      assert.ok(fake.requests.some((request) => request.model === "fake-embed-v2"));
      const found = await again.call("find", { query: "automobile stopped working" });
      assert.equal(found.mode, "hybrid", found.warnings.join("; "));
      assert.equal(found.data.results[0]?.memory_id, carId);
    } finally {
      await again.close();
    }
    // The server's model now gives 32 dimensions: the first use finds out, and rebuilds.
    writeConfig(home, providerBlock(fake, { model: "fake-embed-v2" }));
    fake.breakWith({ wrongDims: 32 });
    const third = await startServer(home, { env: KEY_ENV });
    try {
      const before = await third.call("find", { query: "automobile stopped working" });
      assert.equal(before.ok, true);
      const after = await waitForStatus(
        third,
        (s) => ready(s) && /^provider:fake-embed-v2:32:/.test(s.data.space),
        "the 32-dimensional index",
      );
      assert.match(after.data.space, /^provider:fake-embed-v2:32:/);
      const found = await third.call("find", { query: "automobile stopped working" });
      assert.equal(found.mode, "hybrid", found.warnings.join("; "));
      // By hand it still answers: nothing left to do.
      const again = await third.repair("rebuild_evidence", { dry_run: false, batch_size: 500 });
      assert.equal(again.data.complete, true, JSON.stringify(again.data));
    } finally {
      await third.close();
      await fake.stop();
    }
  },
);

onBothBackends(
  "provider: a 429 with Retry-After is waited out; wrong dimensions and malformed JSON show in status and embed nothing",
  async (home) => {
    const fake = startFakeEmbeddingServer();
    writeConfig(home, providerBlock(fake, { dimensions: 64 }));
    // The first embedding request is asked to come back in a second.
    fake.script({ status: 429, retryAfter: "1" });
    const server = await startServer(home, { env: KEY_ENV });
    try {
      await seed(server);
      await waitForStatus(server, ready, "the index filling after the 429");
      const first = fake.requests[0].at;
      assert.ok(fake.requests[1].at - first >= 950, "the retry came after Retry-After");

      fake.breakWith({ wrongDims: 32 });
      await server.call("remember", {
        content: "The hound sleeps all day.",
        subject: "pets",
        workspace: "life",
      });
      const wrong = await waitForStatus(
        server,
        (status) => /unavailable/.test(status.data.warning ?? ""),
        "the wrong dimension showing",
      );
      assert.match(wrong.data.warning, /32-dimensional vectors for fake-embed, expected 64/);
      const coverage = (await server.call("status")).data.evidence.coverage;
      assert.ok(coverage < 1, `nothing of another length was stored (coverage ${coverage})`);

      fake.breakWith({ malformed: true });
      const malformed = await waitForStatus(
        server,
        (status) => /not JSON/.test(status.data.warning ?? ""),
        "the malformed answer showing",
      );
      assert.match(malformed.data.warning, /unusable answer/);
      const find = await server.call("find", { query: "hound" });
      assert.equal(find.ok, true);
      assert.equal(find.mode, "lexical");

      fake.heal();
      await waitForStatus(server, ready, "the backlog draining after the server healed");
    } finally {
      await server.close();
      await fake.stop();
    }
  },
);

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
