/**
 * Normalization of what agents send: tags, times and sizes, and the refusal
 * of text that could not be stored verbatim.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkVerbatimValue, normalizeTags, normalizeTime } from "./normalize.ts";
 *
 * assert.deepEqual(normalizeTags(["Todo", " todo ", "Project X"], "tags"), ["todo", "project x"]);
 * assert.equal(normalizeTime("2025-03-01", "event_time"), "2025-03-01T00:00:00.000Z");
 * checkVerbatimValue({ origin: "chat" }, "metadata"); // fine
 * assert.throws(() => checkVerbatimValue({ origin: "a\u0000b" }, "metadata"));
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { InexactNumber } from "./exact_json.ts";
import {
  CONTENT_MAX_BYTES,
  METADATA_MAX_DEPTH,
  TAG_MAX_CHARS,
  TAGS_MAX_PER_MEMORY,
} from "./limits.ts";

const encoder = new TextEncoder();

/** UTF-8 byte length of a string. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** The UTF-16 offset of the first lone surrogate in `text`, or -1 when it is well formed. */
function loneSurrogateAt(text: string): number {
  if (text.isWellFormed()) return -1;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    return i;
  }
  return -1;
}

/**
 * Refuses text mema could not give back exactly: NUL (SQLite's text functions
 * and the full-text index stop at it, so the tail would be lost after the
 * write was acknowledged) and lone UTF-16 surrogates (not Unicode text; the
 * UTF-8 database would store U+FFFD, so two different inputs would become one).
 * The error names the field and the UTF-16 offset. `key` marks text that is
 * an object key inside `field` rather than its value.
 */
export function checkVerbatimText(
  text: string,
  field: string,
  options: { key?: boolean } = {},
): void {
  const what = options.key ? `a key in ${field}` : field;
  const nul = text.indexOf("\u0000");
  const lone = loneSurrogateAt(text);
  if (nul < 0 && lone < 0) return;
  if (nul >= 0 && (lone < 0 || nul < lone)) {
    throw new MemaError(
      "invalid_input",
      `${what} contains a NUL character (U+0000) at offset ${nul}; mema stores text verbatim and cannot keep NUL`,
      {
        field,
        details: { offset: nul, code_unit: "U+0000" },
        hint: "remove the NUL characters, or encode binary data (for example as base64) first",
      },
    );
  }
  const unit = `U+${text.charCodeAt(lone).toString(16).toUpperCase()}`;
  throw new MemaError(
    "invalid_input",
    `${what} contains a lone UTF-16 surrogate (${unit}) at offset ${lone}: it is not valid Unicode text and cannot be stored verbatim`,
    {
      field,
      details: { offset: lone, code_unit: unit },
      hint: "send the whole surrogate pair, or remove the stray half",
    },
  );
}

/**
 * Refuses a number mema could not give back as it was sent: a literal a 64-bit float does not
 * hold exactly (marked by `parseJsonExact` where the raw JSON was seen), Infinity and NaN
 * (JSON has no such numbers: stored as null) and -0 (JSON gives it back as 0).
 */
function checkExactNumber(value: number | InexactNumber, field: string): void {
  const marked = value instanceof InexactNumber
    ? value
    : Number.isFinite(value) && !Object.is(value, -0)
    ? undefined
    : new InexactNumber(String(value), value);
  if (marked === undefined) return;
  throw new MemaError(
    "invalid_input",
    `${field} is the number ${marked.literal}, which ${marked.problem}`,
    {
      field,
      details: { literal: marked.literal },
      hint:
        'send it as a string (for example an id or amount written "9007199254740993") to keep every digit, or round it yourself',
    },
  );
}

/**
 * Checks every string (object keys included) inside `value` with
 * {@linkcode checkVerbatimText}, naming each by its path under `field`
 * (`metadata.origin.path`, `patches.1.new_text`), and refuses objects and
 * arrays nested deeper than {@linkcode METADATA_MAX_DEPTH} levels.
 */
export function checkVerbatimValue(value: unknown, field: string): void {
  // Iterative, so a value nested a million levels deep cannot exhaust the stack.
  const stack: { value: unknown; path: string; depth: number; key?: [string, string] }[] = [
    { value, path: field, depth: 0 },
  ];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.key) checkVerbatimText(item.key[0], item.key[1], { key: true });
    if (typeof item.value === "string") {
      checkVerbatimText(item.value, item.path);
      continue;
    }
    if (typeof item.value === "number" || item.value instanceof InexactNumber) {
      checkExactNumber(item.value, item.path);
      continue;
    }
    if (item.value === null || typeof item.value !== "object") continue;
    const depth = item.depth + 1;
    if (depth > METADATA_MAX_DEPTH) {
      throw new MemaError(
        "invalid_input",
        `${field} is nested more than ${METADATA_MAX_DEPTH} levels deep (objects and arrays)`,
        {
          field,
          details: { max_depth: METADATA_MAX_DEPTH },
          hint: "flatten it: use dotted or path-like keys instead of deeper objects",
        },
      );
    }
    const isArray = Array.isArray(item.value);
    const entries = isArray
      ? (item.value as unknown[]).map((inner, index) => [String(index), inner] as const)
      : Object.entries(item.value);
    // Pushed in reverse so the first bad string in document order is the one reported.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, inner] = entries[i];
      stack.push({
        value: inner,
        path: `${item.path}.${key}`,
        depth,
        key: isArray ? undefined : [key, item.path],
      });
    }
  }
}

/**
 * Throws `invalid_input` when content cannot be stored verbatim
 * ({@linkcode checkVerbatimText}) and `resource_limit_exceeded` when it is
 * over 2 MiB.
 */
export function checkContentSize(content: string, field: string): void {
  checkVerbatimText(content, field);
  // Fast path: UTF-8 needs at most 3 bytes per UTF-16 unit.
  if (content.length * 3 <= CONTENT_MAX_BYTES) return;
  const bytes = utf8Bytes(content);
  if (bytes > CONTENT_MAX_BYTES) {
    throw new MemaError(
      "resource_limit_exceeded",
      `${field} is ${bytes} bytes; the limit is ${CONTENT_MAX_BYTES} bytes (2 MiB)`,
      {
        field,
        details: { actual_bytes: bytes, max_bytes: CONTENT_MAX_BYTES },
        hint: "split the text into several memories (for example one per section)",
      },
    );
  }
}

/** Tags compare case-insensitively: NFKC, trimmed, lower case, inner spaces collapsed. */
export function normalizeTag(tag: string): string {
  return tag.normalize("NFKC").trim().toLowerCase().replace(/\s+/g, " ");
}

/** Normalizes, de-duplicates and bounds a tag list; `field` names it in errors. */
export function normalizeTags(tags: readonly string[], field: string): string[] {
  const seen = new Set<string>();
  tags.forEach((raw, index) => {
    checkVerbatimText(raw, `${field}.${index}`);
    const tag = normalizeTag(raw);
    if (tag === "") {
      throw new MemaError("invalid_input", `tag ${index} is empty`, { field: `${field}.${index}` });
    }
    if (tag.length > TAG_MAX_CHARS) {
      throw new MemaError(
        "invalid_input",
        `tag ${index} has ${tag.length} characters; the limit is ${TAG_MAX_CHARS}`,
        { field: `${field}.${index}` },
      );
    }
    seen.add(tag);
  });
  if (seen.size > TAGS_MAX_PER_MEMORY) {
    throw new MemaError(
      "resource_limit_exceeded",
      `${seen.size} distinct tags; a memory holds at most ${TAGS_MAX_PER_MEMORY}`,
      { field, details: { actual: seen.size, max: TAGS_MAX_PER_MEMORY } },
    );
  }
  return [...seen];
}

const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses an ISO 8601 date or date-time into UTC ISO form. A date alone means
 * midnight UTC; a date-time without an offset is read as UTC.
 */
export function normalizeTime(value: string, field: string): string {
  const text = value.trim();
  if (!ISO_8601.test(text)) {
    throw new MemaError("invalid_input", `${field} must be an ISO 8601 date or date-time`, {
      field,
      hint: 'for example "2025-03-14" or "2025-03-14T09:30:00Z"',
    });
  }
  let normalized = text.replace(" ", "T");
  if (/^\d{4}-\d{2}-\d{2}$/.test(normalized)) normalized += "T00:00:00Z";
  else if (!/(?:Z|[+-]\d{2}:?\d{2})$/i.test(normalized)) normalized += "Z";
  const ms = Date.parse(normalized);
  const [year, month, day] = text.slice(0, 10).split("-").map(Number);
  if (Number.isNaN(ms) || month < 1 || month > 12 || day < 1 || day > 31 || year < 1) {
    throw new MemaError("invalid_input", `${field} is not a real date: "${value}"`, { field });
  }
  return new Date(ms).toISOString();
}
