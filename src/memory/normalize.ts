/**
 * Normalization of what agents send: tags, times and sizes.
 *
 * @example
 * ```ts
 * import { normalizeTags, normalizeTime } from "./src/memory/normalize.ts";
 * normalizeTags(["Todo", " todo ", "Project X"], "tags"); // ["todo", "project x"]
 * normalizeTime("2025-03-01", "event_time"); // "2025-03-01T00:00:00.000Z"
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { CONTENT_MAX_BYTES, TAG_MAX_CHARS, TAGS_MAX_PER_MEMORY } from "./limits.ts";

const encoder = new TextEncoder();

/** UTF-8 byte length of a string. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** Throws `resource_limit_exceeded` when content is over 2 MiB. */
export function checkContentSize(content: string, field: string): void {
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
