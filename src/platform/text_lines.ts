/**
 * A text file read line by line in bounded memory: fixed-size chunks, split on the newline
 * byte, each line decoded as strict UTF-8 on its own. A file of any size can be read this
 * way; reading one whole fails past V8's longest string (~512 Mi UTF-16 units, so a ~900 MB
 * JSONL export could not be decoded at all, and the failure surfaced as "not UTF-8 text").
 *
 * Splitting on bytes before decoding is safe: in UTF-8 the byte 0x0A is only ever a newline,
 * never part of another character. It also names a bad byte by its line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTextLines } from "./text_lines.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * Deno.writeFileSync(`${dir}/a.txt`, new Uint8Array([0x61, 0x0a, 0xff, 0x0a, 0x62]));
 * const lines = [];
 * for await (const line of readTextLines(`${dir}/a.txt`)) lines.push(line);
 * assert.deepEqual(lines.map((line) => line.text ?? line.error), [
 *   "a",
 *   "not UTF-8 text: byte 0xFF at byte 1 of the line",
 *   "b",
 * ]);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */

/** One line: its text, or why it could not be read (the reader goes on with the next). */
export interface TextLine {
  /** 1-based. */
  line: number;
  text?: string;
  error?: string;
}

/** How a file is read. */
export interface TextLineOptions {
  /** Bytes read at a time (default 1 MiB). */
  chunkBytes?: number;
  /** A longer line is reported, not held (default 64 MiB). */
  maxLineBytes?: number;
  /** Called after each chunk with the bytes read so far (for progress). */
  onBytes?: (read: number) => void;
}

/** Bytes read at a time: large enough that a read costs little, small enough to never matter. */
const DEFAULT_CHUNK_BYTES = 1024 * 1024;

/** The longest line held: well above the largest memory (2 MiB of content, JSON-escaped). */
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** The offset of the first byte that breaks UTF-8 (-1 when none does); messages count from 1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let at = 0; at < bytes.length;) {
    const lead = bytes[at];
    let extra: number;
    let min: number;
    if (lead < 0x80) {
      at++;
      continue;
    } else if (lead >= 0xc2 && lead <= 0xdf) [extra, min] = [1, 0x80];
    else if (lead >= 0xe0 && lead <= 0xef) [extra, min] = [2, 0x800];
    else if (lead >= 0xf0 && lead <= 0xf4) [extra, min] = [3, 0x10000];
    else return at;
    let point = lead & (0x3f >> extra);
    for (let k = 1; k <= extra; k++) {
      const next = bytes[at + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return at;
      point = (point << 6) | (next & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and points past U+10FFFF are not UTF-8 either.
    if (point < min || (point >= 0xd800 && point <= 0xdfff) || point > 0x10ffff) return at;
    at += extra + 1;
  }
  return -1;
}

function joinPieces(pieces: Uint8Array[], size: number): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  const whole = new Uint8Array(size);
  let at = 0;
  for (const piece of pieces) {
    whole.set(piece, at);
    at += piece.length;
  }
  return whole;
}

/**
 * Every line of a file, in order (a last line without a newline included; a trailing `\r`
 * and a first-line byte order mark dropped). Read errors of the file itself (I/O, a
 * vanished file) are thrown; a line that is not UTF-8 or too long comes with `error`.
 */
export async function* readTextLines(
  path: string,
  options: TextLineOptions = {},
): AsyncGenerator<TextLine> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(chunkBytes);
  let pieces: Uint8Array[] = [];
  let size = 0;
  let overlong = false;
  let line = 0;
  let read = 0;
  const finish = (bytes: Uint8Array): TextLine => {
    line++;
    if (overlong) return { line, error: `the line is longer than ${maxLineBytes} bytes` };
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 0x0d) end--;
    let start = 0;
    if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    const body = bytes.subarray(start, end);
    try {
      return { line, text: decoder.decode(body) };
    } catch {
      const at = firstInvalidUtf8(body);
      const byte = body[at]?.toString(16).toUpperCase().padStart(2, "0") ?? "?";
      return {
        line,
        error: `not UTF-8 text: byte 0x${byte} at byte ${at + start + 1} of the line`,
      };
    }
  };
  try {
    for (;;) {
      const count = await file.read(buffer);
      if (count === null) break;
      read += count;
      const chunk = buffer.subarray(0, count);
      let from = 0;
      for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, from)) {
        const tail = chunk.subarray(from, newline);
        if (!overlong && size + tail.length > maxLineBytes) overlong = true;
        if (!overlong) pieces.push(tail);
        // The chunk buffer is reused: a line is decoded before the next read.
        yield finish(joinPieces(pieces, size + tail.length));
        [pieces, size, overlong] = [[], 0, false];
        from = newline + 1;
      }
      if (from < count) {
        const rest = chunk.subarray(from);
        if (!overlong && size + rest.length > maxLineBytes) [overlong, pieces] = [true, []];
        // Kept across reads: a copy, since the buffer is read into again.
        if (!overlong) pieces.push(rest.slice());
        size += rest.length;
      }
      options.onBytes?.(read);
    }
    if (size > 0 || overlong) yield finish(joinPieces(pieces, size));
  } finally {
    file.close();
  }
}

/**
 * A whole file's bytes as strict UTF-8 text, or where it stops being UTF-8: the 1-based line
 * and the byte that breaks it (a note is small; a large export goes through
 * {@linkcode readTextLines}).
 */
export function decodeUtf8Text(
  bytes: Uint8Array,
): { text: string } | { line: number; error: string } {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch (error) {
    const at = firstInvalidUtf8(bytes);
    // Valid bytes that still do not decode: a text longer than the runtime's longest string.
    if (at < 0) return { line: 1, error: `cannot decode: ${(error as Error).message}` };
    let line = 1;
    let lineStart = 0;
    for (let k = bytes.indexOf(0x0a); k >= 0 && k < at; k = bytes.indexOf(0x0a, k + 1)) {
      line++;
      lineStart = k + 1;
    }
    const byte = bytes[at].toString(16).toUpperCase().padStart(2, "0");
    return {
      line,
      error: `not UTF-8 text: byte 0x${byte} at byte ${at - lineStart + 1} of the line`,
    };
  }
}
