/**
 * Hybrid recall after random writes from two processes: with the built-in static model, every
 * few writes the pending rows are embedded and a random query is asked of both long-lived
 * processes (whose record, word and vector caches followed every write) and of a process that
 * opens the file fresh. All three must answer the same ranking, scores and cosines included,
 * and the answers must really use the vectors.
 */
import assert from "node:assert/strict";
import { SemanticIndex } from "../../src/evidence/semantic.ts";
import { purgeMemories } from "../../src/govern/purge.ts";
import { retireMemory } from "../../src/govern/lifecycle.ts";
import type { ServiceContext } from "../../src/core/context.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { openStore } from "../../src/store/mod.ts";
import { findPage } from "../../src/views/recall_page.ts";
import { openStaticModelContext } from "../helpers/context.ts";
import { seededRandom } from "../helpers/random.ts";

const WORDS = (
  "violin recital harbour ferry kitchen garden tomatoes deploy staging database port " +
  "weekend hiking mountain lake painting sunset pottery clay marathon running coffee " +
  "morning train station budget invoice meeting doctor appointment birthday cake"
).split(" ");

/** A process of its own on the same file: its store and its semantic index. */
async function openProcess(dbPath: string, dir: string, base: ServiceContext) {
  const store = await openStore(dbPath, { cacheDir: `${dir}/cache` });
  const semantic = new SemanticIndex(store, {
    modelId: "static-wink-100d",
    modelsDir: `${dir}/models`,
  });
  const ctx: ServiceContext = { ...base, store, semantic };
  const close = async () => {
    await semantic.unload();
    store.close();
  };
  return { ctx, semantic, close };
}

/** The page as a comparable list: id, score, cosine, rank by rank. */
async function ranking(ctx: ServiceContext, query: string): Promise<string[]> {
  const { page } = await findPage(ctx, { query, limit: 60 });
  return page.items.map((item) =>
    `${item.memory.id}:${item.score.toFixed(9)}:${item.vectorCosine?.toFixed(6) ?? "-"}`
  );
}

Deno.test("hybrid find ranks the same from long-lived processes as from a fresh one, after random writes", async () => {
  const t = await openStaticModelContext();
  const other = await openProcess(t.dbPath, t.dir, t.ctx);
  const random = seededRandom(20261204);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const text = () =>
    Array.from({ length: 3 + Math.floor(random() * 6) }, () => pick(WORDS)).join(" ");
  // One to twenty sentences: a long memory is embedded as several chunks, so the library
  // soon holds more vectors than the nearest rows a query reads (100).
  const content = (step: number) =>
    `${Array.from({ length: 1 + Math.floor(random() * 20) }, text).join(". ")} ${step}`;
  const live: number[] = [];
  let compared = 0;
  let byMeaning = 0;
  let vectors = 0;
  try {
    for (let step = 0; step < 240; step++) {
      const writer = random() < 0.7 ? t.ctx : other.ctx;
      const roll = random();
      if (roll < 0.6 || live.length < 4) {
        const { memoryId } = await rememberMemory(writer, {
          subject: "notes",
          content: content(step),
          workspace: "home",
        });
        live.push(memoryId);
      } else if (roll < 0.8) {
        await updateMemory(writer, {
          memoryId: pick(live),
          edit: { kind: "new_content", content: content(step) },
          reason: "reworded",
          authorized: true,
        });
      } else if (roll < 0.9) {
        const id = live.splice(Math.floor(random() * live.length), 1)[0];
        await purgeMemories(writer, { memoryId: id, reason: "test purge", authorized: true });
      } else {
        const id = live.splice(Math.floor(random() * live.length), 1)[0];
        await retireMemory(writer, { memoryId: id, reason: "no longer true", authorized: true });
      }
      if (step % 8 !== 7) continue;
      // Either process embeds what is pending; both then count the index again at once
      // (a count is otherwise kept for a while, by design, and would answer lexically).
      await (random() < 0.5 ? t.semantic : other.semantic).embedPendingRows();
      t.semantic.invalidate();
      other.semantic.invalidate();
      const query = `${pick(WORDS)} ${pick(WORDS)}`;
      const fresh = await openProcess(t.dbPath, t.dir, t.ctx);
      try {
        const expected = await ranking(fresh.ctx, query);
        assert.deepEqual(await ranking(t.ctx, query), expected, `step ${step}: "${query}"`);
        assert.deepEqual(
          await ranking(other.ctx, query),
          expected,
          `step ${step}: "${query}", other process`,
        );
        compared++;
        vectors = Math.max(vectors, (await fresh.ctx.store.vectorMirrorSize()).vectors);
        if (expected.some((entry) => !entry.endsWith(":-"))) byMeaning++;
      } finally {
        await fresh.close();
      }
    }
    assert.equal(compared, 30);
    assert.ok(vectors > 150, `the library reached ${vectors} vectors`);
    assert.ok(byMeaning >= 25, `${byMeaning} of ${compared} pages used the vectors`);
  } finally {
    await other.close();
    await t.semantic.unload();
    t.cleanup();
  }
});
