/**
 * The YAML frontmatter of Markdown notes: a reader for the subset notes use (flat keys;
 * plain, quoted and block scalars; flow and block lists; JSON-style flow maps) and a writer
 * that emits only that subset. Written here rather than taken from a YAML library: the
 * fields mema maps are flat, and a reader that refuses what it does not understand, naming
 * the line, is what `mema import` needs to report a bad file instead of guessing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFrontmatter, renderFrontmatter } from "./frontmatter.ts";
 *
 * const text = renderFrontmatter({ title: "Deploys", tags: ["ops", "friday"] });
 * assert.equal(text, '---\ntitle: "Deploys"\ntags: ["ops", "friday"]\n---\n');
 * assert.deepEqual(parseFrontmatter(text + "body").fields, {
 *   title: "Deploys",
 *   tags: ["ops", "friday"],
 * });
 * ```
 * @module
 */
import { InexactNumber, keepsLiteral, parseJsonExact } from "../memory/exact_json.ts";

/** A scalar, list or map read from frontmatter. */
export type FrontmatterValue =
  | string
  | number
  /** A number in a JSON flow map or list with more digits or range than a float keeps (refused on write). */
  | InexactNumber
  | boolean
  | null
  | FrontmatterValue[]
  | { [key: string]: FrontmatterValue };

/** A frontmatter problem at a line of the file (1-based). */
export class FrontmatterError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(message);
    this.line = line;
  }
}

/** A file split into its frontmatter fields and its body. */
export interface ParsedFrontmatter {
  fields: Record<string, FrontmatterValue>;
  /** Everything after the closing `---` line, verbatim. */
  body: string;
  /** The 1-based line of the file where the body starts. */
  bodyLine: number;
  /** The line each field was read from. */
  lines: Record<string, number>;
}

const FENCE = /^---[ \t]*$/;
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$/;

/** Splits text into lines, each with its end-of-line sequence kept apart. */
function splitLines(text: string): { text: string; end: number }[] {
  const lines: { text: string; end: number }[] = [];
  let at = 0;
  while (at < text.length) {
    const next = text.indexOf("\n", at);
    const stop = next < 0 ? text.length : next + 1;
    lines.push({ text: text.slice(at, stop).replace(/\r?\n$/, ""), end: stop });
    at = stop;
  }
  return lines;
}

/**
 * Reads the frontmatter at the top of `text` (a first line of `---`, fields, a closing `---`).
 * Text without it is all body. Throws {@linkcode FrontmatterError} with the line of the
 * first thing it cannot read.
 */
export function parseFrontmatter(text: string): ParsedFrontmatter {
  const lines = splitLines(text);
  if (lines.length === 0 || !FENCE.test(lines[0].text)) {
    return { fields: {}, body: text, bodyLine: 1, lines: {} };
  }
  const close = lines.findIndex((line, index) => index > 0 && FENCE.test(line.text));
  if (close < 0) {
    throw new FrontmatterError(1, "the frontmatter opened here is never closed by a `---` line");
  }
  const fields: Record<string, FrontmatterValue> = {};
  const fieldLines: Record<string, number> = {};
  let index = 1;
  while (index < close) {
    const raw = lines[index].text;
    const lineNo = index + 1;
    if (raw.trim() === "" || raw.trimStart().startsWith("#")) {
      index++;
      continue;
    }
    if (/^[ \t]/.test(raw)) {
      throw new FrontmatterError(lineNo, "unexpected indentation (nested maps are not supported)");
    }
    const match = KEY_LINE.exec(raw);
    if (!match) throw new FrontmatterError(lineNo, `expected "key: value", found "${raw}"`);
    const key = match[1];
    if (key in fields) throw new FrontmatterError(lineNo, `the key "${key}" appears twice`);
    const rest = (match[2] ?? "").trim();
    index++;
    if (rest === "" || /^[|>][+-]?$/.test(rest)) {
      // A block list (`- item` lines) or a block scalar (`|` keeps newlines, `>` folds them).
      const block: string[] = [];
      while (
        index < close &&
        (lines[index].text.trim() === "" || /^[ \t]/.test(lines[index].text) ||
          (rest === "" && lines[index].text.startsWith("-")))
      ) {
        block.push(lines[index].text);
        index++;
      }
      fields[key] = rest === "" ? readBlockList(block, lineNo + 1) : readBlockScalar(block, rest);
    } else {
      fields[key] = readInline(rest, lineNo);
    }
    fieldLines[key] = lineNo;
  }
  const bodyStart = lines[close].end;
  return { fields, body: text.slice(bodyStart), bodyLine: close + 2, lines: fieldLines };
}

function readBlockList(block: string[], firstLine: number): FrontmatterValue {
  const items: FrontmatterValue[] = [];
  block.forEach((raw, offset) => {
    if (raw.trim() === "") return;
    const item = /^[ \t]*-(?:[ \t]+(.*)|[ \t]*)$/.exec(raw);
    if (!item) {
      throw new FrontmatterError(firstLine + offset, `expected "- item" in a list, found "${raw}"`);
    }
    items.push(readInline((item[1] ?? "").trim(), firstLine + offset));
  });
  return items.length === 0 && block.every((line) => line.trim() === "") ? null : items;
}

function readBlockScalar(block: string[], style: string): string {
  while (block.length > 0 && block[block.length - 1].trim() === "") block.pop();
  const indent = Math.min(
    ...block.filter((line) => line.trim() !== "").map((line) => /^[ \t]*/.exec(line)![0].length),
  );
  const body = block.map((line) => line.slice(Math.min(indent, line.length)));
  const joined = style.startsWith(">")
    ? body.join("\n").replace(/([^\n])\n(?=[^\n])/g, "$1 ")
    : body.join("\n");
  return style.endsWith("-") ? joined : `${joined}\n`;
}

/** Reads one inline value: quoted, flow list/map, number, boolean, null or plain text. */
function readInline(text: string, line: number): FrontmatterValue {
  if (text.startsWith('"')) return readDoubleQuoted(text, line);
  if (text.startsWith("'")) {
    const match = /^'((?:[^']|'')*)'[ \t]*(?:#.*)?$/.exec(text);
    if (!match) throw new FrontmatterError(line, "an unterminated single-quoted string");
    return match[1].replaceAll("''", "'");
  }
  if (text.startsWith("{") || text.startsWith("[")) {
    try {
      return parseJsonExact(text) as FrontmatterValue;
    } catch {
      if (text.startsWith("[")) return readFlowList(text, line);
      throw new FrontmatterError(line, 'a flow map must be written as JSON ({"key": "value"})');
    }
  }
  const plain = text.replace(/[ \t]+#.*$/, "").trim();
  if (plain === "" || plain === "~" || plain === "null") return null;
  if (plain === "true") return true;
  if (plain === "false") return false;
  if (/^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(plain)) {
    const value = Number(plain);
    // YAML allows `+1`, `.5` and `1.`; JSON spells them `1`, `0.5` and `1`.
    const literal = plain.replace(/^\+/, "").replace(/^(-?)\./, "$10.").replace(/\.(?=$|[eE])/, "");
    // A note is text: a plain scalar a float cannot give back as written (a 20-digit ticket
    // number, an order id) keeps the characters the note holds instead of refusing the note.
    return keepsLiteral(literal, value) ? value : plain;
  }
  return plain;
}

function readDoubleQuoted(text: string, line: number): string {
  const match = /^"((?:[^"\\]|\\.)*)"[ \t]*(?:#.*)?$/.exec(text);
  if (!match) throw new FrontmatterError(line, "an unterminated double-quoted string");
  try {
    // JSON's escapes are a subset of YAML's double-quoted ones; the rest are mapped first.
    const jsonish = match[1].replace(/\\(x[0-9a-fA-F]{2}|[0e ])/g, (_, escape: string) => {
      if (escape === "0") return "\\u0000";
      if (escape === "e") return "\\u001b";
      if (escape === " ") return " ";
      return `\\u00${escape.slice(1)}`;
    }).replace(/\t/g, "\\t");
    return JSON.parse(`"${jsonish}"`) as string;
  } catch {
    throw new FrontmatterError(line, "a double-quoted string with an escape mema cannot read");
  }
}

function readFlowList(text: string, line: number): FrontmatterValue[] {
  if (!/^\[.*\][ \t]*(?:#.*)?$/.test(text)) {
    throw new FrontmatterError(line, "an unterminated [list]");
  }
  const inner = text.slice(1, text.lastIndexOf("]")).trim();
  if (inner === "") return [];
  const items: FrontmatterValue[] = [];
  // Splits on commas outside quotes.
  const parts = inner.match(/\s*(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,]+)/g) ?? [];
  for (const part of parts) {
    const item = part.trim();
    if (item === "") continue;
    if (item.startsWith("[") || item.startsWith("{")) {
      throw new FrontmatterError(line, "nested lists and maps inside a list are not supported");
    }
    items.push(readInline(item, line));
  }
  return items;
}

/**
 * Writes fields as frontmatter (between `---` lines). Strings are always double-quoted with
 * JSON escapes (valid YAML, and no value can be mistaken for a number or a date); lists are
 * flow lists; maps are JSON. Undefined values are left out.
 */
export function renderFrontmatter(fields: Record<string, unknown>): string {
  const lines = ["---"];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    lines.push(`${key}: ${renderValue(value)}`);
  }
  lines.push("---");
  return `${lines.join("\n")}\n`;
}

function renderValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(renderValue).join(", ")}]`;
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  // Numbers, booleans and maps: JSON is valid YAML flow syntax.
  return JSON.stringify(value);
}
