/**
 * Turns raw GloVe-style word vectors into rows that make a plain mean a good sentence
 * vector, so the static model keeps its runtime recipe (one `Gather`, then transformers.js
 * mean-pools and normalizes) and still encodes sentences the SIF way (Arora et al. 2017,
 * "A simple but tough-to-beat baseline for sentence embeddings"; Mu & Viswanath 2018,
 * "All-but-the-top").
 *
 * Both steps are linear in the rows, which is why they can be baked into the table: the
 * model's mean of `n` scaled rows is the weighted sum divided by `n`, and `n` cancels in
 * the normalization.
 * 1. Centring and component removal: every row loses the vocabulary's mean vector and its
 *    projection on the top principal components, the directions all words share (mostly
 *    frequency) that make any two sentences look alike.
 * 2. Frequency weighting: each row is scaled by `a / (a + p(word))`, where `p` is the
 *    word's Zipf probability from its frequency rank (the package lists words most
 *    frequent first), so "the" and "was" fade and topic words carry the mean.
 *
 * Same input, same bytes: the arithmetic is sequential float64 with a fixed start vector.
 *
 * @example
 * ```ts
 * import { weightWordVectors } from "./src/models/static_weighting.ts";
 * const rows = weightWordVectors(
 *   { dim: 2, size: 3, ranks: Uint32Array.of(1, 2, 3), vectors: Float32Array.of(1, 0, 0, 1, 1, 1) },
 *   { sifA: 1e-3, removedComponents: 0 },
 * );
 * rows.length; // 6
 * ```
 * @module
 */

/** The word table to transform; {@link WinkVectors} from `wink_vectors.ts` fits. */
export interface WordVectorTable {
  /** Values per vector. */
  dim: number;
  /** Words in the whole frequency list the ranks refer to (the Zipf normalizer). */
  size: number;
  /** 1-based frequency rank of each row's word. */
  ranks: Uint32Array;
  /** `ranks.length × dim` values, row-major. */
  vectors: Float32Array;
  /** EXPERIMENT */
  words?: string[];
}

/** How {@link weightWordVectors} transforms the rows. */
export interface StaticWeighting {
  /** The SIF constant `a`; 0 leaves the rows unscaled. */
  sifA: number;
  /**
   * Top principal components of the centred rows to project out. 0 keeps the rows as
   * they are (no centring either); 1 or more also subtracts the mean vector first.
   */
  removedComponents: number;
  /** EXPERIMENT: subtract the mean even with no components removed. */
  center?: boolean;
  /** EXPERIMENT: remove the token-frequency-weighted mean of the weighted rows. */
  commonComponent?: "project" | "subtract";
  /** EXPERIMENT: weight of stopwords */
  stopwordWeight?: number;
  /** EXPERIMENT: weight of punctuation */
  punctuationWeight?: number;
  /** EXPERIMENT: scale every row to unit length first. */
  unitRows?: boolean;
}

const POWER_ITERATIONS = 200;

/**
 * Returns the transformed rows (a new array; the input is left alone).
 *
 * @example
 * ```ts
 * import { weightWordVectors } from "./src/models/static_weighting.ts";
 * const table = {
 *   dim: 2,
 *   size: 1000,
 *   ranks: Uint32Array.of(1, 500),
 *   vectors: Float32Array.of(1, 1, 1, 1),
 * };
 * const rows = weightWordVectors(table, { sifA: 1e-3, removedComponents: 0 });
 * rows[0] < rows[2]; // true: the most frequent word is scaled down most
 * ```
 */
export function weightWordVectors(
  table: WordVectorTable,
  weighting: StaticWeighting,
): Float32Array {
  const { dim, ranks } = table;
  const rows = ranks.length;
  if (table.vectors.length !== rows * dim) {
    throw new RangeError(`${table.vectors.length} values do not make ${rows} rows of ${dim}`);
  }
  if (!(weighting.sifA >= 0)) throw new RangeError(`sifA must be >= 0, got ${weighting.sifA}`);
  const components = weighting.removedComponents;
  if (!Number.isInteger(components) || components < 0 || components >= dim) {
    throw new RangeError(`removedComponents must be an integer in [0, ${dim}), got ${components}`);
  }
  const values = Float64Array.from(table.vectors);
  if (weighting.unitRows) {
    for (let row = 0; row < rows; row++) {
      let sum = 0;
      for (let k = 0; k < dim; k++) sum += values[row * dim + k] ** 2;
      const norm = Math.sqrt(sum) || 1;
      for (let k = 0; k < dim; k++) values[row * dim + k] /= norm;
    }
  }
  if ((components > 0 || weighting.center) && rows > 0) {
    subtractMean(values, rows, dim);
    for (const direction of principalComponents(values, rows, dim, components)) {
      projectOut(values, rows, dim, direction);
    }
  }
  if (weighting.sifA > 0) {
    const normalizer = harmonicNumber(
      ranks.reduce((most, rank) => Math.max(most, rank), table.size),
    );
    for (let row = 0; row < rows; row++) {
      const probability = 1 / (ranks[row] * normalizer);
      const weight = weighting.sifA / (weighting.sifA + probability);
      for (let k = 0; k < dim; k++) values[row * dim + k] *= weight;
    }
  }
  if (weighting.commonComponent && rows > 0) {
    const normalizer = harmonicNumber(
      ranks.reduce((most, rank) => Math.max(most, rank), table.size),
    );
    const mean = new Float64Array(dim);
    let total = 0;
    for (let row = 0; row < rows; row++) {
      const probability = 1 / (ranks[row] * normalizer);
      total += probability;
      for (let k = 0; k < dim; k++) mean[k] += probability * values[row * dim + k];
    }
    for (let k = 0; k < dim; k++) mean[k] /= total;
    if (weighting.commonComponent === "subtract") {
      for (let row = 0; row < rows; row++) {
        for (let k = 0; k < dim; k++) values[row * dim + k] -= mean[k];
      }
    } else {
      const norm = Math.sqrt(mean.reduce((sum, x) => sum + x * x, 0));
      for (let k = 0; k < dim; k++) mean[k] /= norm;
      projectOut(values, rows, dim, mean);
    }
  }
  if (
    table.words &&
    (weighting.stopwordWeight !== undefined || weighting.punctuationWeight !== undefined)
  ) {
    for (let row = 0; row < rows; row++) {
      const word = table.words[row];
      let weight = 1;
      if (weighting.stopwordWeight !== undefined && STOPWORDS.has(word)) {
        weight = weighting.stopwordWeight;
      }
      if (weighting.punctuationWeight !== undefined && /^[\p{P}\p{S}]$/u.test(word)) {
        weight = weighting.punctuationWeight;
      }
      for (let k = 0; k < dim; k++) values[row * dim + k] *= weight;
    }
  }
  return Float32Array.from(values);
}

const STOPWORDS = new Set(
  ("i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn")
    .split(" "),
);

/**
 * The Zipf probability of the word at `rank` in a list of `size` words, `1 / (rank · H)`
 * with `H` the size-th harmonic number.
 *
 * @example
 * ```ts
 * import { zipfProbability } from "./src/models/static_weighting.ts";
 * zipfProbability(1, 341_479); // ≈ 0.076, the share of "the" in English text
 * ```
 */
export function zipfProbability(rank: number, size: number): number {
  return 1 / (rank * harmonicNumber(size));
}

function harmonicNumber(size: number): number {
  let sum = 0;
  for (let k = size; k >= 1; k--) sum += 1 / k;
  return sum;
}

function subtractMean(values: Float64Array, rows: number, dim: number): void {
  const mean = new Float64Array(dim);
  for (let row = 0; row < rows; row++) {
    for (let k = 0; k < dim; k++) mean[k] += values[row * dim + k];
  }
  for (let k = 0; k < dim; k++) mean[k] /= rows;
  for (let row = 0; row < rows; row++) {
    for (let k = 0; k < dim; k++) values[row * dim + k] -= mean[k];
  }
}

/** The top `count` eigenvectors of the rows' scatter matrix, by power iteration. */
function principalComponents(
  values: Float64Array,
  rows: number,
  dim: number,
  count: number,
): Float64Array[] {
  const scatter = new Float64Array(dim * dim);
  for (let row = 0; row < rows; row++) {
    const offset = row * dim;
    for (let i = 0; i < dim; i++) {
      const vi = values[offset + i];
      for (let j = i; j < dim; j++) scatter[i * dim + j] += vi * values[offset + j];
    }
  }
  for (let i = 0; i < dim; i++) {
    for (let j = 0; j < i; j++) scatter[i * dim + j] = scatter[j * dim + i];
  }
  const found: Float64Array[] = [];
  for (let c = 0; c < count; c++) {
    // A fixed, non-symmetric start keeps the result reproducible and off any eigenvector's
    // orthogonal complement in practice.
    let vector = Float64Array.from({ length: dim }, (_, k) => 1 + k / dim);
    for (const previous of found) removeProjection(vector, previous);
    for (let step = 0; step < POWER_ITERATIONS; step++) {
      const next = new Float64Array(dim);
      for (let i = 0; i < dim; i++) {
        let sum = 0;
        for (let j = 0; j < dim; j++) sum += scatter[i * dim + j] * vector[j];
        next[i] = sum;
      }
      for (const previous of found) removeProjection(next, previous);
      const norm = Math.sqrt(next.reduce((total, x) => total + x * x, 0));
      if (norm === 0) break;
      for (let i = 0; i < dim; i++) next[i] /= norm;
      vector = next;
    }
    found.push(vector);
  }
  return found;
}

function removeProjection(vector: Float64Array, unit: Float64Array): void {
  let dot = 0;
  for (let k = 0; k < vector.length; k++) dot += vector[k] * unit[k];
  for (let k = 0; k < vector.length; k++) vector[k] -= dot * unit[k];
}

function projectOut(values: Float64Array, rows: number, dim: number, unit: Float64Array): void {
  for (let row = 0; row < rows; row++) {
    const offset = row * dim;
    let dot = 0;
    for (let k = 0; k < dim; k++) dot += values[offset + k] * unit[k];
    for (let k = 0; k < dim; k++) values[offset + k] -= dot * unit[k];
  }
}
