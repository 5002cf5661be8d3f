/**
 * An import stores its plain new memories together (the bulk path, import_bulk.ts) and must
 * leave exactly what storing every item one by one leaves: the same report, memories (ids,
 * authors, windows, links), versions, audit, evidence rows, entity graph (mentions and
 * relations), word index (what `find` answers), workspaces and queued jobs. The feed mixes plain items with everything
 * that must go item by item or waits on the group: duplicates of stored and of earlier texts, a
 * source changed within the file, links to earlier lines, history, a note of several sections,
 * bad lines, trust without authorization. The file imported again gives the same answer on both
 * paths, and an export of the library imported back changes nothing. Run on both backends,
 * with and without the texts prepared ahead on a worker (text_preparer.ts).
 */
import assert from "node:assert/strict";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { type ImportOptions, importUnits } from "../../src/portability/import.ts";
import type { ImportUnit, SkippedSource } from "../../src/portability/import_types.ts";
import { IMPORT_BATCH_MEMORIES } from "../../src/portability/constants.ts";
import { jsonlHeader, jsonlLine } from "../../src/portability/export.ts";
import { portableMemory } from "../../src/portability/record.ts";
import { jsonlUnits, markdownUnit } from "../../src/portability/sources.ts";
import { TextPreparer } from "../../src/portability/text_preparer.ts";
import { findMemories } from "../../src/recall/find.ts";
import { openStore, type Store } from "../../src/store/mod.ts";
import { STORE_PAIR_BACKENDS as BACKENDS } from "../helpers/store_pairs.ts";

function contextOf(store: Store, dir: string): ServiceContext {
  return {
    store,
    caller: { client: "mema-import", agentId: "mema-import" },
    settings: {
      workspaceIsolation: "none",
      includeSize: false,
      backupPath: `${dir}/backup.jsonl`,
      timeZone: "UTC",
    },
    events: composeMemoryEvents(),
  };
}

/** One export line (`mema export --format jsonl`), with what a test line changes. */
function line(fields: Record<string, unknown>): string {
  return JSON.stringify({ type: "memory", workspace: "team", tags: ["t"], ...fields });
}

const EXPORT = [
  JSON.stringify({ type: "mema_export", format: 1 }),
  // Plain new memories, with their exported ids, ingest times and authors.
  line({
    id: 11,
    subject: "relay",
    content: "Quillon Relay forwards payment events to the ledger.",
    ingest_time: "2026-01-01T00:00:01Z",
    agent_id: "ana",
    client: "cli",
  }),
  line({
    id: 12,
    subject: "relay",
    content: "Quillon Relay moved to Berlin in March 2024.",
    ingest_time: "2026-01-01T00:00:02Z",
  }),
  // Already stored before the import: a duplicate replay.
  line({ id: 13, subject: "old", content: "Deploys run on Fridays.", workspace: "Team" }),
  // The same text twice in the file: the second is a duplicate of the first.
  line({ id: 14, subject: "pairs", content: "Marta Kowalski owns the ledger.", agent_id: "bo" }),
  line({ id: 15, subject: "pairs", content: "Marta Kowalski owns the ledger." }),
  // A source seen again later in the file with other words: a new version of the first.
  line({ subject: "doc", content: "The runbook lives in the wiki.", source_ref: "runbook.md" }),
  line({ subject: "doc", content: "The runbook lives in the repo.", source_ref: "runbook.md" }),
  // Follows an earlier line of this file: linked through the id map.
  line({
    id: 16,
    subject: "relay",
    content: "Its retries back off for ten minutes.",
    follows: 11,
    ingest_time: "2026-01-01T00:00:03Z",
  }),
  // Follows a line that is not in the file: no link, a plain memory.
  line({ id: 17, subject: "orphan", content: "Nobody knows what came before.", follows: 999 }),
  // A bad line, then one the write path refuses: both skipped, the rest imported.
  "{not json",
  line({ subject: "empty", content: "   " }),
  // Declared trust that needs --authorized: lowered.
  line({
    subject: "trust",
    content: "The CFO approved the budget.",
    source_type: "user_confirmed",
    protection_level: "locked",
  }),
  // Pending, twice: a pending text is no duplicate.
  line({ subject: "later", content: "Ledger exports wait for review.", status: "pending" }),
  line({ subject: "later", content: "Ledger exports wait for review.", status: "pending" }),
  // History to replay.
  line({
    id: 18,
    subject: "owner",
    content: "Billing is owned by Priya Sato.",
    history: [{
      version: 1,
      subject: "owner",
      content: "Billing is owned by Hugo Weiss.",
      tags: ["t"],
      changed_by: "ana",
      reason: "handover",
    }],
  }),
  // A new workspace, its name written two ways.
  line({ subject: "new", content: "Oskar Lind runs the data team.", workspace: "Data Ops" }),
  line({ subject: "new", content: "The data team meets on Mondays.", workspace: "data-ops" }),
  // The exported id and ingest time of a memory stored just above: the same memory.
  line({
    id: 11,
    subject: "relay",
    content: "Quillon Relay forwards payment events to the ledger.",
    ingest_time: "2026-01-01T00:00:01Z",
  }),
].join("\n");

const NOTE = "# Payments\nIntro text that says more than the title.\n\n## Retries\n" +
  "Retries wait ten minutes.\n\n## Owners\nElif Novak owns payments since June 2025.\n";

/**
 * The feed: the export's lines, then a note of sections, then more plain lines. `ahead`: after a
 * first batch of filler lines, as the worker prepares batches from the second on.
 */
function feed(ahead = false): (ImportUnit | SkippedSource)[] {
  const filler = ahead
    ? jsonlUnits(
      Array.from(
        { length: IMPORT_BATCH_MEMORIES },
        // Their own workspace: an exported id of the feed never names one of them.
        (_, i) =>
          line({
            subject: "filler",
            content: `Filler fact ${i} from Ines Moreau.`,
            workspace: "filler",
          }),
      ).join("\n"),
      "filler.jsonl",
    ).units
    : [];
  const read = jsonlUnits(EXPORT, "export.jsonl");
  const skipped = read.errors.map((error) => ({
    path: "export.jsonl",
    line: error.line,
    reason: error.message,
  }));
  const note = markdownUnit(NOTE, {
    path: "notes/payments.md",
    sourceRef: "payments.md",
    fileTitle: "payments",
    split: "headings",
  });
  const more = jsonlUnits(
    [
      line({ subject: "tail", content: "Ada Berg reviews every release." }),
      line({ subject: "tail", content: "Retries wait ten minutes." }),
    ].join("\n"),
    "more.jsonl",
  ).units;
  return [...filler, ...read.units, ...skipped, note, ...more];
}

/** Any time this run wrote (not one the file carried) reads the same in both libraries. */
function withoutClock(value: unknown, since: number): unknown {
  if (typeof value === "string") {
    const at = /^\d{4}-\d\d-\d\dT/.test(value) ? Date.parse(value) : NaN;
    return at >= since ? "<now>" : value;
  }
  if (Array.isArray(value)) return value.map((entry) => withoutClock(entry, since));
  if (value instanceof Map) return withoutClock(Object.fromEntries(value), since);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, entry]) => [key, withoutClock(entry, since)]),
    );
  }
  return value;
}

/** All a user can see of a library after an import. */
async function library(ctx: ServiceContext, since: number) {
  const { store } = ctx;
  const memories = await store.memoryPage({
    statuses: ["active", "pending", "superseded", "retired", "deleted"],
    afterId: 0,
    limit: 1000,
  });
  const ids = memories.map((memory) => memory.id);
  const perMemory = [];
  for (const id of ids) {
    perMemory.push({
      id,
      history: await store.listHistory(id),
      rows: (await store.rowsOfMemory(id)).map((row) => ({ ...row, id: undefined })),
    });
  }
  const entities = (await store.entityPage({ offset: 0, limit: 1000 })).rows
    .map((entity) => `${entity.workspace}/${entity.name}/${entity.kind}/${entity.mentions}`)
    .sort();
  const mentions = await store.memoryMentions(ids);
  const graph = ids.map((id) =>
    (mentions.get(id) ?? []).map((mention) => mention.words).sort().join(",")
  );
  // In the order they were written (their ids), as one-by-one writes number them.
  const relations = (await store.relationPage(0, 1000)).map((relation) => ({
    ...relation,
    id: undefined,
  }));
  const jobs = [];
  for (let id = 1; id <= 20; id++) jobs.push(await store.getJob(id));
  const answers = [];
  for (const query of ["Quillon Relay", "ledger", "retries ten minutes", "data team", "runbook"]) {
    const page = await findMemories(ctx, { query, limit: 10 });
    // As a set: the order of equal scores is the database's to choose.
    answers.push(page.items.map((hit) => [hit.memory.id, hit.score]).sort((a, b) => a[0] - b[0]));
  }
  return withoutClock({
    memories,
    perMemory,
    entities,
    graph,
    relations,
    jobs: jobs.filter((job) => job !== undefined).map((job) => ({ ...job, id: undefined })),
    jobCounts: await store.countJobs(),
    // By id: rows written in the same millisecond come in either order.
    audit: (await store.listAudit({ limit: 1000, offset: 0 })).rows.sort((a, b) => a.id - b.id),
    workspaces: await store.listWorkspaces(),
    answers,
    indexed: await store.indexedMemories(),
  }, since);
}

for (const [backend, ahead] of BACKENDS.flatMap((b) => [[b, false], [b, true]] as const)) {
  Deno.test({
    name: `${backend.name}: an import's bulk path${
      ahead ? ", its texts prepared on a worker," : ""
    } leaves what importing item by item leaves${
      backend.skipped ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""
    }`,
    ignore: backend.skipped === true,
    sanitizeOps: backend.name !== "postgres",
    sanitizeResources: backend.name !== "postgres",
    async fn() {
      // Every time from here on is this run's, the stores' own creation included.
      const since = Date.now() - 1000;
      const dir = Deno.makeTempDirSync({ prefix: "mema-import-bulk-" });
      const { stores, close } = await backend.open(dir);
      const preparer = ahead ? new TextPreparer() : undefined;
      try {
        const [bulk, oneByOne] = stores.map((store) => contextOf(store, dir));
        const options: ImportOptions = { defaultWorkspace: "notes", preparer };
        for (const ctx of [bulk, oneByOne]) {
          await rememberMemory(ctx, {
            content: "Deploys run on Fridays.",
            subject: "old",
            workspace: "team",
          });
        }
        const together = await importUnits(bulk, feed(ahead), options);
        const apart = await importUnits(oneByOne, feed(ahead), {
          ...options,
          oneByOne: true,
          preparer: undefined,
        });
        assert.deepEqual(together, apart);
        assert.equal(together.skipped.length, 2, JSON.stringify(together.skipped));
        assert.ok(together.created >= 15, JSON.stringify(together));
        assert.ok(together.duplicates >= 3, JSON.stringify(together));
        assert.equal(together.updated, 1);
        assert.equal(together.duplicates, 3);
        assert.deepEqual(await library(bulk, since), await library(oneByOne, since));

        // The same file again: the same answer on both paths. (Not the same library to the
        // millisecond: the file changes runbook.md twice, and a version that held for less
        // than a millisecond keeps no window, whichever path wrote it.)
        const twice = await importUnits(bulk, feed(ahead), options);
        assert.deepEqual(
          twice,
          await importUnits(oneByOne, feed(ahead), {
            ...options,
            oneByOne: true,
            preparer: undefined,
          }),
        );

        // An export of the library, imported back: every memory unchanged, nothing written.
        const before = await library(bulk, since);
        const page = await bulk.store.memoryPage({
          statuses: ["active", "pending"],
          afterId: 0,
          limit: 1000,
        });
        const exported = [
          jsonlHeader({}),
          ...page.map((memory) => jsonlLine(portableMemory(memory))),
        ].join("\n");
        const back = await importUnits(bulk, jsonlUnits(exported, "back.jsonl").units, options);
        assert.equal(back.unchanged, page.length, JSON.stringify(back));
        assert.equal(back.created + back.updated + back.duplicates, 0, JSON.stringify(back));
        assert.deepEqual(await library(bulk, since), before);
      } finally {
        preparer?.close();
        await close();
        Deno.removeSync(dir, { recursive: true });
      }
    },
  });
}

Deno.test("skipped lines are reported in file order across batches, the next batch read ahead", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-import-order-" });
  const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache`, skipVec: true });
  try {
    // Line 300 is refused by the write path (batch 1), line 900 cannot be read (batch 2).
    const lines = Array.from({ length: 1_200 }, (_, index) => {
      const n = index + 1;
      if (n === 300) return line({ subject: "empty", content: "  " });
      if (n === 900) return "{broken";
      return line({ subject: `fact ${n}`, content: `Fact number ${n} of the file.` });
    });
    const read = jsonlUnits(lines.join("\n"), "facts.jsonl");
    const feed = [
      ...read.units,
      ...read.errors.map((error) => ({
        path: "facts.jsonl",
        line: error.line,
        reason: error.message,
      })),
    ].sort((a, b) => a.line - b.line);
    const report = await importUnits(contextOf(store, dir), feed, {});
    assert.deepEqual(report.skipped.map((skip) => skip.line), [300, 900]);
    assert.equal(report.created, 1_198);
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
