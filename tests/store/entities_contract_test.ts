/**
 * The store contract for the entity graph, run on every backend (tests/store/backends.ts):
 * aliases follow the words memories use, a memory's graph is replaced whole, dropping a memory's
 * graph removes the entities only it named, workspaces keep their own entities, and merge and
 * split move mentions and relations.
 */
import assert from "node:assert/strict";
import { backendTest, type RoomsStore } from "./backends.ts";
import { testMemory } from "./memory_rows.ts";

const AT = "2026-03-01T00:00:00.000Z";

async function entity(store: RoomsStore, workspace: string, name: string, kind = "service") {
  return await store.write(async (tx) => await tx.insertEntity({ workspace, name, kind, at: AT }));
}

backendTest(
  "aliases follow mentions; a dropped memory takes the names only it used",
  async (store) => {
    const [a, b] = await store.write(async (tx) => [
      await tx.insertMemory(testMemory("Billing uses PostgreSQL.")),
      await tx.insertMemory(testMemory("Search uses PG.")),
    ]);
    const pg = await entity(store, "w", "PostgreSQL");
    const billing = await entity(store, "w", "Billing");
    const search = await entity(store, "w", "Search");
    await store.write(async (tx) => {
      await tx.replaceMemoryGraph({ id: a, workspace: "w" }, {
        mentions: [
          { entityId: billing, words: "Billing", key: "billing" },
          { entityId: pg, words: "PostgreSQL", key: "postgresql" },
        ],
        relations: [{ fromId: billing, type: "uses", toId: pg, origin: "read" }],
      });
      await tx.replaceMemoryGraph({ id: b, workspace: "w" }, {
        mentions: [
          { entityId: search, words: "Search", key: "search" },
          { entityId: pg, words: "PG", key: "pg" },
        ],
        relations: [{ fromId: search, type: "uses", toId: pg, origin: "stated" }],
      });
    });
    const byKey = await store.read(async (tx) =>
      await tx.entitiesByKeys("w", ["pg", "postgresql"])
    );
    assert.equal(byKey.get("pg")?.id, pg);
    assert.equal(byKey.get("postgresql")?.id, pg);
    assert.deepEqual((await store.entityAliases([pg])).get(pg)?.sort(), ["PG", "PostgreSQL"]);
    assert.equal((await store.relationsOf([pg], 10)).length, 2);
    assert.deepEqual(await store.entityMemoryIds([pg], 10), [b, a]);

    // Memory a goes: Billing (named only there) goes, and PostgreSQL keeps only "PG".
    const gone = await store.write(async (tx) => await tx.dropMemoryGraph(a));
    assert.deepEqual(gone, [billing]);
    assert.equal((await store.getEntities([billing])).size, 0);
    const left = (await store.getEntities([pg])).get(pg)!;
    assert.equal(left.name, "PG", "the shown name follows the words still used");
    assert.equal((await store.entitiesByKeys("w", ["postgresql"])).size, 0);
    const relations = await store.relationsOf([pg], 10);
    assert.deepEqual(relations.map((r) => [r.fromId, r.type, r.toId, r.memoryId, r.origin]), [
      [search, "uses", pg, b, "stated"],
    ]);
  },
);

backendTest("replacing a memory's graph drops what it no longer names", async (store) => {
  const id = await store.write(async (tx) =>
    await tx.insertMemory(testMemory("Alice owns Kafka."))
  );
  const alice = await entity(store, "w", "Alice", "person");
  const kafka = await entity(store, "w", "Kafka");
  await store.write(async (tx) =>
    await tx.replaceMemoryGraph({ id, workspace: "w" }, {
      mentions: [
        { entityId: alice, words: "Alice", key: "alice" },
        { entityId: kafka, words: "Kafka", key: "kafka" },
      ],
      relations: [{ fromId: kafka, type: "owned_by", toId: alice, origin: "read" }],
    })
  );
  const gone = await store.write(async (tx) =>
    await tx.replaceMemoryGraph({ id, workspace: "w" }, {
      mentions: [{ entityId: alice, words: "Alice", key: "alice", stated: true }],
      relations: [],
    })
  );
  assert.deepEqual(gone, [kafka]);
  assert.deepEqual(await store.relationsOf([alice], 10), []);
  assert.deepEqual([...(await store.memoryMentions([id])).get(id)!], [{
    entityId: alice,
    words: "Alice",
    stated: true,
  }]);
});

backendTest("entities stay in their workspace; pages count and filter by kind", async (store) => {
  const [one, two] = await store.write(async (tx) => [
    await tx.insertMemory(
      testMemory("Alice in alpha.", { workspace: "alpha", workspaceCanonical: "alpha" }),
    ),
    await tx.insertMemory(
      testMemory("Alice in beta.", { workspace: "beta", workspaceCanonical: "beta" }),
    ),
  ]);
  const inAlpha = await entity(store, "alpha", "Alice", "person");
  const inBeta = await entity(store, "beta", "Alice", "person");
  const team = await entity(store, "alpha", "Core team", "team");
  await store.write(async (tx) => {
    await tx.replaceMemoryGraph({ id: one, workspace: "alpha" }, {
      mentions: [
        { entityId: inAlpha, words: "Alice", key: "alice" },
        { entityId: team, words: "Core team", key: "core team" },
      ],
      relations: [],
    });
    await tx.replaceMemoryGraph({ id: two, workspace: "beta" }, {
      mentions: [{ entityId: inBeta, words: "Alice", key: "alice" }],
      relations: [],
    });
  });
  assert.equal((await store.entitiesByKeys("alpha", ["alice"])).get("alice")?.id, inAlpha);
  assert.equal((await store.entitiesByKeys("beta", ["alice"])).get("alice")?.id, inBeta);
  assert.deepEqual((await store.entitiesNamed(["alice"], ["beta"])).map((e) => e.id), [inBeta]);
  assert.equal((await store.entitiesNamed(["alice"])).length, 2);
  const alpha = await store.entityPage({ workspaces: ["alpha"], offset: 0, limit: 10 });
  assert.equal(alpha.total, 2);
  assert.deepEqual(alpha.kinds, { person: 1, team: 1 });
  const people = await store.entityPage({ kind: "person", offset: 0, limit: 1 });
  assert.equal(people.total, 2);
  assert.equal(people.rows.length, 1);
  assert.equal(people.rows[0].mentions, 1);
  const withoutBeta = await store.entityPage({ excludeWorkspaces: ["beta"], offset: 0, limit: 10 });
  assert.ok(withoutBeta.rows.every((row) => row.workspace === "alpha"));
});

backendTest("merge folds one entity into another; split moves a name back out", async (store) => {
  const [a, b] = await store.write(async (tx) => [
    await tx.insertMemory(testMemory("Payments API depends on Postgres.")),
    await tx.insertMemory(testMemory("Ledger depends on PG.")),
  ]);
  const payments = await entity(store, "w", "Payments API");
  const ledger = await entity(store, "w", "Ledger");
  const postgres = await entity(store, "w", "Postgres");
  const pg = await entity(store, "w", "PG");
  await store.write(async (tx) => {
    await tx.replaceMemoryGraph({ id: a, workspace: "w" }, {
      mentions: [
        { entityId: payments, words: "Payments API", key: "payments api" },
        { entityId: postgres, words: "Postgres", key: "postgres" },
      ],
      relations: [{ fromId: payments, type: "depends_on", toId: postgres, origin: "read" }],
    });
    await tx.replaceMemoryGraph({ id: b, workspace: "w" }, {
      mentions: [
        { entityId: ledger, words: "Ledger", key: "ledger" },
        { entityId: pg, words: "PG", key: "pg" },
      ],
      relations: [{ fromId: ledger, type: "depends_on", toId: pg, origin: "read" }],
    });
  });
  await store.write(async (tx) => await tx.mergeEntities(pg, postgres));
  assert.equal((await store.getEntities([pg])).size, 0);
  assert.equal((await store.entitiesByKeys("w", ["pg"])).get("pg")?.id, postgres);
  assert.deepEqual(
    (await store.relationsOf([postgres], 10)).map((r) => r.fromId).sort(),
    [payments, ledger].sort(),
  );
  const back = await store.write(async (tx) =>
    await tx.splitEntity(postgres, { key: "pg", name: "PG", kind: "service", at: AT })
  );
  assert.equal((await store.entitiesByKeys("w", ["pg"])).get("pg")?.id, back);
  assert.deepEqual((await store.relationsOf([back], 10)).map((r) => r.fromId), [ledger]);
  assert.deepEqual((await store.relationsOf([postgres], 10)).map((r) => r.fromId), [payments]);
  assert.deepEqual(await store.entityMemoryIds([back], 10), [b]);
});

backendTest(
  "many new memories' graphs at once are the rows of one memory after another",
  async (store) => {
    // Enough mentions to fill several multi-row statements, an alias two memories use (the
    // first keeps it) and a relation stated twice (stored once).
    const ids = await store.write(async (tx) => {
      const out = [];
      for (let i = 0; i < 40; i++) out.push(await tx.insertMemory(testMemory(`Fact ${i}.`)));
      return out;
    });
    const [kafka, redis] = [await entity(store, "w", "Kafka"), await entity(store, "w", "Redis")];
    const graphOf = (i: number) => ({
      mentions: [
        { entityId: kafka, words: `Kafka ${i % 3}`, key: `kafka ${i % 3}` },
        { entityId: i % 2 === 0 ? kafka : redis, words: "Shared", key: "shared" },
        { entityId: redis, words: "Redis", key: "redis", stated: i === 5 },
      ],
      relations: [
        { fromId: kafka, type: "uses", toId: redis, origin: "read" as const },
        { fromId: kafka, type: "uses", toId: redis, origin: "read" as const },
      ],
    });
    const gone = await store.write(async (tx) =>
      await tx.replaceMemoryGraphs(
        ids.map((id, i) => ({ memory: { id, workspace: "w" }, graph: graphOf(i) })),
      )
    );
    assert.deepEqual(gone, []);
    const mentions = await store.memoryMentions(ids);
    ids.forEach((id, i) => {
      assert.deepEqual(
        mentions.get(id)?.map((m) => [m.entityId, m.words, m.stated]).sort(),
        graphOf(i).mentions.map((m) => [m.entityId, m.words, m.stated === true]).sort(),
      );
    });
    assert.equal((await store.entitiesByKeys("w", ["shared"])).get("shared")?.id, kafka);
    const relations = await store.relationPage(0, 1000);
    assert.deepEqual(relations.map((r) => r.memoryId), ids, "one relation each, in order");
    // Written again, memory by memory's answer: the same rows, nothing duplicated.
    await store.write(async (tx) =>
      await tx.replaceMemoryGraphs(
        ids.map((id, i) => ({ memory: { id, workspace: "w" }, graph: graphOf(i) })),
      )
    );
    assert.equal((await store.relationPage(0, 1000)).length, ids.length);
    assert.deepEqual(await store.memoryMentions(ids), mentions);
  },
);
