/**
 * Evidence rows (docs/SPEC.md §3 `memory_rows`, §7): a memory cut into the units that
 * recall embeds, matches and shows as hit spans. Content becomes Markdown
 * headings, table rows and sentences (English and CJK aware), each an exact
 * slice of the content: `content.slice(row.startOffset, row.endOffset) ===
 * row.text`, offsets in UTF-16 code units like every JavaScript string index.
 *
 * The subject is not part of the content, so it has no offsets; it is returned
 * beside the content rows ({@link segmentMemory}) instead of inside them with
 * made-up offsets that a span reader could slice by mistake.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { segmentContent } from "./segment.ts";
 *
 * assert.deepEqual(
 *   segmentContent("# Deploy\nWe ship on Mondays, e.g. at 9.30. 周二开会！").map((r) => r.text),
 *   ["Deploy", "We ship on Mondays, e.g. at 9.30.", "周二开会！"],
 * );
 * ```
 * @module
 */
import {
  ABBREVIATION_MAX_CHARS,
  ABBREVIATIONS_MAYBE_FINAL,
  ABBREVIATIONS_MID_SENTENCE,
  ROW_MAX_CHARS,
} from "./constants.ts";

/**
 * What a content row is. Fenced code is kept as "sentence" rows, one per
 * blank-line-separated chunk, because docs/SPEC.md §3 has no code kind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ContentRowKind } from "./segment.ts";
 *
 * const kind: ContentRowKind = "table_row";
 * assert.equal(kind, "table_row");
 * ```
 */
export type ContentRowKind = "sentence" | "table_row" | "heading";

/**
 * One row cut from content. `text` is always exactly
 * `content.slice(startOffset, endOffset)`, never empty, never starting or
 * ending with whitespace, and at most `ROW_MAX_CHARS` long.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ContentRow } from "./segment.ts";
 *
 * const content = "# Setup";
 * const row: ContentRow = {
 *   kind: "heading",
 *   text: "Setup",
 *   startOffset: 2,
 *   endOffset: 7,
 *   rowIndex: 0,
 * };
 * assert.equal(content.slice(row.startOffset, row.endOffset), row.text);
 * ```
 */
export interface ContentRow {
  kind: ContentRowKind;
  text: string;
  /** UTF-16 offset of the first code unit of `text` in the content. */
  startOffset: number;
  /** UTF-16 offset just past the last code unit of `text`. */
  endOffset: number;
  /** Position among the content's rows: 0, 1, 2… in content order. */
  rowIndex: number;
}

/**
 * The subject as a row. It has no offsets because it is not in the content;
 * storage persists it with NULL offsets, and a hit on it points at the
 * subject, never at a content span.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SubjectRow } from "./segment.ts";
 *
 * const row: SubjectRow = { kind: "subject", text: "Deploy schedule" };
 * assert.equal(row.kind, "subject");
 * ```
 */
export interface SubjectRow {
  kind: "subject";
  text: string;
}

/**
 * Any evidence row, as docs/SPEC.md §3 lists the kinds; narrow on `kind` to reach the
 * offsets.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { EvidenceRow } from "./segment.ts";
 *
 * function span(row: EvidenceRow): string {
 *   return row.kind === "subject" ? "subject" : `${row.startOffset}..${row.endOffset}`;
 * }
 * assert.equal(span({ kind: "subject", text: "Deploys" }), "subject");
 * ```
 */
export type EvidenceRow = SubjectRow | ContentRow;

/**
 * Every row of one memory version.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SegmentedMemory } from "./segment.ts";
 *
 * const rows: SegmentedMemory = { subjectRow: null, rows: [] };
 * assert.equal(rows.rows.length, 0);
 * ```
 */
export interface SegmentedMemory {
  /** Null when the subject is blank. */
  subjectRow: SubjectRow | null;
  rows: ContentRow[];
}

/**
 * Cuts a memory into its subject row and its content rows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { segmentMemory } from "./segment.ts";
 *
 * const { subjectRow, rows } = segmentMemory(" Deploys ", "We deploy on Monday.");
 * assert.deepEqual(subjectRow, { kind: "subject", text: "Deploys" });
 * assert.equal(rows[0].text, "We deploy on Monday.");
 * ```
 */
export function segmentMemory(subject: string, content: string): SegmentedMemory {
  const text = subject.trim();
  return {
    subjectRow: text === "" ? null : { kind: "subject", text },
    rows: segmentContent(content),
  };
}

/**
 * Cuts content into heading, table-row and sentence rows, in content order.
 *
 * Lines: `#`…`######` headings become one row of their text; `| a | b |` lines
 * one row each (the `|---|` separator and `---` rules none); fenced code is
 * never sentence-split. Other text is gathered into blocks (a blank line,
 * a list bullet or any of the above starts a new one; list bullets are left
 * out of the row) and split into sentences.
 *
 * Sentences end at `.`, `!`, `?` followed by whitespace, and at CJK `。！？；…`
 * with or without whitespace. A period does not end one inside a word (3.14,
 * v1.2.3, src/main.ts, https://example.com/a.b?x=1, a@b.io), after a known
 * abbreviation (e.g., Dr., vs., U.S.), after an initial (J. R. R. Tolkien) or
 * before a lowercase continuation of an ellipsis. A single newline without
 * punctuation does not end a sentence: Markdown wraps paragraphs that way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { segmentContent } from "./segment.ts";
 *
 * assert.deepEqual(
 *   segmentContent("| day | task |\n|---|---|\n| Mon | deploy |\n- Dr. Li ships v1.2.")
 *     .map((r) => `${r.kind}:${r.text}`),
 *   ["table_row:| day | task |", "table_row:| Mon | deploy |", "sentence:Dr. Li ships v1.2."],
 * );
 * ```
 */
export function segmentContent(content: string): ContentRow[] {
  const out: RowSink = { content, rows: [] };
  let blockStart = -1;
  let blockEnd = -1;
  // The opening fence ("```", "~~~~") while inside a fenced code block.
  let fence = "";
  const flush = (): void => {
    if (blockStart < 0) return;
    if (fence === "") splitSentences(out, blockStart, blockEnd);
    else pushRow(out, "sentence", blockStart, blockEnd);
    blockStart = -1;
  };
  const extend = (start: number, end: number): void => {
    if (blockStart < 0) blockStart = start;
    blockEnd = end;
  };

  let lineStart = 0;
  while (true) {
    const newline = content.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? content.length : newline;
    let a = lineStart;
    let b = lineEnd;
    while (a < b && isWhitespace(content.charCodeAt(a))) a++;
    while (b > a && isWhitespace(content.charCodeAt(b - 1))) b--;

    if (a === b) {
      flush();
    } else if (fence !== "") {
      if (closesFence(content, a, b, fence)) {
        flush();
        fence = "";
      } else {
        extend(a, b);
      }
    } else {
      readLine(content, a, b);
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  flush();
  return out.rows;

  function readLine(text: string, a: number, b: number): void {
    const first = text.charCodeAt(a);
    const marker = fenceMarker(text, a, b);
    if (marker !== "") {
      flush();
      fence = marker;
      return;
    }
    if (first === HASH) {
      const heading = headingText(text, a, b);
      if (heading !== null) {
        flush();
        pushRow(out, "heading", heading[0], heading[1]);
        return;
      }
    }
    if (first === PIPE && hasPipeAfter(text, a + 1, b)) {
      flush();
      if (!isTableSeparator(text, a, b)) pushRow(out, "table_row", a, b);
      return;
    }
    if (isThematicBreak(text, a, b)) {
      flush();
      return;
    }
    const body = bulletBody(text, a, b);
    if (body !== -1) {
      flush();
      if (body < b) extend(body, b);
      return;
    }
    extend(a, b);
  }
}

/** The content and the rows cut from it so far. */
interface RowSink {
  content: string;
  rows: ContentRow[];
}

const HASH = 0x23;
const PIPE = 0x7c;
const PERIOD = 0x2e;
const ELLIPSIS = 0x2026;

/** Trims [start, end) and appends it, in pieces of at most ROW_MAX_CHARS. */
function pushRow(out: RowSink, kind: ContentRowKind, start: number, end: number): void {
  const { content } = out;
  while (start < end && isWhitespace(content.charCodeAt(start))) start++;
  while (end > start && isWhitespace(content.charCodeAt(end - 1))) end--;
  while (end - start > ROW_MAX_CHARS) {
    const cut = cutBelowCap(content, start);
    let pieceEnd = cut;
    while (isWhitespace(content.charCodeAt(pieceEnd - 1))) pieceEnd--;
    appendRow(out, kind, start, pieceEnd);
    start = cut;
    while (isWhitespace(content.charCodeAt(start))) start++;
  }
  if (start < end) appendRow(out, kind, start, end);
}

function appendRow(out: RowSink, kind: ContentRowKind, start: number, end: number): void {
  out.rows.push({
    kind,
    text: out.content.slice(start, end),
    startOffset: start,
    endOffset: end,
    rowIndex: out.rows.length,
  });
}

/**
 * Where to cut a run longer than the cap that starts (non-whitespace) at
 * `start`: the last whitespace or just after the last comma within the cap;
 * failing that, the cap itself, moved back so no emoji or accent is split.
 */
function cutBelowCap(content: string, start: number): number {
  const limit = start + ROW_MAX_CHARS;
  for (let p = limit; p > start; p--) {
    if (isWhitespace(content.charCodeAt(p)) || isComma(content.charCodeAt(p - 1))) return p;
  }
  for (let p = limit; p > start; p--) {
    if (!splitsCharacter(content, p)) return p;
  }
  // Only possible for a cap-long run of joiners; still never split a surrogate pair.
  return isLowSurrogate(content.charCodeAt(limit)) ? limit - 1 : limit;
}

/** True when cutting before index `p` would break a visible character apart. */
function splitsCharacter(content: string, p: number): boolean {
  const at = content.charCodeAt(p);
  const before = content.charCodeAt(p - 1);
  if (isLowSurrogate(at) && before >= 0xd800 && before <= 0xdbff) return true;
  // Zero-width joiner sequences (👨‍👩‍👧), variation selectors and combining accents.
  if (at === 0x200d || before === 0x200d) return true;
  if ((at >= 0xfe00 && at <= 0xfe0f) || (at >= 0x0300 && at <= 0x036f)) return true;
  // Skin-tone modifiers (U+1F3FB..U+1F3FF) belong to the emoji before them.
  return at === 0xd83c && content.charCodeAt(p + 1) >= 0xdffb &&
    content.charCodeAt(p + 1) <= 0xdfff;
}

/** Splits the text block [start, end) into sentence rows. */
function splitSentences(out: RowSink, start: number, end: number): void {
  const { content } = out;
  let rowStart = start;
  for (let i = start; i < end; i++) {
    if (!isTerminator(content.charCodeAt(i))) continue;
    let runEnd = i + 1;
    while (runEnd < end && isTerminator(content.charCodeAt(runEnd))) runEnd++;
    let closeEnd = runEnd;
    while (closeEnd < end && isCloser(content.charCodeAt(closeEnd))) closeEnd++;
    if (endsSentence(content, i, runEnd, closeEnd, start, end)) {
      pushRow(out, "sentence", rowStart, closeEnd);
      rowStart = closeEnd;
    }
    i = closeEnd - 1;
  }
  pushRow(out, "sentence", rowStart, end);
}

/**
 * Whether the terminator run [runStart, runEnd), followed by closing quotes
 * and brackets up to closeEnd, ends a sentence of the block [blockStart, blockEnd).
 */
function endsSentence(
  content: string,
  runStart: number,
  runEnd: number,
  closeEnd: number,
  blockStart: number,
  blockEnd: number,
): boolean {
  let periods = 0;
  let ellipsis = false;
  let bang = false;
  for (let k = runStart; k < runEnd; k++) {
    const code = content.charCodeAt(k);
    if (code === PERIOD) periods++;
    else if (code === ELLIPSIS) ellipsis = true;
    else if (code === 0x21 || code === 0x3f) bang = true;
    // Full-width 。！？； end a sentence whatever follows: CJK puts no space after them.
    else return true;
  }
  const before = runStart > blockStart ? content.charCodeAt(runStart - 1) : -1;
  if (ellipsis && isCjk(before)) return true;
  if (closeEnd >= blockEnd) return true;
  const next = content.charCodeAt(closeEnd);
  // "部署.周二": ASCII punctuation between CJK characters, where no space is written.
  if (!isWhitespace(next)) return isCjk(before) && isCjk(next);
  let after = closeEnd + 1;
  while (after < blockEnd && isWhitespace(content.charCodeAt(after))) after++;
  if (after >= blockEnd || bang) return true;
  // An ellipsis ends a sentence only when a new one visibly starts ("Wait... what" does not).
  if (ellipsis || periods > 1) {
    return startsUppercase(content, after) || isCjk(content.charCodeAt(after));
  }
  return periodEndsSentence(content, runStart, blockStart, after);
}

/** Whether ". " at `dot` ends a sentence, judged by the word before it and the one after. */
function periodEndsSentence(
  content: string,
  dot: number,
  blockStart: number,
  after: number,
): boolean {
  let wordStart = dot;
  const floor = Math.max(blockStart, dot - ABBREVIATION_MAX_CHARS);
  while (wordStart > floor && !isWhitespace(content.charCodeAt(wordStart - 1))) wordStart--;
  // Too long to be an abbreviation, an initial or a list number.
  if (wordStart > blockStart && !isWhitespace(content.charCodeAt(wordStart - 1))) return true;
  while (wordStart < dot && isOpener(content.charCodeAt(wordStart))) wordStart++;
  if (wordStart === dot) return true;
  const word = content.slice(wordStart, dot + 1).toLowerCase();
  if (ABBREVIATIONS_MID_SENTENCE.has(word)) return false;
  if (ABBREVIATIONS_MAYBE_FINAL.has(word)) return startsUppercase(content, after);
  // Initials ("J. R. R. Tolkien"), but not the pronoun I ("So do I. We left.").
  const first = content.charCodeAt(wordStart);
  if (dot - wordStart === 1 && first >= 0x41 && first <= 0x5a && first !== 0x49) return false;
  // Dotted acronyms like "a.k.a." or "J.R.R.".
  if (DOTTED_ACRONYM.test(word)) return false;
  // "Steps: 1. build 2. test" keeps going; "It rose 5. Then" ends.
  if (DIGITS_AND_DOT.test(word)) return !startsLowercase(content, after);
  return true;
}

const DOTTED_ACRONYM = /^(?:\p{L}\.){2,}$/u;
const DIGITS_AND_DOT = /^\d+\.$/;
const UPPERCASE = /^\p{Lu}/u;
const LOWERCASE = /^\p{Ll}/u;

function startsUppercase(content: string, i: number): boolean {
  const code = content.charCodeAt(i);
  if (code < 0x80) return code >= 0x41 && code <= 0x5a;
  return UPPERCASE.test(content.slice(i, i + 2));
}

function startsLowercase(content: string, i: number): boolean {
  const code = content.charCodeAt(i);
  if (code < 0x80) return code >= 0x61 && code <= 0x7a;
  return LOWERCASE.test(content.slice(i, i + 2));
}

/** The heading text range of a `#` line, or null when the line is not a heading. */
function headingText(content: string, a: number, b: number): [number, number] | null {
  let hashes = a;
  while (hashes < b && content.charCodeAt(hashes) === HASH) hashes++;
  if (hashes - a > 6) return null;
  // "#tag" is not a heading; Markdown wants a space after the marker.
  if (hashes < b && !isWhitespace(content.charCodeAt(hashes))) return null;
  let start = hashes;
  while (start < b && isWhitespace(content.charCodeAt(start))) start++;
  let end = b;
  // An optional closing run ("## Title ##") is markup too, unless it is part of a word ("C#").
  let closing = end;
  while (closing > start && content.charCodeAt(closing - 1) === HASH) closing--;
  if (closing === start || isWhitespace(content.charCodeAt(closing - 1))) end = closing;
  return [start, end];
}

function hasPipeAfter(content: string, from: number, b: number): boolean {
  for (let i = from; i < b; i++) if (content.charCodeAt(i) === PIPE) return true;
  return false;
}

/** `|---|:---:|` lines carry no content, only column alignment. */
function isTableSeparator(content: string, a: number, b: number): boolean {
  let dashes = false;
  for (let i = a; i < b; i++) {
    const code = content.charCodeAt(i);
    if (code === 0x2d) dashes = true;
    else if (code !== PIPE && code !== 0x3a && !isWhitespace(code)) return false;
  }
  return dashes;
}

/** `---`, `***`, `___` (spaces allowed between): a rule, no content. */
function isThematicBreak(content: string, a: number, b: number): boolean {
  const mark = content.charCodeAt(a);
  if (mark !== 0x2d && mark !== 0x2a && mark !== 0x5f) return false;
  let count = 0;
  for (let i = a; i < b; i++) {
    const code = content.charCodeAt(i);
    if (code === mark) count++;
    else if (code !== 0x20 && code !== 0x09) return false;
  }
  return count >= 3;
}

/** Where a list item's text begins (`- `, `* `, `+ `, `1. `, `2) `), or -1 for no bullet. */
function bulletBody(content: string, a: number, b: number): number {
  const first = content.charCodeAt(a);
  let markerEnd = -1;
  if (first === 0x2d || first === 0x2a || first === 0x2b) {
    markerEnd = a + 1;
  } else {
    let digits = a;
    while (digits < b && digits - a < 9 && isDigit(content.charCodeAt(digits))) digits++;
    const mark = content.charCodeAt(digits);
    if (digits > a && (mark === PERIOD || mark === 0x29)) markerEnd = digits + 1;
  }
  if (markerEnd === -1 || (markerEnd < b && !isWhitespace(content.charCodeAt(markerEnd)))) {
    return -1;
  }
  while (markerEnd < b && isWhitespace(content.charCodeAt(markerEnd))) markerEnd++;
  return markerEnd;
}

/** The "```" or "~~~" run opening a fenced code block on this line, or "". */
function fenceMarker(content: string, a: number, b: number): string {
  const mark = content.charCodeAt(a);
  if (mark !== 0x60 && mark !== 0x7e) return "";
  let end = a;
  while (end < b && content.charCodeAt(end) === mark) end++;
  if (end - a < 3) return "";
  // "```npm i```" on one line is inline code: a backtick fence's info string has no backticks.
  if (mark === 0x60) {
    for (let i = end; i < b; i++) if (content.charCodeAt(i) === 0x60) return "";
  }
  return content.slice(a, end);
}

function closesFence(content: string, a: number, b: number, fence: string): boolean {
  const mark = fence.charCodeAt(0);
  let end = a;
  while (end < b && content.charCodeAt(end) === mark) end++;
  return end === b && end - a >= fence.length;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Exactly JavaScript's `\s`, so every row satisfies `text.trim() === text`. */
function isWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f ||
    code === 0x3000 || code === 0xfeff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `. ! ? …` and the full-width `。 ｡ ！ ？ ；`. */
function isTerminator(code: number): boolean {
  if (code < 0x80) return code === PERIOD || code === 0x21 || code === 0x3f;
  return code === ELLIPSIS || code === 0x3002 || code === 0xff61 || code === 0xff01 ||
    code === 0xff1f || code === 0xff1b;
}

/** Closing quotes, brackets and emphasis marks that stay with the sentence they close. */
function isCloser(code: number): boolean {
  return CLOSERS.has(code);
}

/** Opening quotes and brackets that are not part of the word they precede. */
function isOpener(code: number): boolean {
  return OPENERS.has(code);
}

function isComma(code: number): boolean {
  return code === 0x2c || code === 0xff0c || code === 0x3001;
}

function codes(chars: string): Set<number> {
  return new Set(Array.from(chars, (char) => char.charCodeAt(0)));
}

const CLOSERS = codes(")]}\"'`*_”’»」』）】》〉〕］｝");
const OPENERS = codes("([{\"'`*_“‘«「『（【《〈〔［｛¿¡");

/**
 * Han, kana, Hangul, CJK punctuation and full-width forms. Rare Han beyond the
 * BMP (surrogate pairs) are not checked: they only matter for the ASCII
 * punctuation-between-CJK rule.
 */
function isCjk(code: number): boolean {
  return (code >= 0x2e80 && code <= 0x9fff) || (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0xf900 && code <= 0xfaff) || (code >= 0xff00 && code <= 0xffef);
}
