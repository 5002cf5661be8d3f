/**
 * Misspelt query words: a word of the query that no memory holds ("fesetival", "funraiser";
 * as an index token, seven letters or more) is looked up among the library's own index words
 * that share its first two letters and lie within a small edit distance (one edit, two from
 * ten letters on), and the nearest, most widely held of them are searched in its place at a
 * reduced credit. A word the library holds is never touched, so a correctly spelt query costs
 * nothing more; a word with no near neighbour (a name the library does not know) stays
 * unmatched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { spellingVariants } from "./spelling.ts";
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
 * await rememberMemory(ctx, {
 *   content: "The festival starts at noon.",
 *   subject: "festival",
 *   workspace: "events",
 * });
 * const variants = await spellingVariants(store, [{ token: "fesetiv", frequency: 0 }]);
 * assert.deepEqual(variants.get("fesetiv")?.map((v) => v.token), ["festiv"]);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { Store } from "../store/mod.ts";
import type { WeighedTerm } from "./lexical.ts";
import { editDistanceWithin } from "../text/edit_distance.ts";
import {
  SPELLING_MIN_LENGTH,
  SPELLING_PREFIX,
  SPELLING_SCAN_MAX,
  SPELLING_TWO_EDITS_LENGTH,
  SPELLING_VARIANTS_MAX,
  SPELLING_WORDS_MAX,
} from "./constants.ts";

/** Index tokens of plain Latin words: the only ones a slip of the keyboard is looked up for. */
const LATIN_WORD = /^[a-z]+$/;

/**
 * For each query token no memory holds (frequency 0) that reads as a word, the library's
 * tokens it may be a slip for with how many memories hold each, nearest first (then the most
 * widely held).
 */
export async function spellingVariants(
  store: Store,
  tokens: readonly WeighedTerm[],
): Promise<Map<string, WeighedTerm[]>> {
  const out = new Map<string, WeighedTerm[]>();
  const unknown = tokens.filter((term) =>
    term.frequency === 0 && term.token.length >= SPELLING_MIN_LENGTH &&
    LATIN_WORD.test(term.token)
  ).slice(0, SPELLING_WORDS_MAX);
  for (const { token } of unknown) {
    const edits = token.length >= SPELLING_TWO_EDITS_LENGTH ? 2 : 1;
    const vocabulary = await store.vocabularyByPrefix(
      token.slice(0, SPELLING_PREFIX),
      { min: token.length - edits, max: token.length + edits },
      SPELLING_SCAN_MAX,
    );
    const near: { word: string; distance: number; docs: number }[] = [];
    for (const [word, docs] of vocabulary) {
      // A word that begins the token or that it begins is already half a match in the rerank
      // ("entrepreneur" for "entrepreneurial"): not a slip.
      if (word.startsWith(token) || token.startsWith(word)) continue;
      const distance = editDistanceWithin(token, word, edits);
      if (distance <= edits) near.push({ word, distance, docs });
    }
    near.sort((a, b) => a.distance - b.distance || b.docs - a.docs || (a.word < b.word ? -1 : 1));
    const words = near.slice(0, SPELLING_VARIANTS_MAX)
      .map((entry) => ({ token: entry.word, frequency: entry.docs }));
    if (words.length > 0) out.set(token, words);
  }
  return out;
}
