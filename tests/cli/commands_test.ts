/**
 * The command line as a user meets it: `mema help COMMAND`, `--help`, and did-you-mean for a
 * mistyped command, flag or argument. Spawns the real main.ts.
 * @module
 */
import assert from "node:assert/strict";
import { makeTempHome, runCli } from "../helpers/server.ts";

const COMMANDS = [
  "serve",
  "doctor",
  "setup",
  "scan",
  "export",
  "client",
  "token",
  "version",
  "help",
];

Deno.test("cli: every command has its own help page, by `help COMMAND` and by --help", async () => {
  const home = makeTempHome();
  try {
    for (const command of COMMANDS) {
      const page = await runCli(home, ["help", command]);
      assert.equal(page.code, 0, page.stderr);
      assert.match(page.stdout, new RegExp(`^mema ${command} — `), command);
      assert.match(page.stdout, /Usage:\n {2}mema /, command);
      if (command !== "help") {
        const viaFlag = await runCli(home, [command, "--help"]);
        assert.equal(viaFlag.code, 0, viaFlag.stderr);
        assert.equal(viaFlag.stdout, page.stdout, `${command} --help`);
      }
    }
    const doctor = await runCli(home, ["help", "doctor"]);
    assert.match(doctor.stdout, /--agent-id ID +with --client/);
    assert.match(doctor.stdout, /Exit codes:\n {2}0 {2}healthy/);
    const overview = await runCli(home, ["help"]);
    for (const command of COMMANDS) assert.match(overview.stdout, new RegExp(`mema ${command}`));
  } finally {
    home.cleanup();
  }
});

Deno.test("cli: a mistyped flag names the closest one instead of printing the usage", async () => {
  const home = makeTempHome();
  try {
    const run = await runCli(home, ["doctor", "--dbb", "x.sqlite3"]);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /unknown flag --dbb \(did you mean --db\?\)/);
    assert.match(run.stderr, /mema help doctor/);
    assert.ok(run.stderr.split("\n").length <= 3, run.stderr);
    const scan = await runCli(home, ["scan", "--quite"]);
    assert.equal(scan.code, 2);
    assert.match(scan.stderr, /did you mean --quiet\?/);
    const serve = await runCli(home, ["serve", "--agentid", "x"]);
    assert.equal(serve.code, 2);
    assert.match(serve.stderr, /did you mean --agent-id\?/);
    const nothingClose = await runCli(home, ["setup", "--zzzzzz"]);
    assert.equal(nothingClose.code, 2);
    assert.match(nothingClose.stderr, /unknown flag --zzzzzz\n/);
    const missingValue = await runCli(home, ["doctor", "--db"]);
    assert.equal(missingValue.code, 2);
    assert.match(missingValue.stderr, /--db/);
  } finally {
    home.cleanup();
  }
});

Deno.test("cli: a mistyped command or argument gets a did-you-mean", async () => {
  const home = makeTempHome();
  try {
    const command = await runCli(home, ["doctr"]);
    assert.equal(command.code, 2);
    assert.match(command.stderr, /unknown command "doctr" — did you mean "doctor"\?/);
    const topic = await runCli(home, ["help", "scna"]);
    assert.equal(topic.code, 2);
    assert.match(topic.stderr, /did you mean scan\?/);
    const client = await runCli(home, ["client", "curser"]);
    assert.equal(client.code, 2);
    assert.match(client.stderr, /did you mean cursor\?/);
    const extra = await runCli(home, ["version", "now"]);
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /unexpected argument "now"/);
  } finally {
    home.cleanup();
  }
});
