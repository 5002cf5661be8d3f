/**
 * Topic clusters of short texts by their words (issue 39, `memory_review` view `clusters`):
 * spherical k-means over tf-idf word weights, labelled with each cluster's most telling words
 * in the texts' own spelling.
 *
 * The algorithm, in full: each text becomes its words (lower-cased, stopwords, numbers and
 * one- or two-letter words left out; inflections folded by the recall stemmer, so "deploys"
 * and "deploying" are one word, shown as the form the texts use most). A word held by fewer
 * than two texts, or by more than half of them, tells no topic apart and is dropped. A text's
 * vector weighs each word `(1 + ln tf) × ln(N / df)`, normalised to length 1. k-means++ picks k
 * starting texts with a fixed-seed generator (the same texts in the same order always give the
 * same clusters), then at most {@linkcode KMEANS_ROUNDS} rounds assign each text to the centroid
 * of highest cosine and move the centroids, until fewer than 1 text in 200 changes topic. A cluster's label is the words whose centroid weight
 * most exceeds their mean weight in the other clusters; its samples are the texts nearest its
 * centroid.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { topicClusters } from "./topic_clusters.ts";
 *
 * const texts = [
 *   "Deploys run on Fridays from the staging branch",
 *   "Staging deploys need a green pipeline",
 *   "The staging deploy waits for review",
 *   "Lunch is pizza on Fridays in the office kitchen",
 *   "The office kitchen has pizza and coffee",
 *   "Coffee in the office kitchen is free",
 * ].map((text, index) => ({ id: index + 1, text }));
 * const clusters = topicClusters(texts, 2);
 * assert.equal(clusters.clusters.length, 2);
 * const deploy = clusters.clusters.find((c) => c.ids.includes(1))!;
 * assert.deepEqual([...deploy.ids].sort(), [1, 2, 3]);
 * assert.ok(deploy.words.includes("staging"));
 * ```
 * @module
 */
import { stemTerm } from "../recall/stem.ts";
import { isCjk, isStopword, textTokens } from "../text/words.ts";

/** Most assign-and-move rounds; the assignment is usually stable after 5–10. */
export const KMEANS_ROUNDS = 20;
/** Rounds stop once at most 1/this of the texts moved. */
const STABLE_SHARE = 200;
/** The k-means++ generator's fixed seed: the same input gives the same clusters. */
const SEED = 0x5eed39;
/** Label words per cluster. */
export const LABEL_WORDS = 4;
/** Texts nearest the centroid given per cluster. */
export const SAMPLE_IDS = 3;

/** One text to cluster. */
export interface ClusterText {
  id: number;
  text: string;
}

/** One topic. */
export interface TopicCluster {
  /** The most telling words, best first, as the texts spell them. */
  words: string[];
  /** The ids of every text in it, nearest the centroid first. */
  ids: number[];
}

/** The topics of a set of texts. */
export interface TopicClusters {
  /** Largest first (ties: the one holding the smallest id first). */
  clusters: TopicCluster[];
  /** Texts without a word that tells topics apart (they join no cluster). */
  unclustered: number[];
}

interface Vector {
  terms: Int32Array;
  weights: Float64Array;
}

/**
 * Clusters `texts` into at most `k` topics (fewer when there are fewer distinct texts). With
 * `dense` (one embedding per text, in order: a configured model's), the topics are found on
 * those vectors and only labelled by the words.
 */
export function topicClusters(
  texts: readonly ClusterText[],
  k: number,
  options: { dense?: readonly Float32Array[] } = {},
): TopicClusters {
  const { vectors: wordVectors, vocabulary, owners, unclustered, kept } = vectorize(texts);
  const n = wordVectors.length;
  const clusterCount = Math.min(k, n);
  if (clusterCount === 0) return { clusters: [], unclustered };
  const dims = vocabulary.length;
  const denseVectors = options.dense ? centred(kept.map((at) => options.dense![at])) : undefined;
  // The space the topics are found in: the model's vectors when given, else the words'.
  const vectors = denseVectors ?? wordVectors;
  const space = denseVectors ? options.dense![0].length : dims;
  let centroids = seedCentroids(vectors, clusterCount, space);
  const assignment = new Int32Array(n).fill(-1);
  const similarity = new Float64Array(n);
  for (let round = 0; round < KMEANS_ROUNDS; round++) {
    let moved = 0;
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestSimilarity = -1;
      for (let c = 0; c < centroids.length; c++) {
        const s = dot(vectors[i], centroids[c]);
        if (s > bestSimilarity) {
          bestSimilarity = s;
          best = c;
        }
      }
      if (assignment[i] !== best) moved++;
      assignment[i] = best;
      similarity[i] = bestSimilarity;
    }
    centroids = moveCentroids(vectors, assignment, centroids, similarity);
    // Settled: fewer than 1 text in 200 changed topic (the last few flip between near-equal
    // topics and do not change what the topics are).
    if (moved <= n / STABLE_SHARE) break;
  }
  const members: number[][] = centroids.map(() => []);
  for (let i = 0; i < n; i++) members[assignment[i]].push(i);
  // Labels always come from the words: the members' mean word weights.
  const wordCentroids = denseVectors
    ? moveCentroids(
      wordVectors,
      assignment,
      centroids.map(() => new Float64Array(dims)),
      similarity,
    )
    : centroids;
  const clusters: TopicCluster[] = [];
  for (let c = 0; c < centroids.length; c++) {
    if (members[c].length === 0) continue;
    const closeness = new Map(members[c].map((i) => [i, dot(vectors[i], centroids[c])]));
    const nearest = [...members[c]].sort((a, b) =>
      closeness.get(b)! - closeness.get(a)! || owners[a] - owners[b]
    );
    clusters.push({
      words: labelWords(c, wordCentroids, dims).map((term) => vocabulary[term]),
      ids: nearest.map((i) => owners[i]),
    });
  }
  clusters.sort((a, b) => b.ids.length - a.ids.length || Math.min(...a.ids) - Math.min(...b.ids));
  return { clusters, unclustered };
}

/** Words of a text that may tell a topic: no stopwords, numbers or one- or two-letter words. */
function topicWords(text: string): string[] {
  return textTokens(text).filter((token) =>
    !isStopword(token) && !/^[\p{N}]+$/u.test(token) &&
    (isCjk(token) || [...token].length >= 3)
  );
}

function vectorize(texts: readonly ClusterText[]) {
  // Stems interned as numbers as they come; each spelling counted once per occurrence, so the
  // label can show the commonest (no string built per word: at 3,000 texts this pass was most
  // of the time).
  const stemIds = new Map<string, number>();
  const stemOfWord = new Map<string, number>();
  const spellingCount = new Map<string, number>();
  const documentFrequency: number[] = [];
  const perText: Int32Array[] = texts.map(({ text }) => {
    const ids: number[] = [];
    for (const word of topicWords(text)) {
      let id = stemOfWord.get(word);
      if (id === undefined) {
        const stem = stemTerm(word);
        id = stemIds.get(stem);
        if (id === undefined) {
          id = stemIds.size;
          stemIds.set(stem, id);
          documentFrequency.push(0);
        }
        stemOfWord.set(word, id);
      }
      spellingCount.set(word, (spellingCount.get(word) ?? 0) + 1);
      ids.push(id);
    }
    const distinct = Int32Array.from(new Set(ids));
    for (const id of distinct) documentFrequency[id]++;
    return Int32Array.from(ids);
  });
  const spelling: (string | undefined)[] = [];
  for (const [word, id] of stemOfWord) {
    const best = spelling[id];
    const count = spellingCount.get(word)!;
    const bestCount = best === undefined ? -1 : spellingCount.get(best)!;
    if (count > bestCount || (count === bestCount && word < best!)) spelling[id] = word;
  }
  const total = texts.length;
  // Kept stems in the order of their names, so the same texts always give the same vectors.
  const kept = [...stemIds].filter(([, id]) => {
    const df = documentFrequency[id];
    return df >= 2 && df <= total / 2;
  }).sort(([a], [b]) => (a < b ? -1 : 1));
  const termOf = new Int32Array(stemIds.size).fill(-1);
  const vocabulary: string[] = [];
  const idf: number[] = [];
  for (const [, id] of kept) {
    termOf[id] = vocabulary.length;
    vocabulary.push(spelling[id]!);
    idf.push(Math.log(total / documentFrequency[id]));
  }
  const vectors: Vector[] = [];
  const owners: number[] = [];
  const unclustered: number[] = [];
  // Which text each vector is (texts without a telling word have none).
  const keptTexts: number[] = [];
  perText.forEach((ids, at) => {
    const counts = new Map<number, number>();
    for (const id of ids) {
      const term = termOf[id];
      if (term >= 0) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    if (counts.size === 0) {
      unclustered.push(texts[at].id);
      return;
    }
    const terms = Int32Array.from([...counts.keys()].sort((a, b) => a - b));
    const weights = new Float64Array(terms.length);
    let norm = 0;
    for (let i = 0; i < terms.length; i++) {
      weights[i] = (1 + Math.log(counts.get(terms[i])!)) * idf[terms[i]];
      norm += weights[i] * weights[i];
    }
    norm = Math.sqrt(norm);
    for (let i = 0; i < weights.length; i++) weights[i] /= norm;
    vectors.push({ terms, weights });
    owners.push(texts[at].id);
    keptTexts.push(at);
  });
  return { vectors, vocabulary, owners, unclustered, kept: keptTexts };
}

/**
 * Dense embeddings with their mean taken out, normalised: averaged word vectors share one large
 * direction (every text "is English"), which would otherwise make every cosine high and the
 * topics arbitrary.
 */
function centred(values: readonly Float32Array[]): Vector[] {
  const dims = values[0].length;
  const mean = new Float64Array(dims);
  for (const vector of values) for (let i = 0; i < dims; i++) mean[i] += vector[i] / values.length;
  return values.map((vector) => denseVector(Float64Array.from(vector, (v, i) => v - mean[i])));
}

/** A dense embedding as a (normalised) vector over its dimensions. */
function denseVector(weights: Float64Array): Vector {
  let norm = 0;
  for (const w of weights) norm += w * w;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < weights.length; i++) weights[i] /= norm;
  return { terms: Int32Array.from(weights, (_, i) => i), weights };
}

function dot(vector: Vector, centroid: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < vector.terms.length; i++) {
    sum += vector.weights[i] * centroid[vector.terms[i]];
  }
  return sum;
}

function dense(vector: Vector, dims: number): Float64Array {
  const out = new Float64Array(dims);
  for (let i = 0; i < vector.terms.length; i++) out[vector.terms[i]] = vector.weights[i];
  return out;
}

/** A small fixed-seed generator (mulberry32): deterministic k-means++ picks. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** k-means++: each next start is drawn with weight (1 − best cosine to the chosen)². */
function seedCentroids(vectors: readonly Vector[], k: number, dims: number): Float64Array[] {
  const random = generator(SEED);
  const centroids = [dense(vectors[Math.floor(random() * vectors.length)], dims)];
  const distance = vectors.map((v) => (1 - dot(v, centroids[0])) ** 2);
  while (centroids.length < k) {
    const sum = distance.reduce((a, b) => a + b, 0);
    if (sum <= 1e-12) break; // every text sits on a chosen start: fewer topics than k
    let pick = random() * sum;
    let chosen = 0;
    for (; chosen < vectors.length - 1; chosen++) {
      pick -= distance[chosen];
      if (pick <= 0) break;
    }
    const centroid = dense(vectors[chosen], dims);
    centroids.push(centroid);
    vectors.forEach((v, i) => distance[i] = Math.min(distance[i], (1 - dot(v, centroid)) ** 2));
  }
  return centroids;
}

/** Each centroid moves to its members' normalised mean; an empty one takes the worst-fit text. */
function moveCentroids(
  vectors: readonly Vector[],
  assignment: Int32Array,
  previous: readonly Float64Array[],
  similarity: Float64Array,
): Float64Array[] {
  const dims = previous[0].length;
  const sums = previous.map(() => new Float64Array(dims));
  const sizes = new Int32Array(previous.length);
  vectors.forEach((vector, i) => {
    const sum = sums[assignment[i]];
    sizes[assignment[i]]++;
    for (let t = 0; t < vector.terms.length; t++) sum[vector.terms[t]] += vector.weights[t];
  });
  const taken = new Set<number>();
  return sums.map((sum, c) => {
    if (sizes[c] === 0) {
      let worst = -1;
      for (let i = 0; i < vectors.length; i++) {
        if (!taken.has(i) && (worst < 0 || similarity[i] < similarity[worst])) worst = i;
      }
      if (worst < 0) return previous[c];
      taken.add(worst);
      return dense(vectors[worst], dims);
    }
    let norm = 0;
    for (const value of sum) norm += value * value;
    norm = Math.sqrt(norm) || 1;
    for (let t = 0; t < dims; t++) sum[t] /= norm;
    return sum;
  });
}

/** The terms whose weight in centroid `c` most exceeds their mean weight in the others. */
function labelWords(c: number, centroids: readonly Float64Array[], dims: number): number[] {
  const others = centroids.length - 1;
  const scored: { term: number; score: number }[] = [];
  for (let t = 0; t < dims; t++) {
    const own = centroids[c][t];
    if (own <= 0) continue;
    let rest = 0;
    for (let o = 0; o < centroids.length; o++) if (o !== c) rest += centroids[o][t];
    scored.push({ term: t, score: own - (others > 0 ? rest / others : 0) });
  }
  scored.sort((a, b) => b.score - a.score || a.term - b.term);
  return scored.slice(0, LABEL_WORDS).map((s) => s.term);
}
