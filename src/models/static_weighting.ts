/**
 * Turns raw GloVe-style word vectors into rows whose plain mean is a good sentence vector,
 * so the static model keeps its runtime recipe (one `Gather`, then transformers.js
 * mean-pools and normalizes) and still encodes sentences the SIF way (Arora et al. 2017,
 * "A simple but tough-to-beat baseline for sentence embeddings").
 *
 * Scaling a row by `w` is exact at run time: the model's mean of `n` rows is the weighted
 * sum divided by `n`, and `n` cancels in the normalization.
 * - Frequency weighting: each row is scaled by `a / (a + p(word))`, where `p` is the word's
 *   Zipf probability from its frequency rank (the package lists words most frequent first),
 *   so the most frequent words fade and topic words carry the mean.
 * - Dropped words (function words, punctuation) get a zero row, like `[UNK]`: without them,
 *   "What did she say?" and "She said what?" share most of their vector with every other
 *   question, whatever its topic.
 *
 * Same input, same bytes: the arithmetic is sequential float64, rounded once to float32.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { weightWordVectors } from "./static_weighting.ts";
 *
 * const rows = weightWordVectors(
 *   {
 *     dim: 1,
 *     size: 1000,
 *     words: ["the", "car"],
 *     ranks: Uint32Array.of(1, 900),
 *     vectors: Float32Array.of(1, 1),
 *   },
 *   { sifA: 2e-3, droppedWords: new Set(["the"]) },
 * );
 * assert.equal(rows[0], 0); // a dropped word weighs nothing
 * assert.ok(rows[1] > 0.9 && rows[1] < 1);
 * ```
 * @module
 */

/** The word table to transform; `WinkVectors` from `wink_vectors.ts` fits. */
export interface WordVectorTable {
  /** Values per vector. */
  dim: number;
  /** Words in the whole frequency list the ranks refer to (the Zipf normalizer). */
  size: number;
  /** The row's words. */
  words: readonly string[];
  /** 1-based frequency rank of each row's word. */
  ranks: Uint32Array;
  /** `words.length × dim` values, row-major. */
  vectors: Float32Array;
}

/** How {@link weightWordVectors} scales the rows. */
export interface StaticWeighting {
  /** The SIF constant `a`; 0 leaves the rows unscaled. */
  sifA: number;
  /** Words whose rows become zero. */
  droppedWords: ReadonlySet<string>;
}

/**
 * English function words: NLTK's English stopword list (179 entries) without its 26
 * apostrophe forms ("don't", "you're"), 153 words. The BERT pre-tokenizer splits those
 * forms anyway and the list already holds the pieces ("don", "t", "re", "ll"). Pronouns are
 * in it, so "she" and "my" stop pulling every sentence towards each other.
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his " +
    "himself she her hers herself it its itself they them their theirs themselves what which " +
    "who whom this that these those am is are was were be been being have has had having do " +
    "does did doing a an the and but if or because as until while of at by for with about " +
    "against between into through during before after above below to from up down in out on " +
    "off over under again further then once here there when where why how all any both each " +
    "few more most other some such no nor not only own same so than too very s t can will " +
    "just don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma " +
    "mightn mustn needn shan shouldn wasn weren won wouldn"
  ).split(" "),
);

/**
 * Returns the scaled rows (a new array; the input is left alone). Throws a RangeError when
 * the table's arrays disagree or `sifA` is negative.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { weightWordVectors } from "./static_weighting.ts";
 *
 * const table = {
 *   dim: 2,
 *   size: 1000,
 *   words: ["of", "engine"],
 *   ranks: Uint32Array.of(4, 500),
 *   vectors: Float32Array.of(1, 1, 1, 1),
 * };
 * const rows = weightWordVectors(table, { sifA: 2e-3, droppedWords: new Set() });
 * assert.ok(rows[0] < rows[2]); // the more frequent word is scaled down more
 * ```
 */
export function weightWordVectors(
  table: WordVectorTable,
  weighting: StaticWeighting,
): Float32Array {
  const { dim, ranks, words } = table;
  const rows = words.length;
  if (ranks.length !== rows || table.vectors.length !== rows * dim) {
    throw new RangeError(
      `${rows} words, ${ranks.length} ranks and ${table.vectors.length} values do not make ` +
        `one table of ${dim}-value rows`,
    );
  }
  if (!(weighting.sifA >= 0)) throw new RangeError(`sifA must be >= 0, got ${weighting.sifA}`);
  let largestRank = table.size;
  for (const rank of ranks) {
    if (rank < 1) throw new RangeError(`ranks are 1-based, got ${rank}`);
    largestRank = Math.max(largestRank, rank);
  }
  const normalizer = harmonicNumber(largestRank);
  const out = new Float32Array(rows * dim);
  for (let row = 0; row < rows; row++) {
    if (weighting.droppedWords.has(words[row])) continue;
    const weight = weighting.sifA > 0
      ? weighting.sifA / (weighting.sifA + 1 / (ranks[row] * normalizer))
      : 1;
    for (let k = 0; k < dim; k++) out[row * dim + k] = table.vectors[row * dim + k] * weight;
  }
  return out;
}

/**
 * The Zipf probability of the word at `rank` in a list of `size` words, `1 / (rank · H)`
 * with `H` the size-th harmonic number; {@link weightWordVectors} uses it as `p(word)`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { zipfProbability } from "./static_weighting.ts";
 *
 * // ≈ 0.075, close to the share of "the" in English text
 * assert.ok(Math.abs(zipfProbability(1, 341_479) - 0.075) < 0.005);
 * ```
 */
export function zipfProbability(rank: number, size: number): number {
  return 1 / (rank * harmonicNumber(size));
}

function harmonicNumber(size: number): number {
  // Smallest terms first, so the float64 sum loses as little as it can.
  let sum = 0;
  for (let k = size; k >= 1; k--) sum += 1 / k;
  return sum;
}
