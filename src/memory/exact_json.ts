/**
 * JSON parsing that notices numbers it cannot keep. `JSON.parse` turns every number into a
 * 64-bit float without a word: `9007199254740993` becomes `…992`, `1e400` becomes Infinity
 * (stored as null), `-0` comes back as `0`. {@linkcode parseJsonExact} reads the literal each
 * number was written as and, where the float does not give it back, puts an
 * {@linkcode InexactNumber} in its place, which the write path refuses naming the field
 * (`checkVerbatimValue` in `normalize.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InexactNumber, parseJsonExact } from "./exact_json.ts";
 *
 * const parsed = parseJsonExact('{"a": 0.1, "b": 9007199254740993}') as Record<string, unknown>;
 * assert.equal(parsed.a, 0.1); // a float gives 0.1 back as written
 * assert.ok(parsed.b instanceof InexactNumber); // …but not 9007199254740993
 * ```
 * @module
 */

/** A JSON number literal that a 64-bit float cannot give back as written. */
export class InexactNumber {
  constructor(
    /** The literal as it was written. */
    readonly literal: string,
    /** What `JSON.parse` made of it. */
    readonly value: number,
  ) {}

  /** Why it cannot be kept, completing "the number <literal>, which …". */
  get problem(): string {
    if (!Number.isFinite(this.value)) {
      return "is beyond what a JSON number (a 64-bit float) holds and would be stored as null";
    }
    if (Object.is(this.value, -0)) return "JSON gives back as 0";
    return `has more digits than a JSON number (a 64-bit float) holds and would come back as ${
      String(this.value)
    }`;
  }
}

const LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A decimal in one canonical form (`-digits e exponent`, no leading or trailing zeros). */
function canonicalDecimal(text: string): string | undefined {
  const match = LITERAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  let digits = (whole + fraction).replace(/^0+/, "");
  if (digits === "") return "0";
  let power = Number(exponent) - fraction.length;
  const kept = digits.replace(/0+$/, "");
  power += digits.length - kept.length;
  digits = kept;
  return `${sign}${digits}e${power}`;
}

/** True when the float `value` is exactly the decimal `literal` was written as. */
export function keepsLiteral(literal: string, value: number): boolean {
  if (!Number.isFinite(value) || Object.is(value, -0)) return false;
  // Number→String gives the shortest decimal that reads back as the same float: when that
  // decimal equals the literal, the literal comes back as written (1.0 and 1e2 count as 1 and
  // 100: the same number written another way).
  return canonicalDecimal(literal) === canonicalDecimal(String(value));
}

/**
 * True when `value` holds a number whose literal may not have come back as written: only a
 * safe integer other than 0 is surely exact (0 may have been `-0` or `1e-400`; a fraction may
 * have had more digits than were kept).
 */
function hasDoubtfulNumber(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === "number") {
      if (node === 0 || !Number.isSafeInteger(node)) return true;
    } else if (node !== null && typeof node === "object") {
      for (const inner of Object.values(node)) stack.push(inner);
    }
  }
  return false;
}

/**
 * Parses JSON like `JSON.parse` (and throws as it does), with each number that would not
 * come back as written replaced by an {@linkcode InexactNumber}. The literals are read
 * (a second parse, with a reviver) only when a parsed number leaves doubt. A reviver
 * recurses once per level, so text nested beyond the stack keeps the plain parse: its
 * numbers go unchecked, and the write path refuses anything nested that deep anyway.
 */
export function parseJsonExact(text: string): unknown {
  const plain = JSON.parse(text);
  if (!hasDoubtfulNumber(plain)) return plain;
  try {
    return JSON.parse(text, (_key, value, context?: { source?: string }) => {
      if (typeof value !== "number" || context?.source === undefined) return value;
      return keepsLiteral(context.source, value) ? value : new InexactNumber(context.source, value);
    });
  } catch (error) {
    if (error instanceof RangeError) return plain;
    throw error;
  }
}

/** Puts the parsed numbers back in place of every {@linkcode InexactNumber} in `value`. */
export function releaseInexact(value: unknown): unknown {
  if (value instanceof InexactNumber) return value.value;
  // Iterative: a frame may nest deeply, and the stack must not overflow on it.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    for (const key of Object.keys(node)) {
      const inner = (node as Record<string, unknown>)[key];
      if (inner instanceof InexactNumber) {
        // defineProperty, not assignment: a key named "__proto__" stays a plain key.
        Object.defineProperty(node, key, {
          value: inner.value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else if (inner !== null && typeof inner === "object") {
        stack.push(inner);
      }
    }
  }
  return value;
}
