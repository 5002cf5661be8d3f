/**
 * Word tokens of any script, shared by recall (query terms) and the store (the
 * full-text index's own tokens): runs of letters and digits are words, runs of
 * CJK characters (which have no spaces) are their own tokens, and common
 * function words can be dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { textTokens } from "./words.ts";
 *
 * assert.deepEqual(textTokens("Where is the 部署脚本?"), ["where", "is", "the", "部署脚本"]);
 * ```
 * @module
 */

const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}";
const TOKEN = new RegExp(`[${CJK}]+|[\\p{L}\\p{N}\\p{M}]+(?:['’][\\p{L}]+)?`, "gu");
const CJK_ONLY = new RegExp(`^[${CJK}]+$`, "u");

/**
 * Function words that carry no topic. Kept short on purpose: dropping a real
 * word loses recall, keeping a function word only costs ranking noise.
 */
export const STOPWORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "been",
  "but",
  "by",
  "can",
  "could",
  "did",
  "do",
  "does",
  "for",
  "from",
  "had",
  "has",
  "have",
  "how",
  "i",
  "if",
  "in",
  "into",
  "is",
  "it",
  "its",
  "me",
  "my",
  "of",
  "on",
  "or",
  "our",
  "so",
  "that",
  "the",
  "their",
  "them",
  "then",
  "there",
  "these",
  "they",
  "this",
  "to",
  "was",
  "we",
  "were",
  "what",
  "when",
  "where",
  "which",
  "who",
  "whom",
  "why",
  "will",
  "with",
  "would",
  "you",
  "your",
  "he",
  "him",
  "his",
  "she",
  "her",
  "hers",
  "us",
  "i'm",
  "i've",
  "i'll",
  "i'd",
  "i’m",
  "i’ve",
  "i’ll",
  "i’d",
  "about",
  "any",
  "some",
  "s",
  "t",
  "的",
  "了",
  "是",
  "在",
  "和",
  "吗",
  "呢",
  "吧",
  "啊",
]);

/** True for the function words queries drop. */
export function isStopword(token: string): boolean {
  return STOPWORDS.has(token);
}

/** True when the token is written in a CJK script. */
export function isCjk(token: string): boolean {
  return CJK_ONLY.test(token);
}

/** Lower-cased, NFKC-normalized word and CJK-run tokens of `text`, in order. */
export function textTokens(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(TOKEN) ?? [];
}
