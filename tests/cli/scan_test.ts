/**
 * `mema scan` for cron: `--quiet` prints nothing when the round completes and only the
 * problem when it does not; `--json` prints one versioned object. Spawns the real main.ts.
 * @module
 */
import assert from "node:assert/strict";
import { makeTempHome, runCli, startServer } from "../helpers/server.ts";

Deno.test("scan --quiet: silent on success, the problem alone on failure", async () => {
  const home = makeTempHome();
  try {
    const server = await startServer(home);
    try {
      for (const content of ["The API runs on port 8080.", "The API runs on port 9090."]) {
        const stored = await server.call("remember", {
          content,
          subject: "api port",
          workspace: "ops",
        });
        assert.equal(stored.ok, true, JSON.stringify(stored));
      }
    } finally {
      await server.close();
    }
    const quiet = await runCli(home, ["scan", "--quiet"]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stdout, "");
    assert.equal(quiet.stderr, "");
    const loud = await runCli(home, ["scan"]);
    assert.equal(loud.code, 0, loud.stderr);
    assert.match(loud.stdout, /scan complete/);

    // A database mema cannot open: exit 1, nothing on stdout, the reason on stderr.
    const bad = `${home.dir}/not-a-database.sqlite3`;
    Deno.writeTextFileSync(bad, "this is not SQLite");
    const failed = await runCli(home, ["scan", "--quiet", "--db", bad]);
    assert.equal(failed.code, 1);
    assert.equal(failed.stdout, "");
    assert.match(failed.stderr, /^mema: error: /);
  } finally {
    home.cleanup();
  }
});

Deno.test("scan --json: one object with schema_version, also when it fails", async () => {
  const home = makeTempHome();
  try {
    const ok = await runCli(home, ["scan", "--json"]);
    assert.equal(ok.code, 0, ok.stderr);
    const report = JSON.parse(ok.stdout);
    assert.equal(report.schema_version, 1);
    assert.equal(report.complete, true);
    assert.equal(typeof report.kicks, "number");
    assert.equal(typeof report.memories_scanned, "number");
    assert.equal(typeof report.open_conflicts, "number");
    const bad = `${home.dir}/not-a-database.sqlite3`;
    Deno.writeTextFileSync(bad, "this is not SQLite");
    const failed = await runCli(home, ["scan", "--json", "--db", bad]);
    assert.equal(failed.code, 1);
    const failure = JSON.parse(failed.stdout);
    assert.equal(failure.complete, false);
    assert.equal(typeof failure.error.reason, "string");
    const usage = await runCli(home, ["scan", "--max-memories", "lots"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--max-memories must be a whole number/);
  } finally {
    home.cleanup();
  }
});
