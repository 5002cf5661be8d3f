/**
 * Which rows state a fact at all. A conflict needs two claims; chat is mostly not
 * claims: questions ("how's it going?"), exclamations ("Cool!", "That looks great!"),
 * descriptions of shared photos ("[shared a photo: …]"), words addressed to the listener
 * ("your support means a lot"), exhortations and possibilities ("let's keep going",
 * "blogging can make a difference"), rows whose subject is a bare pronoun ("it brings me
 * joy"), and
 * turns prefixed with the speaker's name or ending with the listener's, whose label is shared by every turn of that
 * speaker and made unrelated turns look like one attribute with two values (LoCoMo
 * stored turn by turn: 384 suspect pairs per 100 turns before these checks).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readClaim } from "./claims.ts";
 *
 * assert.equal(readClaim("Gina: The store opens at 9.").text, "The store opens at 9.");
 * assert.equal(readClaim("Jon: How's it going?").notAClaim, "a question states no fact");
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import { CLAIM_MIN_WORDS, CLAIM_READS_KEPT } from "./constants.ts";

/** A row's text ready for the rule stage, or why it states no fact. */
export interface Claim {
  text: string;
  notAClaim?: string;
}

/** "Gina: …", "Dr. Lee: …": a name of one or two capitalized words and a colon. */
const SPEAKER_LABEL =
  /^\s*(?:\p{Lu}[\p{L}\p{M}\p{N}'’.-]{0,30}\s){0,2}\p{Lu}[\p{L}\p{M}\p{N}'’.-]{0,30}:\s+/u;
/** "…, Maria." / "…, Dr. Lee!": the person spoken to, after a comma at the end. */
const VOCATIVE = /,\s*(?:\p{Lu}[\p{L}\p{M}\p{N}'’.-]{0,30}\s?){1,2}([.!?？！]?)\s*$/u;
const QUESTION_END = /[?？]\s*["')\]]*\s*$/u;
const EXCLAMATION_END = /[!！]\s*["')\]]*\s*$/u;
/** Words addressed to the listener ("your support means a lot"): conversation, not a record. */
const SECOND_PERSON = /\b(?:you|your|yours|yourself|you're|you've|you'll|you'd|ya)\b/iu;
/**
 * "Yeah, …", "Hey Maria, …", "Wow, …": an opening word of conversation, not content. "No" and
 * "nope" only with their comma or stop ("No, …"): without one, "no" denies the words after it
 * ("No need for native code compilation" is "doesn't need" in iconv-lite's README).
 */
const INTERJECTION =
  /^\s*(?:(?:(?:yeah|yes|yep|oh|wow|hey|hi|hello|well|so|ok|okay|sure|ha|haha|aw|aww|hmm|um|uh)\b(?:\s+\p{Lu}[\p{L}\p{M}\p{N}'’-]*)?[,!.]?|(?:no|nope)\b(?:\s+\p{Lu}[\p{L}\p{M}\p{N}'’-]*)?[,!.])\s+)+/iu;
/**
 * A row whose subject is a bare pronoun ("It brings me so much happiness", "They've become
 * like family") names nothing: two such rows cannot be known to speak of the same thing.
 */
const PRONOUN_SUBJECT =
  /^\s*(?:it|it's|its|(?:this|that|these|those)(?!\s+(?:days?|weeks?|months?|years?|mornings?|evenings?|weekends?|times?|summer|winter|spring|autumn|fall)\b)|that's|they|they're|they've|he|he's|she|she's|here's|there's|there|something|everything)\b/iu;
/** "Let's make a difference": an exhortation, not a statement. */
const EXHORTATION = /^\s*let(?:'|’)?s\b|^\s*let us\b/iu;
/**
 * "Blogging can really make a difference", "I'm gonna keep going": what could or will be
 * tried, not what is. Lower case only, so the month "May" stays a date.
 */
const POSSIBILITY = /\b(?:can|could|might|may|gonna|wanna)\b/u;
/**
 * "may be stored", "cannot be redistributed", "can create 3 boards": a permission, a rule or a
 * limit, which is a claim.
 */
const PERMISSION =
  /\b(?:may not|must not|cannot|can not)\s+\p{L}+|\b(?:may|can|cannot)\s+(?:not\s+)?(?:be\s+(?:found|reached)\b|be\s+(?!extended|changed|moved|increased|raised|renewed|adjusted|updated)\p{L}+(?:ed|en)|be\s+(?:left|kept|held|sent|set|put|brought|bought|sold|built|shut|read|run)\b|(?:be|have|hold|store|take)\s+(?:up to|at most|no more than)|(?:now\s+|only\s+)?\p{L}+(?:\s+\p{L}+)?\s+(?:up to\s+|at most\s+|no more than\s+)?(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty|fifty|hundred)\s))/u;
/** "Up to 5,000 jobs can wait in the queue": an amount bounded before the verb is a limit. */
const STATED_LIMIT =
  /\b(?:up to|at most|no more than|at least|a maximum of|a minimum of)\s+(?:\d|[$€£¥])/iu;
/** "There are 11 engineers on the team": a count, not a pronoun subject. */
const THERE_COUNT = /^\s*there\s+(?:is|are|was|were)\s+(?:\d|no\b|only\b)/iu;
/**
 * "They raised the price to €95": a pronoun subject that names a change to an amount still
 * reports one.
 */
const NAMED_CHANGE =
  /\b(?:raised|lowered|increased|reduced|cut|moved|switched|replaced|migrated|changed|relocated|renamed|upgraded|downgraded|postponed|rescheduled|cancelled|canceled|banned)\b/iu;
/** "Hopefully…", "maybe…", "I hope…": a wish or a guess, not a statement of fact. */
const HEDGE = /^\s*(?:hopefully|maybe|perhaps|probably|i hope|i guess|i wish|fingers crossed)\b/iu;
/**
 * "For example, `4-6, 8+` means opset 4 to 6, 8 and above": an illustration of how to read
 * something, with made-up values; two documents' examples (4 vs 7) contradict nothing.
 */
const ILLUSTRATION = /^\s*(?:for (?:example|instance)|e\.g\.|例如|比如)[,，:：\s]/iu;
/**
 * "Defaults to 300 seconds.", "Returns a promise.", "Default: `true`": the description of an
 * option or a function whose name is the heading or the list item above it. With the subject
 * left out, two such rows about different options ("Defaults to 30" under `timeout`, "Defaults
 * to 10" under `retries`) read as one attribute with two values. A verb before another verb
 * is a noun ("Returns are accepted within 30 days"): that row has its subject.
 */
const SUBJECTLESS_DESCRIPTION =
  /^\s*(?:defaults?\s*(?:to\b|:|is\b)|(?:returns|accepts|emits|throws|resolves|rejects|represents|specifies|indicates|determines|overrides)\b(?!\s+(?:are|is|were|was|will|would|can|could|must|may|might|should|shall|have|has|had|need|needs|take|takes|go|goes|do|does|don't|get|gets)\b))/iu;
/** "[shared a photo: …]": a description of an attachment, not something the speaker says. */
const BRACKETED = /^\s*\[[^\]]*\]\s*$/u;
const WORD = /[\p{L}\p{N}]+/gu;
const HAN = /\p{Script=Han}/u;

/*
 * Markup. An imported README or CHANGELOG is mostly rows that say nothing about the world:
 * badges, tables, link lists, HTML, shell commands, commit logs. Read as sentences, two
 * packages' badge lines ("async-function <sup>[![Version Badge]…]" / "define-data-property
 * <sup>…") or install lines ("npm install --save qs" / "… tar-fs") are one attribute with two
 * values: 31 false conflicts per 100 npm READMEs came mostly from such rows.
 */
/** A Markdown table row, an HTML tag line, a link reference definition, a fence or a heading. */
const MARKUP_LINE =
  /^\s*(?:\|.*\||<\/?[a-z][^>]*>.*|\[[^\]]+\]:\s*\S+.*|```.*|~~~.*|#{1,6}\s.*|={3,}|-{3,})\s*$/iu;
/** A command line: a prompt or a package-manager / tool invocation, which is code. */
const COMMAND_LINE =
  /^\s*(?:[$>%]\s+\S|(?:npm|npx|yarn|pnpm|bun|deno|node|git|pip|cargo|go|brew|apt|apt-get|curl|docker|cd|mkdir)\s+(?:-{1,2}\w|i\b|install\b|add\b|run\b|exec\b|init\b|clone\b|test\b|build\b|get\b|ci\b|remove\b|uninstall\b|update\b|upgrade\b|publish\b|link\b|create\b|x\b))/iu;
/**
 * A version-control log entry: a commit hash in backticks or a commit / compare link, or a
 * conventional-commit prefix ("perf: …", "[Refactor] …"): a record of a code change, not a
 * statement of fact.
 */
const LOG_ENTRY =
  /`[0-9a-f]{7,40}`|\/commits?\/[0-9a-f]{7,40}\b|\/compare\/[\w.~^-]+\.\.\.?[\w.~^-]+|^\s*(?:[-*+]\s+)?(?:\[(?:fix|fixes|new|refactor|breaking|dev deps|deps|tests?|docs?|meta|robustness|types|actions|perf|readme|patch|minor|major|performance|ci)\]|(?:feat|fix|perf|chore|docs|refactor|test|tests|build|ci|style|revert|deps)(?:\([^)]*\))?!?:)\s/iu;
/**
 * Code: a statement ending in a semicolon or a brace, an arrow, or a declaration ("const x =",
 * "import { a } from", "function f("). Lower case and with its punctuation only, so a sentence
 * that starts with "Export the report…" or "Return the keys…" stays a sentence.
 */
const CODE_LINE =
  /[;{}]\s*$|=>|^\s*(?:const|let|var)\s+[\w$]+\s*=|^\s*(?:import|export)\s+(?:\{|\*|default\b|type\b|[\w$]+\s+from\b)|^\s*function\s*[\w$]*\s*\(|^\s*class\s+[\w$]+\s*(?:\{|extends\b)|^\s*return\s+[\w$.()]+;?\s*$/u;
/** Markdown images (badges) say nothing; links keep their words, code spans their content. */
const IMAGE = /!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]/gu;
const LINK = /\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]/gu;
/** URLs and e-mail-like identifiers (also `name@1.2.3`): names of things, not words of a claim. */
const IDENTIFIERS = /https?:\/\/\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gu;

/** An opening or closing code fence: three or more backticks or tildes. */
const FENCE = /^\s{0,3}(`{3,}|~{3,})/u;

/**
 * Where the fenced code blocks and HTML comments of a text are, as [start, end) offsets (an
 * unclosed fence or comment runs to the end, as Markdown reads it). Neither is ever a claim,
 * and the evidence rows cut from them are plain "sentence" rows ("<!-- YAML added: v0.3.7 -->"
 * in one page and "… v0.9.4 …" in another read as one attribute with two values), so detection
 * needs the spans to leave them out.
 */
export function markupSpans(content: string): [number, number][] {
  const spans: [number, number][] = [];
  const fenced = content.includes("```") || content.includes("~~~");
  let open: { marker: string; start: number } | undefined;
  let offset = 0;
  for (const line of fenced ? content.split("\n") : []) {
    const fence = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (open === undefined) open = { marker: fence, start: offset };
      else if (fence[0] === open.marker[0] && fence.length >= open.marker.length) {
        spans.push([open.start, offset + line.length]);
        open = undefined;
      }
    }
    offset += line.length + 1;
  }
  if (open !== undefined) spans.push([open.start, content.length]);
  for (let from = content.indexOf("<!--"); from >= 0; from = content.indexOf("<!--", from + 4)) {
    const close = content.indexOf("-->", from + 4);
    spans.push([from, close < 0 ? content.length : close + 3]);
    if (close < 0) break;
    from = close;
  }
  return spans;
}

/**
 * A line that is nothing but links ("[Submitting a bug report](#submitting-a-bug-report)"): a
 * table of contents or a list of pages, which names other text and states nothing itself.
 */
const LINKS_ONLY =
  /^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\[[^\]]*\]\([^)]*\)|\[[^\]]*\]\[[^\]]*\]|[\s,;|·•–-])+$/u;

/** Why one line is markup rather than prose, if it is. */
function markupLine(line: string): string | undefined {
  if (MARKUP_LINE.test(line)) return "markup (a table row, heading, HTML or link definition)";
  if (LINKS_ONLY.test(line)) return "a list of links, not a statement";
  // An HTML comment ("<!-- YAML added: v0.3.7 -->") is left for the reader, not stated.
  if (/^\s*<!--/u.test(line)) return "an HTML comment, not a statement";
  // "npm install takes 3 minutes." is a sentence about a command; a command has no full stop.
  if (COMMAND_LINE.test(line) && !/[.!?]$/u.test(line)) return "a command line, not a statement";
  if (LOG_ENTRY.test(line)) return "a commit-log entry, not a statement";
  if (CODE_LINE.test(line)) return "code, not a statement";
  const prose = line.replace(IMAGE, " ").replace(LINK, "$1$2").replace(IDENTIFIERS, " ")
    .replace(/<[^>]+>/g, " ");
  const words = (prose.match(WORD) ?? []).length;
  if (!HAN.test(prose) && words < CLAIM_MIN_WORDS) return "a link or badge, not a sentence";
  return undefined;
}

/**
 * A row without its markup lines (a row of an imported document may span lines: a title and
 * its underline, a list of link definitions), and why it is nothing but markup when it is.
 */
export function proseOf(row: string): { prose: string; markup?: string } {
  // An HTML comment ("<!-- YAML added: v0.3.7 -->"), over one line or several, is left out.
  const uncommented = row.replace(/<!--[\s\S]*?(?:-->|$)/gu, "\n");
  const lines = uncommented.split(/\r?\n/u).map((line) => line.trim()).filter((line) =>
    line !== ""
  );
  const kept: string[] = [];
  let reason: string | undefined;
  for (const [index, line] of lines.entries()) {
    // A title underlined with "===" or "---" is a heading (Markdown's other heading form).
    const underlined = /^(?:={3,}|-{3,})$/u.test(lines[index + 1] ?? "");
    const why = underlined ? "a heading, not a statement" : markupLine(line);
    if (why) reason ??= why;
    else kept.push(line);
  }
  if (kept.length === 0) {
    return {
      prose: "",
      markup: reason ?? (uncommented !== row ? "an HTML comment" : "an empty row"),
    };
  }
  return { prose: kept.join(" ") };
}

/**
 * The words of a row as the rule stage reads them: badges dropped, links reduced to their text
 * and code spans to their content. URLs and e-mail addresses stay (the rule stage compares them
 * as identifiers) but their parts are not attribute words (see `readSide` in rules.ts).
 */
function plainText(row: string): string {
  // A link's target is where to read more, not what the sentence says: "[the npm install
  // command](https://docs.npmjs.com/a)" and "(…/b)" are one sentence.
  return row.replace(IMAGE, " ").replace(/\[([^\]]*)\]\(([^)]*)\)/gu, "$1")
    .replace(/\[([^\]]*)\]\[[^\]]*\]/gu, "$1").replace(/`([^`]*)`/gu, "$1")
    .replace(/<[^>]+>/g, " ").replace(/\s+/gu, " ").trim();
}

/** The row without URLs and e-mail-like identifiers, for reading its attribute words. */
export function withoutIdentifiers(text: string): string {
  return text.replace(IDENTIFIERS, " ").replace(/\(\s*\)/gu, " ").replace(/\s+/gu, " ").trim();
}

/**
 * Rows read recently: a conflict check reads each neighbour row once to keep its claims and
 * again when the rule stage compares it (`readSide` in rules.ts). Readings are shared, frozen.
 */
const CLAIM_READS = new BoundedMap<string, Readonly<Claim>>(CLAIM_READS_KEPT);

/** Strips a speaker label; says when the rest is a question or too short to claim anything. */
export function readClaim(row: string): Readonly<Claim> {
  const known = CLAIM_READS.get(row);
  if (known) return known;
  const claim = Object.freeze(readClaimOnce(row));
  CLAIM_READS.set(row, claim);
  return claim;
}

function readClaimOnce(row: string): Claim {
  const { prose, markup } = proseOf(row);
  if (markup) return { text: row, notAClaim: markup };
  const text = plainText(prose).replace(SPEAKER_LABEL, "").replace(VOCATIVE, "$1").replace(
    INTERJECTION,
    "",
  );
  if (QUESTION_END.test(text)) return { text, notAClaim: "a question states no fact" };
  if (EXCLAMATION_END.test(text)) return { text, notAClaim: "an exclamation voices a feeling" };
  if (BRACKETED.test(text)) return { text, notAClaim: "a bracketed description of an attachment" };
  if (SUBJECTLESS_DESCRIPTION.test(text)) {
    return { text, notAClaim: "describes an option or a function named elsewhere (no subject)" };
  }
  if (SECOND_PERSON.test(text)) return { text, notAClaim: "addressed to the listener" };
  const reportsChange = NAMED_CHANGE.test(text) && /[\d$€£¥]/u.test(text);
  if (PRONOUN_SUBJECT.test(text) && !reportsChange && !THERE_COUNT.test(text)) {
    return { text, notAClaim: "its subject is a bare pronoun" };
  }
  if (EXHORTATION.test(text)) return { text, notAClaim: "an exhortation states no fact" };
  if (HEDGE.test(text)) return { text, notAClaim: "a wish or a guess states no fact" };
  if (ILLUSTRATION.test(text)) return { text, notAClaim: "an example illustrates, states no fact" };
  if (POSSIBILITY.test(text) && !PERMISSION.test(text) && !STATED_LIMIT.test(text)) {
    return { text, notAClaim: "says what could be, not what is" };
  }
  // Written Chinese has no spaces: count characters there instead of words.
  const words = HAN.test(text)
    ? [...text.replace(/\s/g, "")].length / 2
    : (text.match(WORD) ?? []).length;
  if (words < CLAIM_MIN_WORDS) {
    return { text, notAClaim: `too short to state a fact (${Math.floor(words)} words)` };
  }
  return { text };
}
