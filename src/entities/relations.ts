/**
 * Relations read from plain wording (issue 35): "X depends on Y", "X uses Y", "X is owned by
 * Y" (and "Y owns X"), "X reports to Y", "X is part of Y", and their Chinese equivalents (依赖,
 * 使用, 负责 / 由…负责, 属于, 向…汇报). The ends are the nearest names extract.ts found within
 * the clause; when only one end is a name, the other is the short noun phrase beside the
 * words ("depends on the cart service"), never a pronoun. Without a name at either end nothing
 * is read: "everything depends on the weather" is not a fact about anything mema knows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { extractMentions } from "./extract.ts";
 * import { readRelations } from "./relations.ts";
 *
 * const text = "The Payments API depends on PostgreSQL. Bob reports to Carol Diaz.";
 * const { relations } = readRelations(text, extractMentions(text).mentions);
 * assert.deepEqual(relations.map((r) => [r.from.words, r.type, r.to.words]), [
 *   ["Payments API", "depends_on", "PostgreSQL"],
 *   ["Bob", "reports_to", "Carol Diaz"],
 * ]);
 * ```
 * @module
 */
import {
  ENTITY_RELATIONS_MAX,
  ENTITY_TEXT_MAX_CHARS,
  RELATION_REACH_AFTER,
  RELATION_REACH_BEFORE,
} from "./constants.ts";
import type { EntityKind, Mention } from "./extract.ts";

/** A relation read from the text, between two of its names. */
export interface ReadRelation {
  from: Mention;
  type: string;
  to: Mention;
}

/** The wording of each relation; `reversed`: the words put the owner first ("Alice owns X"). */
const CUES: readonly { pattern: RegExp; type: string; reversed?: boolean }[] = [
  {
    pattern:
      /\b(?:depends|depend|depended|is dependent|are dependent) on\b|\brel(?:ies|y|ied) on\b/giu,
    type: "depends_on",
  },
  { pattern: /依赖于?|依靠/gu, type: "depends_on" },
  {
    pattern:
      /\b(?:uses|is using|are using|used|runs on|run on|is built on|is built with|talks to|calls)\b/giu,
    type: "uses",
  },
  { pattern: /使用|采用|基于|调用/gu, type: "uses" },
  {
    pattern: /\b(?:is |are |was |were )?(?:owned|maintained|managed|run) by\b/giu,
    type: "owned_by",
  },
  { pattern: /由(?=[^。，,.；;]{1,16}负责)/gu, type: "owned_by" },
  {
    pattern:
      /\b(?:owns|own|owned|maintains|maintain|manages|is responsible for|are responsible for|leads)\b/giu,
    type: "owned_by",
    reversed: true,
  },
  { pattern: /负责(?!人)/gu, type: "owned_by", reversed: true },
  { pattern: /\breports? to\b|\breported to\b|\bworks? (?:for|under)\b/giu, type: "reports_to" },
  { pattern: /向(?=[^。，,.；;]{1,12}汇报)|汇报给/gu, type: "reports_to" },
  {
    pattern:
      /\b(?:is|are|was|were) (?:a |an )?part of\b|\bbelongs? to\b|\b(?:is|are) (?:a |an )?members? of\b|\bworks? in\b/giu,
    type: "part_of",
  },
  { pattern: /属于|隶属于?|是(?=[^。，,.；;]{1,12}的一部分)/gu, type: "part_of" },
];

const PRONOUNS = new Set(
  `i me we us you he him she her it they them this that these those which who whom what there
  here one everything everyone something someone anything anyone nothing nobody all each both
  either neither 我 你 他 她 它 我们 你们 他们 她们 它们 这 那 这个 那个`.split(/\s+/u),
);
const DETERMINERS = /^(?:the|a|an|our|their|its|his|her|my|your|this|that|these|those) /iu;
const PHRASE_STOP =
  /\b(?:and|but|which|that|who|for|to|in|on|at|with|because|since|when|so|as|if|than|from|by|of|via|while|until|after|before)\b/iu;
const CLAUSE_END = /[.!?;。！？；\n]/u;
const HAN_RUN = /[\p{Script=Han}]/u;

/**
 * Reads the relations of `text` between `mentions` (from extractMentions; versions stand for
 * what they version). Resolves also with the phrase ends it had to make, as mentions.
 */
export function readRelations(
  text: string,
  mentions: readonly Mention[],
): { relations: ReadRelation[]; phrases: Mention[] } {
  const source = text.length > ENTITY_TEXT_MAX_CHARS ? text.slice(0, ENTITY_TEXT_MAX_CHARS) : text;
  const names = mentions.filter((m) => m.kind !== "version" && m.kind !== "url");
  const relations: ReadRelation[] = [];
  const phrases: Mention[] = [];
  const seen = new Set<string>();
  for (const cue of CUES) {
    for (const match of source.matchAll(cue.pattern)) {
      const cueStart = match.index;
      const cueEnd = match.index + match[0].length;
      const before = nameBefore(source, names, cueStart) ?? phraseBefore(source, cueStart);
      const after = nameAfter(source, names, cueEnd) ?? phraseAfter(source, cueEnd);
      if (before === undefined || after === undefined) continue;
      if (!names.includes(before) && !names.includes(after)) continue;
      if (before.words === after.words) continue;
      for (const end of [before, after]) if (!names.includes(end)) phrases.push(end);
      const [from, to] = cue.reversed ? [after, before] : [before, after];
      if (cue.type === "reports_to") {
        for (const end of [from, to]) if (end.kind === "name") end.kind = "person";
      }
      const key = `${from.words}\u0000${cue.type}\u0000${to.words}`;
      if (seen.has(key)) continue;
      seen.add(key);
      relations.push({ from, type: cue.type, to });
      if (relations.length >= ENTITY_RELATIONS_MAX) return { relations, phrases };
    }
  }
  relations.sort((a, b) => Math.min(a.from.start, a.to.start) - Math.min(b.from.start, b.to.start));
  return { relations, phrases };
}

function nameBefore(source: string, names: readonly Mention[], at: number): Mention | undefined {
  let best: Mention | undefined;
  for (const name of names) {
    if (name.end > at || at - name.end > RELATION_REACH_BEFORE) continue;
    if (CLAUSE_END.test(source.slice(name.end, at))) continue;
    if (best === undefined || name.end > best.end) best = name;
  }
  return best;
}

function nameAfter(source: string, names: readonly Mention[], at: number): Mention | undefined {
  let best: Mention | undefined;
  for (const name of names) {
    if (name.start < at || name.start - at > RELATION_REACH_AFTER) continue;
    const between = source.slice(at, name.start);
    if (CLAUSE_END.test(between) || /,/u.test(between)) continue;
    // A name further on stands behind other words ("uses it with Redis"): only determiners.
    if (
      !/^[\s\p{Script=Han}]*$|^\s*(?:the|a|an|our|their|its|his|her|my|your)?\s*$/iu.test(between)
    ) {
      continue;
    }
    if (best === undefined || name.start < best.start) best = name;
  }
  return best;
}

function phraseBefore(source: string, at: number): Mention | undefined {
  if (HAN_RUN.test(source[at - 1] ?? "")) return hanPhrase(source, at, -1);
  const head = source.slice(Math.max(0, at - RELATION_REACH_BEFORE), at);
  const clause = head.split(/[.!?;,:\n()。，；：！？、]/u).at(-1)!.replace(/\s+$/u, "");
  const words = clause.trim().split(/\s+/u).filter(Boolean);
  let cut = words.length;
  for (let i = words.length - 1; i >= 0; i--) {
    if (PHRASE_STOP.test(words[i]) || words.length - i > 3) break;
    cut = i;
  }
  const phrase = words.slice(cut).join(" ").replace(DETERMINERS, "");
  return plainPhrase(phrase, at - (clause.length - clause.lastIndexOf(phrase)) - 0, source);
}

function phraseAfter(source: string, at: number): Mention | undefined {
  if (HAN_RUN.test(source[at] ?? "")) return hanPhrase(source, at, 1);
  const tail = source.slice(at, at + RELATION_REACH_AFTER + 20);
  const clause = tail.split(/[.!?;,:\n()。，；：！？、]/u)[0];
  const words = clause.trim().replace(DETERMINERS, "").split(/\s+/u).filter(Boolean);
  const kept: string[] = [];
  for (const word of words) {
    if (PHRASE_STOP.test(word) || kept.length === 4) break;
    kept.push(word);
  }
  const phrase = kept.join(" ");
  return plainPhrase(phrase, at + tail.indexOf(phrase), source);
}

function plainPhrase(phrase: string, start: number, source: string): Mention | undefined {
  if (phrase.length < 2 || !/\p{L}/u.test(phrase) || PRONOUNS.has(phrase.toLowerCase())) {
    return undefined;
  }
  // A verb phrase is not a thing ("is slow", "was down").
  if (/^(?:is|are|was|were|be|been|not|no|very|too|also)\b/iu.test(phrase)) return undefined;
  const at = source.indexOf(phrase, Math.max(0, start - 2));
  return { words: phrase, kind: phraseKind(phrase), start: at, end: at + phrase.length };
}

function hanPhrase(source: string, at: number, direction: 1 | -1): Mention | undefined {
  let start = at;
  let end = at;
  const stop = /[的是在和与了把被由对从向给将也都就还及或很]/u;
  if (direction === 1) {
    while (
      end < source.length && end - at < 8 && HAN_RUN.test(source[end]) && !stop.test(source[end])
    ) end++;
  } else {
    while (
      start > 0 && at - start < 8 && HAN_RUN.test(source[start - 1]) &&
      !stop.test(source[start - 1])
    ) start--;
  }
  const words = source.slice(start, end);
  if (words.length < 2 || PRONOUNS.has(words)) return undefined;
  return { words, kind: "name", start, end };
}

function phraseKind(phrase: string): EntityKind {
  const last = phrase.split(/\s+/u).at(-1)!.toLowerCase();
  if (/^(?:service|api|server|gateway|database|db|queue|cache|cluster)$/u.test(last)) {
    return "service";
  }
  if (/^(?:team|squad|group|department)$/u.test(last)) return "team";
  if (last === "project") return "project";
  return "name";
}
