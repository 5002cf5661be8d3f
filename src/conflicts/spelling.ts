/**
 * One word spelled three ways: "lower case", "lowercase", "lower-cased". The reader's stemmer
 * joins a hyphenated word and strips its inflection ("lower-cased" reads as "lowercase" does);
 * what it cannot see alone is a word written as two ("lower case"), which only the other row
 * tells apart from two words. Two README versions of one package said "parameter name is always
 * lower case" and "the name of the parameter will be lower-cased", and the rule stage read two
 * values of one attribute. Here the pair is read together: two neighbouring words whose joined
 * form is a word of the other row become that word; and two values as written compare by the
 * same joined, stemmed form. Nothing else is equated: "enabled" / "disabled", "lower case" /
 * "upper case" and "v1" / "v2" stay different values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sameSpelling } from "./spelling.ts";
 *
 * assert.equal(sameSpelling("lower case", "lower-cased"), true);
 * assert.equal(sameSpelling("lower case", "upper case"), false);
 * ```
 * @module
 */
import { type SentenceShape, stem, VALUE_SLOT } from "./sentence.ts";

const LETTERS = /^[a-z]+(?:-[a-z]+)*$/;

/** The joined form of words as written: lower case, no spaces or hyphens, stemmed. */
function joinedForm(words: readonly string[]): string | undefined {
  const lower = words.map((word) => word.toLowerCase());
  if (lower.length === 0 || !lower.every((word) => LETTERS.test(word))) return undefined;
  return stem(lower.join("").replace(/-/g, ""));
}

/**
 * True when two values as written are one word spelled two ways: the same letters once spaces
 * and hyphens are taken out, up to a regular inflection ("lower case" = "lowercased" =
 * "lower-cased"). Values with digits or other signs are never equated here.
 */
export function sameSpelling(a: string, b: string): boolean {
  const left = joinedForm(a.trim().split(/\s+/));
  return left !== undefined && left === joinedForm(b.trim().split(/\s+/));
}

/** A word the joining may take: a plain word, not a value, an attribute family or a state. */
function joinable(shape: SentenceShape, i: number): boolean {
  const word = shape.words[i];
  return word !== VALUE_SLOT && !word.startsWith("@") && LETTERS.test(shape.surface[i]) &&
    word === stem(shape.surface[i].replace(/-/g, ""));
}

/**
 * `shape` with each two neighbouring words whose joined form is a word of `other` that `own`
 * (the content words of `shape`) lacks read as that one word; `shape` itself when there is
 * none. The words must stand side by side in `text` (one space or hyphen apart), so "lower the
 * case" stays apart.
 */
export function joinSplitWords(
  shape: SentenceShape,
  sets: { own: ReadonlySet<string>; other: ReadonlySet<string> },
  text: string,
): SentenceShape {
  const { own, other } = sets;
  // Only a word of the other row that this row lacks can be a join of two of this row's words;
  // the rule stage compares every neighbour row, and most pairs stop here.
  const missing: string[] = [];
  for (const word of other) if (word.length >= 4 && !own.has(word)) missing.push(word);
  if (missing.length === 0) return shape;
  let joined: { words: string[]; surface: string[]; attached: boolean[] } | undefined;
  let lower: string | undefined;
  for (let i = 0; i < shape.words.length; i++) {
    const next = i + 1;
    const head = shape.words[i].slice(0, 2);
    const form = next < shape.words.length &&
        missing.some((word) => word.startsWith(head) && word.length > shape.words[i].length) &&
        !(other.has(shape.words[i]) && other.has(shape.words[next])) &&
        joinable(shape, i) && joinable(shape, next)
      ? joinedForm([shape.surface[i], shape.surface[next]])
      : undefined;
    if (
      form !== undefined && other.has(form) &&
      new RegExp(`\\b${shape.surface[i]}[\\s-]${shape.surface[next]}\\b`).test(
        lower ??= text.toLowerCase(),
      )
    ) {
      joined ??= {
        words: shape.words.slice(0, i),
        surface: shape.surface.slice(0, i),
        attached: shape.attached.slice(0, i),
      };
      joined.words.push(form);
      joined.surface.push(`${shape.surface[i]} ${shape.surface[next]}`);
      joined.attached.push(shape.attached[i] || shape.attached[next]);
      i = next;
      continue;
    }
    if (joined) {
      joined.words.push(shape.words[i]);
      joined.surface.push(shape.surface[i]);
      joined.attached.push(shape.attached[i]);
    }
  }
  return joined ? { ...shape, ...joined } : shape;
}
