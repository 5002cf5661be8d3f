import assert from "node:assert/strict";
import { makeTempHome, runCli } from "../helpers/server.ts";
import { startFakeEmbeddingServer } from "../helpers/embedding_server.ts";

Deno.test("setup --provider against a server that is away writes the setting, says why, and exits 1", async () => {
  const home = makeTempHome();
  const fake = startFakeEmbeddingServer();
  const url = fake.url;
  await fake.stop();
  try {
    const run = await runCli(home, ["setup", "--provider", url, "--model", "nomic-embed-text"]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /WARN embedding provider: .*cannot be reached/);
    assert.match(run.stdout, /wrote embedding_provider/);
    const config = JSON.parse(Deno.readTextFileSync(`${home.dir}/config/mema/config.json`));
    assert.deepEqual(config.embedding_provider, { url, model: "nomic-embed-text" });
    const doctor = await runCli(home, ["doctor", "--json"]);
    const finding = JSON.parse(doctor.stdout).findings.find((f: { check_id: string }) =>
      f.check_id === "vector.provider"
    );
    assert.equal(finding.severity, "warning");
    assert.match(finding.detail, /cannot be reached \(.*\) \(no API key\)/);
  } finally {
    home.cleanup();
  }
});

Deno.test("setup --provider needs --model and a plain http(s) URL, and writes nothing otherwise", async () => {
  const home = makeTempHome();
  try {
    const noModel = await runCli(home, ["setup", "--provider", "http://localhost:11434/v1"]);
    assert.notEqual(noModel.code, 0);
    assert.match(noModel.stdout + noModel.stderr, /--provider needs --model/);
    const badUrl = await runCli(home, ["setup", "--provider", "ftp://x", "--model", "m"]);
    assert.notEqual(badUrl.code, 0);
    assert.match(badUrl.stdout + badUrl.stderr, /--provider must be an http/);
    let written = true;
    try {
      Deno.statSync(`${home.dir}/config/mema/config.json`);
    } catch {
      written = false;
    }
    assert.equal(written, false);
  } finally {
    home.cleanup();
  }
});
