import assert from "node:assert/strict";
import { parseRecallBlacklist, recallBlacklist } from "../../src/workspaces/blacklist.ts";
import { nearWorkspaceName } from "../../src/workspaces/registry.ts";
import { readScope, writeWorkspace } from "../../src/workspaces/access.ts";

Deno.test("a near-miss workspace name is offered; unrelated short names are not", () => {
  assert.equal(nearWorkspaceName("alpah", ["alpha", "billing"]), "alpha");
  assert.equal(nearWorkspaceName("biling", ["alpha", "billing"]), "billing");
  assert.equal(nearWorkspaceName("qa", ["ux", "ops"]), undefined);
  assert.equal(nearWorkspaceName("payments", ["alpha", "billing"]), undefined);
});

Deno.test("the recall blacklist reads JSON strings, objects and bare names; skips comments", () => {
  assert.deepEqual(
    parseRecallBlacklist('"Archive"\n\n# old\n{"workspace": "scratch"}\nlab notes\n{"x": 1}\n'),
    ["archive", "scratch", "lab-notes"],
  );
});

Deno.test("read scope and write workspace per isolation mode", () => {
  const caller = { client: "c", agentId: "a", workspace: "alpha" };
  const none = { caller, settings: { workspaceIsolation: "none" as const } };
  const strict = { caller, settings: { workspaceIsolation: "strict" as const } };
  assert.deepEqual(readScope(none, undefined), {});
  assert.deepEqual(readScope(none, undefined, { blacklist: ["scratch"] }), {
    excludeWorkspaces: ["scratch"],
  });
  assert.deepEqual(readScope(none, "Beta"), { workspaces: ["beta", "default"] });
  assert.deepEqual(readScope(strict, undefined, { blacklist: ["scratch"] }), {
    workspaces: ["alpha"],
  });
  assert.throws(() => readScope(strict, "beta"), /strict workspace isolation/);
  assert.equal(writeWorkspace(none, undefined), "alpha");
  assert.equal(writeWorkspace(strict, "ALPHA"), "ALPHA");
  assert.throws(() => writeWorkspace(strict, "default"), /strict workspace isolation/);
  assert.throws(
    () => writeWorkspace({ ...none, caller: { client: "c", agentId: "a" } }, undefined),
    /workspace is required/,
  );
});

Deno.test("a blacklist created beside a long-unchanged database is read from the next query on", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = `${dir}/recall_blacklist.jsonl`;
    // A directory last changed a minute ago: its time vouches for the file's absence.
    const past = new Date(Date.now() - 60_000);
    Deno.utimeSync(dir, past, past);
    assert.deepEqual(recallBlacklist(path), []);
    assert.deepEqual(recallBlacklist(path), []);
    Deno.writeTextFileSync(path, '"Scratch"\n');
    assert.deepEqual(recallBlacklist(path), ["scratch"]);
    // Removed again: nothing is left out.
    Deno.removeSync(path);
    assert.deepEqual(recallBlacklist(path), []);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
