/**
 * The import's text worker (src/portability/text_preparer.ts) answers what preparing each text
 * on the main thread answers, in order, batch after batch; the import's write path takes what a
 * preparer hands it for the very texts it was prepared from; a closed preparer prepares nothing
 * and the import goes on without it.
 */
import assert from "node:assert/strict";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";
import { type PreparedText, prepareText } from "../../src/memory/prepared_text.ts";
import { IMPORT_BATCH_MEMORIES } from "../../src/portability/constants.ts";
import { importUnits } from "../../src/portability/import.ts";
import { jsonlUnits } from "../../src/portability/sources.ts";
import { TextPreparer } from "../../src/portability/text_preparer.ts";
import { openStore } from "../../src/store/mod.ts";

const TEXTS = [
  { subject: "db", content: "The Payments API depends on PostgreSQL 16; see PAY-42." },
  { subject: "团队", content: "张伟负责支付服务。订单服务依赖于支付服务。" },
  {
    subject: "people",
    content: "Bob reports to Carol Diaz. Kubernetes (K8s) runs the cart service.",
  },
  { subject: "plain", content: "Nothing here names anything at all." },
];

Deno.test("the worker prepares what the main thread prepares, batch after batch", async () => {
  const preparer = new TextPreparer();
  try {
    const [first, second] = await Promise.all([
      preparer.prepare(TEXTS),
      preparer.prepare(TEXTS.slice().reverse()),
    ]);
    assert.deepEqual(first, TEXTS.map((t) => prepareText(t.subject, t.content)));
    assert.deepEqual(second, TEXTS.slice().reverse().map((t) => prepareText(t.subject, t.content)));
    assert.equal(await preparer.prepare([]), undefined);
  } finally {
    preparer.close();
  }
  assert.equal(await preparer.prepare(TEXTS), undefined, "closed: nothing prepared");
});

Deno.test("an import writes the graph a preparer read for the same text, and only for it", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "mema-prepared-" });
  const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache`, skipVec: true });
  try {
    const ctx = {
      store,
      caller: { client: "mema-import", agentId: "mema-import" },
      settings: { workspaceIsolation: "none" as const, includeSize: false },
      events: composeMemoryEvents(),
    };
    const lines = [
      { subject: "a", content: "Alice Chen approved the budget." },
      { subject: "b", content: "Bruno Diaz approved the plan." },
    ];
    // A reading no text gives: only a write path that takes the prepared work stores it.
    const marked = (text: { subject: string; content: string }): PreparedText => {
      const prepared = prepareText(text.subject, text.content);
      const mention = { words: "Marked Name", kind: "person" as const, start: 0, end: 1 };
      return { ...prepared, graph: { ...prepared.graph, mentions: [mention] } };
    };
    const preparer = {
      prepare: (texts: readonly { subject: string; content: string }[]) =>
        // The second text is prepared from other words: not used for it.
        Promise.resolve(texts.map((text, i) => i === 0 ? marked(text) : marked(TEXTS[0]))),
    };
    // The first batch prepares its own (the worker starts meanwhile): these lines are the second.
    const filler = Array.from(
      { length: IMPORT_BATCH_MEMORIES },
      (_, i) => ({ subject: "filler", content: `filler fact number ${i}.` }),
    );
    const text = [...filler, ...lines].map((l) => JSON.stringify(l)).join("\n");
    const report = await importUnits(ctx, jsonlUnits(text, "x.jsonl").units, { preparer });
    assert.equal(report.created, IMPORT_BATCH_MEMORIES + 2);
    const names = (await store.entityPage({ offset: 0, limit: 50 })).rows.map((e) => e.name);
    assert.deepEqual(names.sort(), ["Bruno Diaz", "Marked Name"]);
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
