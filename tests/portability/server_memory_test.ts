/**
 * server-memory users come over (issue 35): `mema import FILE --format server-memory` reads the
 * reference MCP memory server's memory.jsonl (written in its own format: entity lines with
 * entityType and observations, relation lines with from/to/relationType) into facts, entities and
 * relations; importing again stores nothing; `mema export DIR --format server-memory` writes the
 * graph back, and that file imports into a fresh library as the same graph.
 */
import assert from "node:assert/strict";
import { makeTempHome, runCli } from "../helpers/server.ts";
import { parseServerMemory } from "../../src/portability/server_memory.ts";

const FIXTURE = new URL("../fixtures/server_memory/memory.jsonl", import.meta.url).pathname;

function sortedGraph(text: string) {
  const graph = parseServerMemory(text);
  return {
    entities: graph.entities.map((e) => ({ ...e, observations: [...e.observations].sort() }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    relations: graph.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`).sort(),
  };
}

Deno.test("server-memory's file imports as facts and a graph, again as a no-op, and exports back", async () => {
  const home = makeTempHome();
  const other = makeTempHome();
  try {
    const first = await runCli(home, ["import", FIXTURE, "--format", "server-memory"]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /9 new, 0 unchanged; 0 skipped/);
    const again = await runCli(home, ["import", FIXTURE, "--format", "server-memory"]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /0 new, 9 unchanged/, "a second import stores nothing new");

    const out = `${home.dir}/out`;
    const exported = await runCli(home, ["export", out, "--format", "server-memory"]);
    assert.equal(exported.code, 0, exported.stderr);
    const expected = sortedGraph(Deno.readTextFileSync(FIXTURE));
    const got = sortedGraph(Deno.readTextFileSync(`${out}/memory.jsonl`));
    for (const entity of expected.entities) {
      const back = got.entities.find((e) => e.name === entity.name);
      assert.deepEqual(back, entity, `${entity.name} comes back with its type and observations`);
    }
    for (const relation of expected.relations) {
      assert.ok(got.relations.includes(relation), `${relation} in ${got.relations.join("; ")}`);
    }

    // The exported file is server-memory's own format: it imports into a fresh library whole.
    const copied = await runCli(other, [
      "import",
      `${out}/memory.jsonl`,
      "--format",
      "server-memory",
    ]);
    assert.equal(copied.code, 0, copied.stderr);
    const out2 = `${other.dir}/out`;
    assert.equal((await runCli(other, ["export", out2, "--format", "server-memory"])).code, 0);
    assert.deepEqual(sortedGraph(Deno.readTextFileSync(`${out2}/memory.jsonl`)), got);

    const bad = await runCli(home, ["import", FIXTURE, "--format", "mem9"]);
    assert.equal(bad.code, 2);
  } finally {
    home.cleanup();
    other.cleanup();
  }
});

Deno.test("a server-memory line that cannot be read is reported by line and skipped", async () => {
  const home = makeTempHome();
  try {
    const file = `${home.dir}/memory.jsonl`;
    Deno.writeTextFileSync(
      file,
      [
        '{"type":"entity","name":"Ana","entityType":"person","observations":["Leads the search team"]}',
        '{"type":"relation","from":"Ana"}',
        "{broken",
      ].join("\n"),
    );
    const run = await runCli(home, ["import", file, "--format", "server-memory"]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /memory\.jsonl:2: a relation needs from, to and relationType/);
    assert.match(run.stderr, /memory\.jsonl:3: not a JSON line/);
    assert.match(run.stdout, /1 new/);
  } finally {
    home.cleanup();
  }
});
