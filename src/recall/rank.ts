/**
 * The rerank: turns candidates into one ordered list using relevance first,
 * then small documented nudges for trust and recency, superseded last.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { rankCandidates } from "./rank.ts";
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
 * const { memoryId } = await rememberMemory(ctx, {
 *   content: "Deploys run on Fridays.",
 *   subject: "deploy day",
 *   workspace: "infra",
 * });
 * const record = (await store.getMemory(memoryId))!;
 * const ranked = rankCandidates([record], { terms: ["deploy"], text: new Map(), now: Date.now() });
 * assert.equal(ranked[0].memory.id, memoryId);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
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
import { isCjk, textTokens } from "./query_terms.ts";

/** Another form a query term is searched in, and the share of a match of the term it earns. */
export interface TermForm {
  form: string;
  weight: number;
}

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
  /**
   * An as-of answer shows an earlier version (src/recall/as_of.ts): `memory` holds that
   * version's text and window; this is the memory's version now.
   */
  currentVersion?: number;
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
    if (at === 0 || !wordCharAt(text, at - 1)) return 1;
    at = text.indexOf(term, at + 1);
  }
  return INSIDE_WORD_MATCH;
}

/**
 * The whole word of `text` that `form` begins (its first occurrence at a word start), or
 * `form` itself when none does: what `matched_terms` names for a term found in another form
 * (a misspelt word's stand-in is an index token, "festiv" for "festival").
 */
function wordBegunBy(text: string, form: string): string | undefined {
  let at = text.indexOf(form);
  while (at > 0 && wordCharAt(text, at - 1)) at = text.indexOf(form, at + 1);
  if (at < 0) return undefined;
  let end = at + form.length;
  while (end < text.length && wordCharAt(text, end)) end++;
  return text.slice(at, end);
}

/** True when `text[at]` is a letter or digit (ASCII answered without the Unicode class). */
function wordCharAt(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code >= 128) return WORD_CHAR.test(text[at]);
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
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

const NO_FORMS: readonly TermForm[] = [];

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
    /**
     * Other forms of a term, each with the share of a match it earns: an irregular verb's past
     * forms, the library's words standing in for a misspelt one.
     */
    forms?: ReadonlyMap<string, readonly TermForm[]>;
  },
): RankedMemory[] {
  const { terms, now } = options;
  // Candidates holding a term, scored in a second pass once the pool's term weights are known;
  // per candidate its tag words, and at row `i * width` of the two strength arrays, per query
  // term (same order), its {@link matchStrength} anywhere in the memory and in the subject alone.
  const ranked: RankedMemory[] = [];
  const tagTokensOf: Set<string>[] = [];
  const width = terms.length;
  const documentFrequency = new Float64Array(width);
  // Every candidate's strengths in two shared arrays (a row of `width` each): allocating two
  // small typed arrays (or views) per candidate was a tenth of the rerank.
  const allStrengths = new Float64Array(records.length * width);
  const allSubjectStrengths = new Float64Array(records.length * width);
  const termForms = terms.map((term) => options.forms?.get(term));
  for (const memory of records) {
    const { subject, content, tagTokens } = matchText(memory);
    const offset = ranked.length * width;
    let matched: string[] | undefined;
    for (let index = 0; index < width; index++) {
      const term = terms[index];
      const inSubject = matchStrength(subject, term);
      allSubjectStrengths[offset + index] = inSubject;
      let strength = inSubject === 1 ? 1 : Math.max(inSubject, matchStrength(content, term));
      for (let tag = 0; tag < memory.tags.length && strength < 1; tag++) {
        strength = Math.max(strength, matchStrength(memory.tags[tag], term));
      }
      let word = term;
      for (const { form, weight } of termForms[index] ?? NO_FORMS) {
        const credit = weight *
          Math.max(matchStrength(subject, form), matchStrength(content, form));
        if (credit > strength) {
          strength = credit;
          word = wordBegunBy(subject, form) ?? wordBegunBy(content, form) ?? form;
        }
      }
      if (strength > 0) {
        allStrengths[offset + index] = strength;
        documentFrequency[index]++;
        (matched ??= []).push(word);
      }
    }
    if (matched === undefined) continue;
    ranked.push({ memory, score: 0, coverage: 0, matchedTerms: matched });
    tagTokensOf.push(tagTokens);
  }
  const pool = ranked.length;
  // A term's weight: how rare it is in the pool. Every share below divides by their sum.
  const weights = terms.map((_, index) => Math.log(1 + pool / (documentFrequency[index] || 1)));
  const totalWeight = weights.reduce((sum, weight) => sum + weight, 0);
  for (let at = 0; at < pool; at++) {
    const item = ranked[at];
    const tagTokens = tagTokensOf[at];
    const offset = at * width;
    let coverage = 0;
    let subjectShare = 0;
    let tagShare = 0;
    for (let index = 0; index < width; index++) {
      const weight = weights[index];
      coverage += weight * allStrengths[offset + index];
      subjectShare += weight * allSubjectStrengths[offset + index];
      if (tagTokens.has(terms[index])) tagShare += weight;
    }
    if (totalWeight > 0) {
      coverage /= totalWeight;
      subjectShare /= totalWeight;
      tagShare /= totalWeight;
    }
    const text = options.text.get(item.memory.id) ?? 0;
    item.score = RANK_WEIGHTS.text * text + RANK_WEIGHTS.coverage * coverage +
      RANK_WEIGHTS.subject * subjectShare + RANK_WEIGHTS.tags * tagShare +
      priorBoost(item.memory, now);
    item.coverage = coverage;
  }
  ranked.sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  return ranked;
}
