/**
 * The rerank: turns candidates into one ordered list using relevance first,
 * then small documented nudges for trust and recency, superseded last.
 *
 * @example
 * ```ts
 * import { rankCandidates } from "./src/recall/rank.ts";
 * // rankCandidates(records, { terms: ["deploy"], bm25: new Map(), now: Date.now() });
 * ```
 * @module
 */
import type { MemoryRecord } from "../store/mod.ts";
import {
  LOCKED_BOOST,
  RANK_WEIGHTS,
  RECENCY_BOOST,
  SUPERSEDED_PENALTY,
  TRUST_BOOST,
} from "./constants.ts";
import { textTokens } from "./tokens.ts";

/** A memory with its score and the parts that made it. */
export interface RankedMemory {
  memory: MemoryRecord;
  score: number;
  coverage: number;
  matchedTerms: string[];
  /** Cosine of the best evidence row, when the vector channel found it. */
  vectorCosine?: number;
  /** Evidence rows the vector channel matched, best first. */
  vectorRowIds?: number[];
}

const DAY_MS = 86_400_000;

function recencyBoost(memory: MemoryRecord, now: number): number {
  const at = Date.parse(memory.eventTime ?? memory.ingestTime);
  const ageDays = (now - at) / DAY_MS;
  for (const step of RECENCY_BOOST) if (ageDays <= step.maxDays) return step.boost;
  return 0;
}

/** Trust, lock and recency nudges, shared by query and browse ordering. */
export function priorBoost(memory: MemoryRecord, now: number): number {
  return TRUST_BOOST[memory.sourceType] +
    (memory.protectionLevel === "locked" ? LOCKED_BOOST : 0) +
    recencyBoost(memory, now) -
    (memory.status === "superseded" ? SUPERSEDED_PENALTY : 0);
}

function weightedShare(
  terms: readonly string[],
  weights: ReadonlyMap<string, number>,
  has: (term: string) => boolean,
): number {
  let total = 0;
  let found = 0;
  for (const term of terms) {
    const weight = weights.get(term) ?? 1;
    total += weight;
    if (has(term)) found += weight;
  }
  return total === 0 ? 0 : found / total;
}

interface Fields {
  memory: MemoryRecord;
  subject: string;
  content: string;
  tagTokens: Set<string>;
  matchedTerms: string[];
}

/**
 * Scores and orders candidates. Memories that contain none of the terms are
 * dropped: an honest short page beats padding with unrelated facts. Terms are
 * weighted by how rare they are in the candidate pool (an IDF estimated on the
 * pool, so no extra query): a name on every candidate counts less than the one
 * word that singles out the fact.
 */
export function rankCandidates(
  records: readonly MemoryRecord[],
  options: { terms: readonly string[]; bm25: ReadonlyMap<number, number>; now: number },
): RankedMemory[] {
  const { terms, bm25, now } = options;
  let best = 0;
  for (const value of bm25.values()) best = Math.max(best, -value);
  const fields: Fields[] = [];
  const documentFrequency = new Map<string, number>();
  for (const memory of records) {
    const subject = memory.subject.normalize("NFKC").toLowerCase();
    const content = memory.content.normalize("NFKC").toLowerCase();
    const tagTokens = new Set(memory.tags.flatMap((tag) => [tag, ...textTokens(tag)]));
    const matchedTerms = terms.filter((term) =>
      subject.includes(term) || content.includes(term) ||
      memory.tags.some((tag) => tag.includes(term))
    );
    if (matchedTerms.length === 0) continue;
    for (const term of matchedTerms) {
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
    fields.push({ memory, subject, content, tagTokens, matchedTerms });
  }
  const pool = fields.length;
  const weights = new Map(
    terms.map((term) => [term, Math.log(1 + pool / (documentFrequency.get(term) ?? 1))]),
  );
  const ranked: RankedMemory[] = [];
  for (const { memory, subject, tagTokens, matchedTerms } of fields) {
    const matched = new Set(matchedTerms);
    const coverage = weightedShare(terms, weights, (term) => matched.has(term));
    const subjectShare = weightedShare(terms, weights, (term) => subject.includes(term));
    const tagShare = weightedShare(terms, weights, (term) => tagTokens.has(term));
    const raw = bm25.get(memory.id);
    const text = raw === undefined || best === 0 ? 0 : -raw / best;
    const score = RANK_WEIGHTS.text * text + RANK_WEIGHTS.coverage * coverage +
      RANK_WEIGHTS.subject * subjectShare + RANK_WEIGHTS.tags * tagShare +
      priorBoost(memory, now);
    ranked.push({ memory, score, coverage, matchedTerms });
  }
  ranked.sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  return ranked;
}
