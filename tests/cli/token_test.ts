/**
 * `mema token add|list|revoke` as a user runs it: the real main.ts on a temporary home.
 * @module
 */
import assert from "node:assert/strict";
import { makeTempHome, runCli } from "../helpers/server.ts";

const add = (agent: string, extra: string[] = []) => [
  "token",
  "add",
  "--client",
  "team",
  "--agent-id",
  agent,
  "--workspace",
  "alpha",
  ...extra,
];

Deno.test("cli token: adds at the same time all land; list shows no secret; the file is owner-only", async () => {
  const home = makeTempHome();
  try {
    const agents = ["a1", "a2", "a3", "a4"];
    const runs = await Promise.all(agents.map((agent) => runCli(home, add(agent))));
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    const secrets = runs.map((run) => run.stdout.trim());
    const list = await runCli(home, ["token", "list"]);
    assert.equal(list.code, 0, list.stderr);
    for (const agent of agents) {
      assert.match(list.stdout, new RegExp(`^${agent} +team +${agent} +alpha `, "m"));
    }
    const path = `${home.dir}/data/mema/http_tokens.json`;
    const stored = Deno.readTextFileSync(path);
    for (const secret of secrets) {
      assert.ok(!list.stdout.includes(secret) && !stored.includes(secret));
    }
    if (Deno.build.os !== "windows") assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
    assert.equal(Deno.readDirSync(`${home.dir}/data/mema`).toArray().length, 1, "no lock left");
  } finally {
    home.cleanup();
  }
});

Deno.test("cli token: bad command lines exit 2 and change nothing; a taken label or unknown token exits 1", async () => {
  const home = makeTempHome();
  try {
    assert.equal((await runCli(home, add("a1", ["--name", "ci"]))).code, 0);
    const path = `${home.dir}/data/mema/http_tokens.json`;
    const before = Deno.readTextFileSync(path);
    for (
      const args of [
        ["token"],
        ["token", "add", "--client", "team", "--workspace", "alpha"],
        ["token", "add", "--client", "team", "--agent-id", "x"],
        add("x", ["--any-workspace"]),
        add("has space"),
        add("x", ["--workspace", "a/b"]),
        ["token", "list", "--client", "team"],
        ["token", "revoke"],
        ["token", "list", "extra"],
        ["token", "rotate"],
      ]
    ) {
      const run = await runCli(home, args);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.equal(run.stdout, "");
    }
    const taken = await runCli(home, add("a2", ["--name", "ci"]));
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, /a token named "ci" already exists/);
    assert.equal(taken.stdout, "", "no token printed for a token not saved");
    assert.equal((await runCli(home, ["token", "revoke", "nobody"])).code, 1);
    assert.equal(Deno.readTextFileSync(path), before);
  } finally {
    home.cleanup();
  }
});
