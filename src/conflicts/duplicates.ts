/**
 * Near-duplicates (SPEC §5/§8): two active facts that say the same thing in other words. The
 * test works offline and is deliberately strict about what makes facts different:
 *
 * - the same polarity (one negated, the other not: they disagree, not repeat);
 * - the same values after unit normalization ("3 days" = "72 hours", "5 days" is another fact);
 * - the same names and identifiers (capitalized words, words with digits or `@`): "Alice likes
 *   tea" and "Bob likes tea" share most words but are about different people;
 * - not one slot filled differently ("owns the billing service" / "owns the search service"):
 *   that is another value of the same attribute, whatever the overlap;
 * - and most content words in common (stems, stopwords dropped, attribute families merged, as
 *   the conflict rule stage reads rows): Dice ≥ {@link DUPLICATE_MIN_DICE}.
 *
 * `remember` asks it about the new fact's few best lexical neighbours in its workspace (the
 * lookup conflict detection uses, bounded the same way) after the write committed, so it never
 * blocks or fails a write; `scan_duplicates` asks it about every active memory's neighbours.
 *
 * @example
 * ```ts
 * import { duplicateSimilarity } from "./src/conflicts/duplicates.ts";
 * duplicateSimilarity("We deploy every Tuesday.", "Deploys happen every Tuesday."); // ≥ 0.6
 * duplicateSimilarity("Alice likes black tea.", "Bob likes black tea."); // 0
 * ```
 * @module
 */
import type { ServiceContext } from "../memory/context.ts";
import type { MemoryRecord, Store } from "../store/mod.ts";
import {
  DUPLICATE_MAX_CHARS,
  DUPLICATE_MAX_SUBSTITUTED,
  DUPLICATE_MIN_DICE,
  DUPLICATE_MIN_WORDS,
  DUPLICATE_NEIGHBOURS,
} from "./constants_pipeline.ts";
import { neighboursOf } from "./detect.ts";
import { STOPWORDS } from "./lexicon.ts";
import { readSentence, stem, VALUE_SLOT } from "./sentence.ts";
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
}

const TOKEN = /[\p{L}\p{N}][\p{L}\p{N}_.@+\-]*/gu;
const READINGS = new Map<string, DuplicateReading>();
const READINGS_MAX = 2048;

function key(word: string): string {
  return stem(word.toLowerCase().replace(/[.\-]+$/, ""));
}

/** Reads a text (its first {@link DUPLICATE_MAX_CHARS} characters) for the duplicate test. */
export function readForDuplicates(text: string): DuplicateReading {
  const source = text.slice(0, DUPLICATE_MAX_CHARS);
  const cached = READINGS.get(source);
  if (cached) return cached;
  const shape = readSentence(source);
  const names = new Set<string>();
  const initials = new Set<string>();
  const tokens = new Set<string>();
  // Units belong to their values ("1 GB" = "1024 MB"), which are compared as values.
  const spans = extractValues(source).map((v) => [v.start, v.end]);
  for (const match of source.matchAll(TOKEN)) {
    const word = match[0];
    const lower = word.toLowerCase();
    tokens.add(key(word));
    if (/^[\p{N}.,]+$/u.test(word) || STOPWORDS.has(lower)) continue;
    if (spans.some(([start, end]) => match.index >= start && match.index < end)) continue;
    const before = source.slice(0, match.index).trimEnd();
    const initial = before === "" || /[.!?:;]$/.test(before);
    if (/.\p{Lu}/u.test(word) || /[\p{N}@]/u.test(word)) names.add(key(word));
    else if (/^\p{Lu}/u.test(word)) (initial ? initials : names).add(key(word));
  }
  const reading = {
    words: new Set(shape.words.filter((word) => word !== VALUE_SLOT)),
    values: shape.values,
    negated: shape.negated,
    names,
    initials,
    tokens,
  };
  if (READINGS.size >= READINGS_MAX) READINGS.delete(READINGS.keys().next().value!);
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

/**
 * How similar two texts are as statements of a fact, 0..1: the Dice share of their content
 * words, or 0 when their polarity, values or names differ.
 */
export function duplicateSimilarity(a: string, b: string): number {
  const left = readForDuplicates(a);
  const right = readForDuplicates(b);
  if (left.negated !== right.negated) return 0;
  if (!valuesMatch(left.values, right.values)) return 0;
  if (!namesMatch(left, right)) return 0;
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
 * neighbours are the best lexical matches of its words, bounded like detection's.
 */
export function nearestDuplicate(
  store: Store,
  memory: MemoryRecord,
): PossibleDuplicate | undefined {
  let best: PossibleDuplicate | undefined;
  for (const other of neighboursOf(store, memory, DUPLICATE_NEIGHBOURS)) {
    if (other.workspaceCanonical !== memory.workspaceCanonical) continue;
    const similarity = duplicateSimilarity(memory.content, other.content);
    if (isNearDuplicate(similarity) && (!best || similarity > best.similarity)) {
      best = { memoryId: other.id, similarity };
    }
  }
  return best;
}

/**
 * `write_hints.possible_duplicate` for a memory just written. Runs after the write committed;
 * any failure means no hint, never a failed write.
 */
export function possibleDuplicateOf(
  ctx: ServiceContext,
  memoryId: number,
): PossibleDuplicate | undefined {
  try {
    return ctx.store.read(() => {
      const memory = ctx.store.getMemory(memoryId);
      if (!memory || memory.status !== "active") return undefined;
      return nearestDuplicate(ctx.store, memory);
    });
  } catch {
    return undefined;
  }
}
