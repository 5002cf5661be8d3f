/**
 * The rerank: turns candidates into one ordered list using relevance first,
 * then small documented nudges for trust and recency, superseded last.
 *
 * @example
 * ```ts
 * import { rankCandidates } from "./src/recall/rank.ts";
 * // rankCandidates(records, { terms: ["deploy"], text: new Map(), now: Date.now() });
 * ```
 * @module
 */
import type { MemoryRecord } from "../store/mod.ts";
import {
  INSIDE_WORD_MATCH,
  LOCKED_BOOST,
  RANK_WEIGHTS,
  RECENCY_BOOST,
  SUPERSEDED_PENALTY,
  TRUST_BOOST,
} from "./constants.ts";
import { isCjk, textTokens } from "./tokens.ts";

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
  /** Ranked by the relevance of the memory it follows (sequence context). */
  carriedFrom?: number;
  /** It still carries a claim a resolved conflict replaced (src/recall/stale.ts). */
  replacedClaim?: { conflictId: number; currentValue: string; holderIds: number[] };
}

const DAY_MS = 86_400_000;

/** Event time (ingest time when absent) in ms, per record object (see {@linkcode matchTexts}). */
const times = new WeakMap<MemoryRecord, number>();

function timeOf(memory: MemoryRecord): number {
  let at = times.get(memory);
  if (at === undefined) {
    at = Date.parse(memory.eventTime ?? memory.ingestTime);
    times.set(memory, at);
  }
  return at;
}

function recencyBoost(memory: MemoryRecord, now: number): number {
  const at = timeOf(memory);
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
  strength: (term: string) => number,
): number {
  let total = 0;
  let found = 0;
  for (const term of terms) {
    const weight = weights.get(term) ?? 1;
    total += weight;
    found += weight * strength(term);
  }
  return total === 0 ? 0 : found / total;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * How well `text` holds `term`: 1 where a word starts with it (a stem matches its
 * inflections, "paint" in "painting"), {@link INSIDE_WORD_MATCH} when it only occurs
 * inside other words ("art" in "party"), 0 when absent. CJK has no word boundaries, so
 * any occurrence of a CJK term is a full match.
 */
export function matchStrength(text: string, term: string): number {
  let at = text.indexOf(term);
  if (at < 0) return 0;
  if (isCjk(term)) return 1;
  while (at >= 0) {
    if (at === 0 || !WORD_CHAR.test(text[at - 1])) return 1;
    at = text.indexOf(term, at + 1);
  }
  return INSIDE_WORD_MATCH;
}

/** A record's text as the rerank compares it: NFKC, lower case; its tags with their words. */
interface MatchText {
  subject: string;
  content: string;
  tagTokens: Set<string>;
}

/**
 * Per record object: the store hands out the same frozen record while the database is
 * unchanged (src/store/record_cache.ts), so repeated queries skip normalizing its text.
 */
const matchTexts = new WeakMap<MemoryRecord, MatchText>();

function matchText(memory: MemoryRecord): MatchText {
  let text = matchTexts.get(memory);
  if (!text) {
    text = {
      subject: memory.subject.normalize("NFKC").toLowerCase(),
      content: memory.content.normalize("NFKC").toLowerCase(),
      tagTokens: new Set(memory.tags.flatMap((tag) => [tag, ...textTokens(tag)])),
    };
    matchTexts.set(memory, text);
  }
  return text;
}

interface Fields {
  memory: MemoryRecord;
  tagTokens: Set<string>;
  /** The words that matched: the term, or the other form of it that the text holds. */
  matched: string[];
  /** Query terms the memory holds anywhere, with their {@link matchStrength}. */
  strengths: Map<string, number>;
  /** The same for the subject alone. */
  subjectStrengths: Map<string, number>;
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
  options: {
    terms: readonly string[];
    text: ReadonlyMap<number, number>;
    now: number;
    /** Other forms of a term (an irregular verb's past forms) and the credit one earns. */
    forms?: ReadonlyMap<string, readonly string[]>;
    formWeight?: number;
  },
): RankedMemory[] {
  const { terms, now } = options;
  const fields: Fields[] = [];
  const documentFrequency = new Map<string, number>();
  for (const memory of records) {
    const { subject, content, tagTokens } = matchText(memory);
    const strengths = new Map<string, number>();
    const subjectStrengths = new Map<string, number>();
    const matched: string[] = [];
    for (const term of terms) {
      const inSubject = matchStrength(subject, term);
      if (inSubject > 0) subjectStrengths.set(term, inSubject);
      let strength = Math.max(
        inSubject,
        matchStrength(content, term),
        ...memory.tags.map((tag) => matchStrength(tag, term)),
      );
      let word = term;
      for (const form of options.forms?.get(term) ?? []) {
        const credit = (options.formWeight ?? 1) *
          Math.max(matchStrength(subject, form), matchStrength(content, form));
        if (credit > strength) [strength, word] = [credit, form];
      }
      if (strength > 0) {
        strengths.set(term, strength);
        matched.push(word);
      }
    }
    if (strengths.size === 0) continue;
    for (const term of strengths.keys()) {
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
    fields.push({ memory, tagTokens, matched, strengths, subjectStrengths });
  }
  const pool = fields.length;
  const weights = new Map(
    terms.map((term) => [term, Math.log(1 + pool / (documentFrequency.get(term) ?? 1))]),
  );
  const ranked: RankedMemory[] = [];
  for (const { memory, tagTokens, matched, strengths, subjectStrengths } of fields) {
    const coverage = weightedShare(terms, weights, (term) => strengths.get(term) ?? 0);
    const subjectShare = weightedShare(terms, weights, (term) => subjectStrengths.get(term) ?? 0);
    const tagShare = weightedShare(terms, weights, (term) => tagTokens.has(term) ? 1 : 0);
    const text = options.text.get(memory.id) ?? 0;
    const score = RANK_WEIGHTS.text * text + RANK_WEIGHTS.coverage * coverage +
      RANK_WEIGHTS.subject * subjectShare + RANK_WEIGHTS.tags * tagShare +
      priorBoost(memory, now);
    ranked.push({ memory, score, coverage, matchedTerms: matched });
  }
  ranked.sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  return ranked;
}
