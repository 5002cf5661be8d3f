import assert from "node:assert/strict";
import { libraryRows, onBothBackends } from "../helpers/e2e_backends.ts";
import { makeTempHome, runCli } from "../helpers/server.ts";

Deno.test("cli: version and help print to stdout and exit 0; unknown commands exit 2", async () => {
  const home = makeTempHome();
  try {
    const version = await runCli(home, ["version"]);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^mema \d+\.\d+\.\d+/);
    const help = await runCli(home, ["help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /mema serve/);
    assert.match(help.stdout, /mema doctor/);
    const unknown = await runCli(home, ["serv"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "serv"/);
    const badFlag = await runCli(home, ["doctor", "--jsn"]);
    assert.equal(badFlag.code, 2);
  } finally {
    home.cleanup();
  }
});

Deno.test("cli: serve refuses to start without identity and says how to set it", async () => {
  const home = makeTempHome();
  try {
    const run = await runCli(home, ["serve"]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "", "nothing but protocol frames may reach stdout");
    assert.match(run.stderr, /MEMA_CLIENT/);
    assert.match(run.stderr, /MEMA_AGENT_ID/);
  } finally {
    home.cleanup();
  }
});

Deno.test("cli: the README's start task runs the server with the default database", async () => {
  const home = makeTempHome();
  try {
    const denoJson = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)));
    const task: string = denoJson.tasks.start;
    const args = task.split(" ").slice(task.split(" ").indexOf("main.ts") + 1);
    // stdin is closed at once: the server initializes the database, then exits cleanly.
    const run = await runCli(home, args);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "");
    const stat = Deno.statSync(home.dbPath);
    assert.ok(stat.isFile);
  } finally {
    home.cleanup();
  }
});

onBothBackends(
  "cli: import, export, scan, doctor and upgrade work on the configured database",
  async (home, backend) => {
    Deno.mkdirSync(`${home.dir}/notes`);
    Deno.writeTextFileSync(
      `${home.dir}/notes/backups.md`,
      "# Backups\n\nThe nightly backup runs at 02:00 UTC and is kept for 30 days.\n",
    );
    const outputs: { code: number; stdout: string; stderr: string }[] = [];
    const run = async (args: string[]) => {
      const output = await runCli(home, args);
      outputs.push(output);
      assert.equal(output.code, 0, `${args.join(" ")}: ${output.stdout}${output.stderr}`);
      return output;
    };
    await run(["import", `${home.dir}/notes`, "--workspace", "ops"]);
    await run(["export", `${home.dir}/out`, "--workspace", "ops", "--format", "jsonl"]);
    const exported = [...Deno.readDirSync(`${home.dir}/out`)].map((entry) =>
      Deno.readTextFileSync(`${home.dir}/out/${entry.name}`)
    ).join("\n");
    assert.match(exported, /The nightly backup runs at 02:00 UTC/);
    const scan = JSON.parse((await run(["scan", "--json"])).stdout);
    assert.equal(typeof scan, "object");
    const doctor = JSON.parse((await run(["doctor", "--json"])).stdout);
    assert.equal(doctor.status, "healthy", JSON.stringify(doctor.findings));
    await run(["upgrade", "--dry-run"]);
    await run(["import", `${home.dir}/notes`, "--workspace", "ops"]);

    const rows = await libraryRows(home, backend, "SELECT subject, workspace FROM memories");
    assert.deepEqual(
      rows,
      [{ subject: "Backups", workspace: "ops" }],
      "a second import adds nothing",
    );
    if (backend.name === "postgres") {
      const password = new URL(backend.url).password;
      for (const output of outputs) {
        assert.ok(
          !(output.stdout + output.stderr).includes(password),
          "the password is never shown",
        );
      }
      assert.throws(() => Deno.statSync(home.dbPath), Deno.errors.NotFound, "no SQLite file made");
    }
  },
);
