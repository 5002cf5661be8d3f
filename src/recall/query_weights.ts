/**
 * Query-side word weights for a word-level embedding model (the built-in static model): each
 * word of the query is weighed by how rare it is in this library (BM25's IDF over the word
 * index's document frequencies), so the query vector points at what the question is about
 * ("pottery", "Melanie") rather than at the words every turn shares ("think", "really").
 * Stored vectors do not change: only the query's mean is reweighted, so the embedding space
 * stays the same.
 *
 * One store lookup per query (the document frequencies of its words, as the lexical channel
 * reads them), so the cost is bounded whatever the library size.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { queryWords } from "./query_weights.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * for (let day = 1; day <= 9; day++) {
 *   await rememberMemory(ctx, { content: `Rain on day ${day}.`, subject: "rain", workspace: "l" });
 * }
 * await rememberMemory(ctx, { content: "Melanie paints.", subject: "art", workspace: "l" });
 * const words = await queryWords(store, "What does Melanie paint?");
 * const weight = (word: string) => words.find((w) => w.word === word)!.weight;
 * assert.equal(weight("what"), 1); // a function word
 * assert.ok(weight("melanie") > 1.5); // one memory of ten holds it: the question is about her
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { Store } from "../store/mod.ts";
import { termTokens } from "../text/index_terms.ts";
import { bm25Idf } from "./bm25.ts";

/** One word of the query, in order, and the weight its vector gets in the query's mean. */
export interface QueryWord {
  word: string;
  weight: number;
}

// The BERT pre-tokenizer's split (the static model's tokenizer): runs of anything but
// whitespace and punctuation, each punctuation character alone.
const PUNCTUATION = "\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E";
const WORD = new RegExp(`[^\\s${PUNCTUATION}]+`, "gu");

/**
 * The query's words (lower-cased, as the static model's tokenizer reads them) with their
 * weights: `ln(1 + (N − df + 0.5) / (df + 0.5))` for a word the library holds (`df`
 * memories of `N`), 1 for a function word or a word no memory holds (it cannot be rare in
 * a library that lacks it; measured: weighing it as the rarest lowered recall, see
 * `QUERY_IDF_WEIGHTING` in constants.ts). Call inside a store read.
 */
export async function queryWords(store: Store, query: string): Promise<QueryWord[]> {
  const words = query.toLowerCase().match(WORD) ?? [];
  const tokenOf = new Map<string, string | undefined>();
  for (const word of words) {
    if (tokenOf.has(word)) continue;
    const tokens = termTokens(word);
    tokenOf.set(word, tokens.length === 1 ? tokens[0] : undefined);
  }
  const tokens = [...new Set([...tokenOf.values()].filter((t): t is string => t !== undefined))];
  if (tokens.length === 0) return words.map((word) => ({ word, weight: 1 }));
  const frequencies = await store.tokenFrequencies(tokens);
  const total = await store.indexedMemories();
  return words.map((word) => {
    const token = tokenOf.get(word);
    const df = token === undefined ? 0 : frequencies.get(token) ?? 0;
    if (df === 0 || total === 0) return { word, weight: 1 };
    return { word, weight: bm25Idf(df, Math.max(total, df)) };
  });
}
