/**
 * Near-duplicates (docs/SPEC.md §5/§8): two active facts that say the same thing in other words.
 * The test works offline and is deliberately strict about what makes facts different:
 *
 * - the same polarity (one negated, the other not: they disagree, not repeat);
 * - the same values after unit normalization ("3 days" = "72 hours", "5 days" is another fact);
 * - the same names and identifiers (capitalized words, words with digits or `@`): "Alice likes
 *   tea" and "Bob likes tea" share most words but are about different people;
 * - not one slot filled differently ("owns the billing service" / "owns the search service"):
 *   that is another value of the same attribute, whatever the overlap;
 * - both state a fact (a short text that is a question or words to the listener is chat,
 *   which repeats itself freely);
 * - and most content words in common (stems, stopwords dropped, attribute families merged, as
 *   the conflict rule stage reads rows): Dice ≥ {@link DUPLICATE_MIN_DICE}.
 *
 * `remember` asks it about the new fact's few best lexical neighbours in its workspace (the
 * lookup conflict detection uses, bounded the same way) after the write committed, so it never
 * blocks or fails a write; `scan_duplicates` asks it about every active memory's neighbours.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { duplicateSimilarity } from "./duplicates.ts";
 *
 * const same = duplicateSimilarity("We deploy every Tuesday.", "Deploys happen every Tuesday.");
 * assert.ok(same >= 0.6);
 * assert.equal(duplicateSimilarity("Alice likes black tea.", "Bob likes black tea."), 0);
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import type { ServiceContext } from "../core/context.ts";
import { nowIso } from "../platform/clock.ts";
import type { MemoryRecord, Store } from "../store/mod.ts";
import {
  DUPLICATE_CLAIM_CHARS,
  DUPLICATE_MAX_CHARS,
  DUPLICATE_MAX_SUBSTITUTED,
  DUPLICATE_MIN_DICE,
  DUPLICATE_MIN_VECTOR,
  DUPLICATE_MIN_WORDS,
  DUPLICATE_NEIGHBOURS,
  DUPLICATE_POSTINGS_BUDGET,
  DUPLICATE_QUERY_TERMS,
} from "./constants_pipeline.ts";
import { sharedWordCandidates } from "../recall/lexical.ts";
import { ATTRIBUTE_FAMILIES, NEGATION_PHRASES, STOPWORDS } from "./lexicon.ts";
import { stem } from "./sentence.ts";
import { extractValues, sameValue, type SentenceValue } from "./values.ts";

/** A text read for the duplicate test. */
export interface DuplicateReading {
  words: Set<string>;
  values: SentenceValue[];
  negated: boolean;
  /** Names and identifiers, lower-cased and stemmed. */
  names: Set<string>;
  /** Capitalized first words of sentences: names, or ordinary words that start a sentence. */
  initials: Set<string>;
  /** Every word of the text, lower-cased and stemmed (where a name may be found). */
  tokens: Set<string>;
  /** Why a short text states no fact (a question, words to the listener). */
  notAClaim?: string;
}

const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}_.@+'\-]*/gu;
const READINGS_MAX = 2048;
const READINGS = new BoundedMap<string, DuplicateReading>(READINGS_MAX);

const HAN = /\p{Script=Han}/u;
const QUESTION = /[?？]\s*["')\]]*\s*$/u;
const TO_LISTENER = /\b(?:you|your|yours|yourself|you're|you've|you'll|you'd)\b/iu;
const NEGATION_WORDS = new Set(NEGATION_PHRASES.filter((p) => !p.includes(" ") && !HAN.test(p)));
const NEGATION_MULTI = NEGATION_PHRASES.filter((p) => p.includes(" "));
const NEGATION_HAN = NEGATION_PHRASES.filter((p) => HAN.test(p)).sort((a, b) =>
  b.length - a.length
);
/** Attribute families by member stem ("due" and "deadline" are one word to the test). */
const FAMILY_OF = new Map(
  Object.entries(ATTRIBUTE_FAMILIES).flatMap(([family, members]) =>
    members.filter((m) => !m.includes(" ")).map((m) => [stem(m), family] as const)
  ),
);

/** How many negations a text holds ("not", "n't", "no longer", "不"...). */
function negations(lower: string, words: readonly string[]): number {
  let count = words.filter((w) => NEGATION_WORDS.has(w) || w.endsWith("n't")).length;
  const spaced = ` ${lower.replace(/[^\p{L}\p{N}']+/gu, " ")} `;
  for (const phrase of NEGATION_MULTI) if (spaced.includes(` ${phrase} `)) count++;
  if (!HAN.test(lower)) return count;
  let han = lower;
  for (const phrase of NEGATION_HAN) {
    const parts = han.split(phrase);
    count += parts.length - 1;
    han = parts.join(" ");
  }
  return count;
}

/**
 * The part of a text the duplicate test reads: its first {@link DUPLICATE_MAX_CHARS}
 * characters, typographic apostrophes as plain ones (one character for another, so value
 * offsets still hold).
 */
function duplicateSource(text: string): string {
  return text.slice(0, DUPLICATE_MAX_CHARS).replace(/[’‘`]/g, "'");
}

/** Why a short text states no fact (a question, words to the listener), if it does not. */
function notAClaim(source: string): string | undefined {
  if (source.length > DUPLICATE_CLAIM_CHARS) return undefined;
  if (QUESTION.test(source)) return "a question";
  if (TO_LISTENER.test(source)) return "words to the listener";
  return undefined;
}

/** A token without trailing dots, apostrophes and hyphens, and without a final "'s". */
function trimWord(token: string): string {
  let word = token;
  const last = word.charCodeAt(word.length - 1);
  // . ' -
  if (last === 0x2e || last === 0x27 || last === 0x2d) word = word.replace(/[.'\-]+$/, "");
  const end = word.length;
  if (end >= 2 && word.charCodeAt(end - 2) === 0x27 && (word.charCodeAt(end - 1) | 0x20) === 0x73) {
    word = word.slice(0, -2);
  }
  return word;
}

/** Whether `source[from, to)` (the gap between two words) ends a sentence (. ! ? : ;). */
function endsSentence(source: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = source.charCodeAt(i);
    if (code === 0x2e || code === 0x21 || code === 0x3f || code === 0x3a || code === 0x3b) {
      return true;
    }
  }
  return false;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}

/** Digits, dots and commas only ("1,200", "3.5"). */
function numberLike(word: string): boolean {
  if (isAsciiLetter(word.charCodeAt(0))) return false;
  return /^[\p{N}.,]+$/u.test(word);
}

/**
 * "name" for a word with a capital after its first letter or with a digit or `@` (an
 * identifier), "initial" for one that only begins with a capital, else undefined.
 */
function capitals(word: string): "name" | "initial" | undefined {
  let ascii = true;
  let inner = false;
  let marked = false;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    if (code >= 0x80) {
      ascii = false;
      break;
    }
    if (i > 0 && code >= 0x41 && code <= 0x5a) inner = true;
    if ((code >= 0x30 && code <= 0x39) || code === 0x40) marked = true;
  }
  if (!ascii) {
    if (/.\p{Lu}/u.test(word) || /[\p{N}@]/u.test(word)) return "name";
    return /^\p{Lu}/u.test(word) ? "initial" : undefined;
  }
  if (inner || marked) return "name";
  const first = word.charCodeAt(0);
  return first >= 0x41 && first <= 0x5a ? "initial" : undefined;
}

/**
 * Reads a text (its first {@link DUPLICATE_MAX_CHARS} characters) for the duplicate test. A
 * light reading, not the rule stage's sentence reader (about 2 ms for a 200-character chat
 * turn, which `remember` cannot afford twice): words, stems, values, names and negations.
 */
export function readForDuplicates(text: string): DuplicateReading {
  const source = duplicateSource(text);
  const cached = READINGS.get(source);
  if (cached) return cached;
  const values = extractValues(source);
  // Units belong to their values ("1 GB" = "1024 MB"), which are compared as values.
  const inValue = (at: number) => values.some((v) => at >= v.start && at < v.end);
  const names = new Set<string>();
  const initials = new Set<string>();
  const tokens = new Set<string>();
  const words = new Set<string>();
  const lowerWords: string[] = [];
  let previousEnd = 0;
  let sentenceStart = true;
  for (const match of source.matchAll(TOKEN)) {
    const word = trimWord(match[0]);
    const lower = word.toLowerCase();
    if (endsSentence(source, previousEnd, match.index)) sentenceStart = true;
    previousEnd = match.index + match[0].length;
    const initial = sentenceStart;
    sentenceStart = false;
    lowerWords.push(lower);
    const stemmed = stem(lower);
    tokens.add(stemmed);
    if (numberLike(word) || STOPWORDS.has(lower) || NEGATION_WORDS.has(lower)) continue;
    if (inValue(match.index)) continue;
    words.add(FAMILY_OF.get(stemmed) ?? stemmed);
    const shape = capitals(word);
    if (shape === "name") names.add(stemmed);
    else if (shape === "initial") (initial ? initials : names).add(stemmed);
  }
  const reading = {
    notAClaim: notAClaim(source),
    words,
    values,
    negated: negations(source.toLowerCase(), lowerWords) % 2 === 1,
    names,
    initials,
    tokens,
  };
  READINGS.set(source, reading);
  return reading;
}

function valuesMatch(a: readonly SentenceValue[], b: readonly SentenceValue[]): boolean {
  return a.every((v) => b.some((w) => sameValue(v, w))) &&
    b.every((w) => a.some((v) => sameValue(v, w)));
}

function missing(names: ReadonlySet<string>, other: DuplicateReading): number {
  let count = 0;
  for (const name of names) if (!other.tokens.has(name)) count++;
  return count;
}

/**
 * Names match when every name of each text occurs in the other. A capitalized first word may
 * be an ordinary word ("Uploads are limited…"), so it only counts against a duplicate when the
 * other text also has a name of its own: one name in place of another ("Alice…" / "Bob…").
 */
function namesMatch(a: DuplicateReading, b: DuplicateReading): boolean {
  if (missing(a.names, b) > 0 || missing(b.names, a) > 0) return false;
  const aInitials = missing(a.initials, b);
  const bInitials = missing(b.initials, a);
  return aInitials === 0 || bInitials === 0;
}

/**
 * One or two words in place of as many others, the rest equal ("Ada owns the billing
 * service" / "… the search service"): a different value of the same attribute, not the same
 * fact. A rewording changes the frame, not one slot.
 */
function substitution(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const onlyA = [...a].filter((word) => !b.has(word)).length;
  const onlyB = [...b].filter((word) => !a.has(word)).length;
  return onlyA > 0 && onlyA === onlyB && onlyA <= DUPLICATE_MAX_SUBSTITUTED;
}

/** Both state a fact, with the same polarity, values and names: what any duplicate needs. */
function sameShape(left: DuplicateReading, right: DuplicateReading): boolean {
  // Chat that states no fact ("That's great, you're doing awesome!") repeats itself freely.
  if (left.notAClaim !== undefined || right.notAClaim !== undefined) return false;
  if (left.negated !== right.negated) return false;
  if (!valuesMatch(left.values, right.values)) return false;
  return namesMatch(left, right);
}

/**
 * How similar two texts are as statements of a fact, 0..1: the Dice share of their content
 * words, or 0 when their polarity, values or names differ.
 */
export function duplicateSimilarity(a: string, b: string): number {
  const left = readForDuplicates(a);
  const right = readForDuplicates(b);
  if (!sameShape(left, right)) return 0;
  if (left.words.size < DUPLICATE_MIN_WORDS || right.words.size < DUPLICATE_MIN_WORDS) return 0;
  if (substitution(left.words, right.words)) return 0;
  let shared = 0;
  for (const word of left.words) if (right.words.has(word)) shared++;
  return (2 * shared) / (left.words.size + right.words.size);
}

/** True when the similarity makes two facts near-duplicates. */
export function isNearDuplicate(similarity: number): boolean {
  return similarity >= DUPLICATE_MIN_DICE;
}

/** A near-duplicate of a memory. */
export interface PossibleDuplicate {
  memoryId: number;
  similarity: number;
}

/**
 * The active memory of the same workspace most like `memory` (a near-duplicate), if any. Its
 * neighbours are the best lexical matches of its rarest words in its workspace, on a tighter
 * budget than detection's (a restatement shares the rare words).
 */
export async function nearestDuplicate(
  store: Store,
  memory: Pick<MemoryRecord, "id" | "content" | "workspaceCanonical">,
): Promise<PossibleDuplicate | undefined> {
  // A text no duplicate can match (chat that states no fact, too few content words) needs no
  // neighbours: on chat turns this was most of `remember`'s duplicate check. The cheap test
  // first: a question or words to the listener needs no reading at all.
  if (notAClaim(duplicateSource(memory.content))) return undefined;
  const mine = readForDuplicates(memory.content);
  if (mine.notAClaim !== undefined || mine.words.size < DUPLICATE_MIN_WORDS) return undefined;
  let best: PossibleDuplicate | undefined;
  const found = await sharedWordCandidates(store, memory.content.slice(0, DUPLICATE_MAX_CHARS), {
    filters: { statuses: ["active"], workspaces: [memory.workspaceCanonical] },
    pool: DUPLICATE_NEIGHBOURS + 1,
    maxTerms: DUPLICATE_QUERY_TERMS,
    budget: DUPLICATE_POSTINGS_BUDGET,
  });
  const ids = found.filter((id) => id !== memory.id).slice(0, DUPLICATE_NEIGHBOURS);
  for (const other of (await store.getMemories(ids)).values()) {
    const similarity = duplicateSimilarity(memory.content, other.content);
    if (isNearDuplicate(similarity) && (!best || similarity > best.similarity)) {
      best = { memoryId: other.id, similarity };
    }
  }
  return best;
}

/**
 * `write_hints.possible_duplicate` for an active memory just written (as the write stored
 * it, so the hint need not read it back). Runs after the write committed; any failure means
 * no hint, never a failed write.
 */
export async function possibleDuplicateOf(
  ctx: ServiceContext,
  written: Pick<MemoryRecord, "id" | "content" | "workspaceCanonical">,
): Promise<PossibleDuplicate | undefined> {
  try {
    return await ctx.store.read(async () => await nearestDuplicate(ctx.store, written));
  } catch {
    return undefined;
  }
}

/**
 * With an embedding model: the neighbour by meaning (from detection's own vector lookup) that
 * says the same as `memory` in other words — same workspace, similarity (scaled above the
 * model's relevance floor) ≥ {@link DUPLICATE_MIN_VECTOR}, and the same polarity, values and
 * names. Undefined when the word test already found a duplicate (`remember` reported it).
 */
export async function vectorDuplicate(
  store: Store,
  memory: MemoryRecord,
  near: readonly { memoryId: number; similarity: number }[],
): Promise<PossibleDuplicate | undefined> {
  const close = near.filter((hit) =>
    hit.memoryId !== memory.id && hit.similarity >= DUPLICATE_MIN_VECTOR
  );
  if (close.length === 0) return undefined;
  if (await nearestDuplicate(store, memory)) return undefined;
  const others = await store.getMemories(close.map((hit) => hit.memoryId));
  const mine = readForDuplicates(memory.content);
  for (const hit of close) {
    const other = others.get(hit.memoryId);
    if (other?.status !== "active" || other.workspaceCanonical !== memory.workspaceCanonical) {
      continue;
    }
    if (sameShape(mine, readForDuplicates(other.content))) {
      return { memoryId: other.id, similarity: hit.similarity };
    }
  }
  return undefined;
}

/** The notice for a duplicate found by meaning after the write answered (inside a write). */
export async function noticeDuplicate(
  ctx: ServiceContext,
  memory: MemoryRecord,
  duplicate: PossibleDuplicate,
  now: string,
): Promise<void> {
  await ctx.store.conflicts.insertNotice({
    kind: "possible_duplicate",
    severity: "info",
    conflictId: null,
    dedupeKey: `notice:duplicate:${memory.id}:${memory.version}:${duplicate.memoryId}`,
    title: `Memory ${memory.id} may repeat memory ${duplicate.memoryId}`,
    message: `Memory ${memory.id} says what memory ${duplicate.memoryId} says, in other words ` +
      `(similarity ${Math.round(duplicate.similarity * 1000) / 1000} by meaning); read both, ` +
      `then merge or retire one.`,
    payload: {
      memory_ids: [memory.id, duplicate.memoryId],
      similarity: Math.round(duplicate.similarity * 1000) / 1000,
    },
    createdAt: now,
  });
}

/**
 * Detection's hook: records a `possible_duplicate` notice when a neighbour by meaning repeats
 * the fact. Never fails detection: a failure here only means no notice.
 */
export async function noticeVectorDuplicate(
  ctx: ServiceContext,
  memory: MemoryRecord,
  near: readonly { memoryId: number; similarity: number }[],
): Promise<void> {
  if (!near.some((hit) => hit.similarity >= DUPLICATE_MIN_VECTOR)) return;
  try {
    const duplicate = await ctx.store.read(async () =>
      await vectorDuplicate(ctx.store, memory, near)
    );
    if (!duplicate) return;
    await ctx.store.write(async () => {
      if ((await ctx.store.getMemory(memory.id))?.version !== memory.version) return;
      await noticeDuplicate(ctx, memory, duplicate, nowIso());
    }, { durable: false });
  } catch {
    // The conflict check goes on; the scan and the next write can still find it.
  }
}
