/**
 * Reading entities out of a fact without a model (issue 35): code identifiers by their shape
 * (URLs, emails, scoped packages, file paths, hostnames, environment variables, ticket ids,
 * versions attached to what they version), names by capitalization and known suffixes ("API",
 * "service", "team"), lower-case "billing service"-style names, Chinese names ending in a
 * kind word (支付团队, 订单服务), and people's names where capitals cannot tell: a given name
 * opening a sentence ("Alice approved…") and a Chinese surname and name before a verb a person
 * does (张伟负责…), from the lists in person_names.ts. Aliases the text states ("Kubernetes (K8s)", "X, also known as
 * Y") come back as pairs.
 *
 * One pass of regular expressions over at most `ENTITY_TEXT_MAX_CHARS`; spans already taken by
 * a stronger shape (a URL) are never read again as a weaker one (a hostname inside it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { extractMentions } from "./extract.ts";
 *
 * const found = extractMentions("The Payments API depends on PostgreSQL 16; see PAY-42.");
 * assert.deepEqual(found.mentions.map((m) => [m.words, m.kind]), [
 *   ["Payments API", "service"],
 *   ["PostgreSQL", "product"],
 *   ["PostgreSQL 16", "version"],
 *   ["PAY-42", "ticket"],
 * ]);
 * ```
 * @module
 */
import { ENTITY_MENTIONS_MAX, ENTITY_NAME_MAX_CHARS, ENTITY_TEXT_MAX_CHARS } from "./constants.ts";
import { isGivenName, readHanPersons } from "./person_names.ts";

/** What an entity is, as far as its words tell. */
export type EntityKind =
  | "person"
  | "team"
  | "service"
  | "project"
  | "product"
  | "organization"
  | "name"
  | "package"
  | "path"
  | "host"
  | "url"
  | "email"
  | "env"
  | "ticket"
  | "version";

/** A name found in the text, at its UTF-16 offsets. */
export interface Mention {
  words: string;
  kind: EntityKind;
  start: number;
  end: number;
  /** For a version: the words of what it versions. */
  versionOf?: string;
}

/** What {@linkcode extractMentions} found. */
export interface Extracted {
  mentions: Mention[];
  /** Pairs of words the text says are one name. */
  aliases: [string, string][];
}

/** Shapes of code identifiers, strongest first (a URL holds a hostname and a path). */
const SHAPES: readonly { kind: EntityKind; pattern: RegExp }[] = [
  { kind: "url", pattern: /\bhttps?:\/\/[^\s<>"'`)\]}]+[^\s<>"'`)\]}.,;:!?]/gu },
  { kind: "email", pattern: /\b[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/gu },
  { kind: "package", pattern: /(?<![\w/])@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*[\w]/gu },
  {
    kind: "path",
    pattern:
      /(?<![\w@:/])(?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w-][\w.-]*\.[A-Za-z0-9]{1,8}\b|(?<![\w:/])\/(?:etc|var|usr|opt|home|srv|tmp)(?:\/[\w.-]+)+/gu,
  },
  {
    kind: "host",
    pattern:
      /\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:com|net|org|io|dev|app|ai|cloud|internal|local|lan|corp|svc|cluster|co|us|uk|de|cn|eu)\b(?::\d{2,5})?/gu,
  },
  { kind: "env", pattern: /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/gu },
  { kind: "ticket", pattern: /\b[A-Z][A-Z0-9]{1,9}-\d{1,7}\b/gu },
];

/** Words that end a name and say its kind. */
const KIND_SUFFIXES: readonly [RegExp, EntityKind][] = [
  [
    /^(?:API|APIs|Service|Server|Gateway|Worker|Cluster|Database|DB|Queue|Cache|Proxy)$/iu,
    "service",
  ],
  [/^(?:Team|Squad|Group|Guild|Department|Dept)$/iu, "team"],
  [/^(?:Project|Program|Initiative)$/iu, "project"],
  [/^(?:Inc|Inc\.|Corp|Corp\.|Ltd|LLC|GmbH|Labs|Foundation|Company)$/u, "organization"],
  [/^(?:App|Platform|Dashboard|Portal|SDK|CLI|Console|Studio)$/u, "product"],
];

/** Lower-case names: a word or two before a kind word ("the billing service", "payments team"). */
const LOWER_NAME =
  /\b((?:[a-z][a-z0-9]+[- ])?[a-z][a-z0-9]+)[- ](service|api|team|squad|cluster|database|queue|gateway|project)\b/gu;

/** Lower-case words that precede a kind word without naming anything ("the new service"). */
const NOT_A_NAME = new Set(
  `a an the this that these those our your their its my his her new old same other each every
  any some one two main whole entire which what whose another first last next previous current
  internal external backend frontend web micro core shared single separate own such is was be
  will would can could should may might must to of in on at for by with from and or but not no
  staging production prod dev test`.split(/\s+/u),
);

/** Capitalized words that start sentences and name nothing on their own. */
const COMMON_CAPITALIZED = new Set(
  `A An The This That These Those There Their They Them Then Than Our Ours We Us I It Its He She
  His Her Him You Your My Me If When While Where Why How What Which Who Whom Whose After Before
  Since Until Because Although Though But And Or Nor So Yet For To In On At By With From Into
  Onto Of As Also Both Each Every All Any Some Many Most Much More Less Few No Not None One Two
  Three Yes Ok Okay Please Thanks Thank Hi Hello Hey Dear Today Tomorrow Yesterday Now Later Soon
  Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mondays Tuesdays
  Wednesdays Thursdays Fridays Saturdays Sundays Weekends January February March April May June
  July August September October November December Here Note Notes Update Todo TODO Done Fixed
  Added Removed Changed See Use Run Set Make Do Does Did Is Are Was Were Be Been Has Have Had
  Will Would Can Could Should Must Might Shall Let Lets Let's Just Only Even Still Once Twice
  Never Always Often Sometimes Usually Maybe Perhaps Currently Recently Finally First Second
  Third Last Next Previous New Old Good Bad Great Sure Well Oh Wow Hmm Ah Mr Mrs Ms Dr Prof
  Fri Mon Tue Wed Thu Sat Sun Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec UTC GMT
  Yeah Yep Yup Nope Congrats Congratulations Bye Goodbye Woohoo Awesome Cool Nice Sorry Haha
  Lol Omg Aww`
    .split(/\s+/u),
);

/** Capitalized or all-caps words that are not names (they name a format or a role). */
const NOT_ENTITIES = new Set(
  `API APIs URL URLs HTTP HTTPS JSON YAML XML HTML CSS SQL CLI UI UX ID IDs OK PR PRs QA CEO CTO
  CFO VP PM ETA FYI TBD ASAP N/A AM PM EOD EOW CPU GPU RAM SSD OS IP TCP UDP DNS SSH TLS SSL README
  CI CD MB GB TB KB ms`.split(/\s+/u),
);

/** Names of well-known software and services: the kind `product`. */
const KNOWN_PRODUCTS = new Set(
  `postgresql postgres pg mysql sqlite redis kafka rabbitmq mongodb mongo elasticsearch
  opensearch cassandra dynamodb s3 ec2 lambda aws gcp azure kubernetes k8s docker terraform
  ansible helm nginx apache react vue angular svelte node.js nodejs deno bun typescript
  javascript python rust golang java kotlin swift github gitlab bitbucket jira confluence slack
  teams zoom notion figma linear sentry datadog grafana prometheus stripe twilio okta auth0
  vercel netlify heroku cloudflare openai anthropic claude chatgpt gpt-4 linux ubuntu debian
  macos windows ios android chrome firefox safari postgis pgvector sqlalchemy django rails
  spring flask fastapi express nextjs next.js vite webpack jenkins circleci airflow spark
  snowflake bigquery redshift clickhouse supabase firebase`.split(/\s+/u),
);

/** Capitalized words, possibly camel-cased or with dots/digits (PostgreSQL, Node.js, S3). */
const CAP_WORD = String.raw`(?:[A-Z][\w]*(?:\.[a-z]+)?|[a-z]+[A-Z][\w]*)`;
/** A span of capitalized words joined by spaces, "of", "&" or "for" between two of them. */
const CAP_SPAN = new RegExp(
  String.raw`(?<![\w.@/-])${CAP_WORD}(?:(?: (?:of|&|for|and) | |-)${CAP_WORD})*(?![\w@/])`,
  "gu",
);

/** A lower-case kind word right after a capitalized name ("the Search team"). */
const KIND_WORD_AFTER = /^[ -](?:team|squad|service|api|project|cluster|database|gateway)\b/u;

/** A version after a name: "PostgreSQL 16", "Node 20.11", "React v18". */
const VERSION_AFTER = /^ ?(v?\d+(?:\.\d+){0,3}(?:-[a-z0-9.]+)?)\b/u;
/**
 * A version joined by "@" (npm) or "==" (pip) to a package or name; the name is read back from
 * the joiner by hand (a pattern that also matched the name backtracked at every character:
 * 4.5 ms of 20 on 16,000 characters).
 */
const PINNED = /(?:@|==)(\d+(?:\.\d+){0,3}(?:-[\w.]+)?)\b/gu;
const NAME_CHAR = /[\w./-]/u;

/**
 * A Chinese name ending in a kind word; the kind words decide the kind. The verbs that may
 * stand before a name never stand inside one (张伟负责支付服务: the service is 支付服务).
 */
const HAN_NAME =
  /(?<=^|[^\p{Script=Han}]|[的是在和与了把被由对从向给将也都就还及或]|负责|依赖|使用|属于|汇报|管理|维护|包括|调用|需要)((?:(?![的是在和与了把被由对从向给将也都就还及或我你他她它们这那个一有为上下中不没]|负责|依赖|使用|属于|汇报|管理|维护|包括|调用|需要)\p{Script=Han}){1,6})(团队|小组|组|部门|服务|系统|项目|平台|公司|数据库|集群)/gu;
const HAN_KINDS: Record<string, EntityKind> = {
  团队: "team",
  小组: "team",
  组: "team",
  部门: "team",
  服务: "service",
  系统: "service",
  数据库: "service",
  集群: "service",
  项目: "project",
  平台: "product",
  公司: "organization",
};

/** "X (Y)", "X, also known as Y", "X aka Y", "X, or Y for short": an alias the text states. */
const ALIAS_STATED =
  /^(?:\s*\(\s*([^()]{1,40}?)\s*\)|,?\s+(?:also known as|aka|a\.k\.a\.|also called|or) ([^,.;()]{1,40}?)(?: for short)?(?=[,.;)]|$))/u;

const SENTENCE_START = /(?:^|[.!?。！？\n]\s*|[:;]\s+|^\s*[-*#>]+\s*)$/u;

/**
 * Reads the names of `text`: mentions in text order (at most `ENTITY_MENTIONS_MAX`) and the
 * aliases the text itself states.
 */
export function extractMentions(text: string): Extracted {
  const source = text.length > ENTITY_TEXT_MAX_CHARS ? text.slice(0, ENTITY_TEXT_MAX_CHARS) : text;
  // One flag per character: a span is free when none of its characters is taken (spans are
  // short, so the check is linear in the text, where a list of spans was quadratic).
  const taken = new Uint8Array(source.length + 1);
  const free = (start: number, end: number) => {
    for (let i = start; i < end; i++) if (taken[i] === 1) return false;
    return true;
  };
  const take = (start: number, end: number) => taken.fill(1, start, end);
  const mentions: Mention[] = [];
  const add = (mention: Mention) => {
    if (mention.words.length > ENTITY_NAME_MAX_CHARS || !free(mention.start, mention.end)) return;
    take(mention.start, mention.end);
    mentions.push(mention);
  };
  for (const { kind, pattern } of SHAPES) {
    for (const match of source.matchAll(pattern)) {
      add({ words: match[0], kind, start: match.index, end: match.index + match[0].length });
    }
  }
  for (const match of source.matchAll(PINNED)) {
    const at = match.index;
    let from = at;
    while (from > 0 && NAME_CHAR.test(source[from - 1])) from--;
    if (from > 0 && source[from - 1] === "@" && !/\w/u.test(source[from - 2] ?? "")) from--;
    const name = source.slice(from, at);
    if (!/[A-Za-z]/u.test(name)) continue;
    const end = at + match[0].length;
    if (!free(from, end) && !isPackage(name, mentions)) continue;
    mentions.push({
      words: source.slice(from, end),
      kind: "version",
      start: from,
      end,
      versionOf: name,
    });
    if (free(from, at)) add({ words: name, kind: "package", start: from, end: at });
    take(from, end);
  }
  readCapitalized(source, mentions, add, free);
  readLowerNames(source, add);
  readHanNames(source, add);
  mentions.sort((a, b) => a.start - b.start || a.end - b.end);
  return {
    mentions: mentions.slice(0, ENTITY_MENTIONS_MAX),
    aliases: statedAliases(source, mentions),
  };
}

function isPackage(name: string, mentions: readonly Mention[]): boolean {
  return mentions.some((m) => m.kind === "package" && m.words === name);
}

function readCapitalized(
  source: string,
  mentions: Mention[],
  add: (mention: Mention) => void,
  free: (start: number, end: number) => boolean,
): void {
  for (const match of source.matchAll(CAP_SPAN)) {
    let words = match[0];
    let start = match.index;
    // A leading sentence word ("The", "When") is not part of the name.
    const parts = words.split(/( |-)/u);
    while (parts.length > 1 && (COMMON_CAPITALIZED.has(parts[0]) || NOT_ENTITIES.has(parts[0]))) {
      start += parts[0].length + parts[1].length;
      parts.splice(0, 2);
    }
    words = parts.join("");
    // A sentence's first word joined on ("Deploys of Payments"): the name is what follows.
    const opener = /^([A-Z][a-z]+) (?:of|for|and|&) /u.exec(words);
    if (
      opener !== null && !KNOWN_PRODUCTS.has(opener[1].toLowerCase()) &&
      (start === 0 || SENTENCE_START.test(source.slice(Math.max(0, start - 4), start)))
    ) {
      start += opener[0].length;
      words = words.slice(opener[0].length);
    }
    // A trailing joiner word left by the span ("Alice and") goes too.
    words = words.replace(/ (?:of|&|for|and)$/u, "");
    if (words.length < 2 || !free(start, start + words.length)) continue;
    if (COMMON_CAPITALIZED.has(words) || NOT_ENTITIES.has(words)) continue;
    // "the Search team": the lower-case kind word belongs to the name.
    const kindWord = KIND_WORD_AFTER.exec(
      source.slice(start + words.length, start + words.length + 12),
    );
    if (kindWord !== null) words += kindWord[0];
    const single = !/[ -]/u.test(words);
    const known = KNOWN_PRODUCTS.has(words.toLowerCase());
    const shaped = /[A-Z]|\d|\./u.test(words.slice(1)) || /^[a-z]/u.test(words);
    const atStart = SENTENCE_START.test(source.slice(Math.max(0, start - 4), start)) ||
      start === 0;
    // A capitalized word that only opens a sentence is usually an ordinary word ("Deploys"),
    // unless it is a given name ("Alice approved the budget.").
    if (single && atStart && !known && !shaped && !isGivenName(words)) continue;
    const end = start + words.length;
    const mention: Mention = { words, kind: kindOf(words, known), start, end };
    add(mention);
    const version = VERSION_AFTER.exec(source.slice(end, end + 24));
    if (
      version !== null && !/^ ?\d+(?:\.\d+)?\s*(?:%|ms|s|m|h|d|x|GB|MB|KB|TB|k|K)\b/u.test(
        source.slice(end, end + 24),
      )
    ) {
      // Not through `add`: the version's span holds its name's.
      mentions.push({
        words: `${words}${version[0]}`,
        kind: "version",
        start,
        end: end + version[0].length,
        versionOf: words,
      });
    }
  }
}

function kindOf(words: string, known: boolean): EntityKind {
  const first = words.split(/[ -]/u)[0];
  if (/^(?:Project|Team|Operation)$/u.test(first) && words !== first) {
    return first === "Team" ? "team" : "project";
  }
  const last = words.split(/[ -]/u).at(-1)!;
  for (const [pattern, kind] of KIND_SUFFIXES) if (pattern.test(last)) return kind;
  if (known || KNOWN_PRODUCTS.has(last.toLowerCase())) return "product";
  // Two or three plain capitalized words ("Alice Chen"): most often a person.
  if (/^[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}$/u.test(words)) return "person";
  if (isGivenName(words)) return "person";
  if (/^[A-Z][a-z]+$/u.test(words)) return "name";
  return "product";
}

function readLowerNames(source: string, add: (mention: Mention) => void): void {
  for (const match of source.matchAll(LOWER_NAME)) {
    const head = match[1].split(/[- ]/u);
    while (head.length > 0 && NOT_A_NAME.has(head[0])) head.shift();
    if (head.length === 0 || head.some((word) => NOT_A_NAME.has(word))) continue;
    const kindWord = match[2];
    const words = `${head.join(" ")} ${kindWord}`;
    const start = match.index + match[0].length - words.length;
    const kind: EntityKind = kindWord === "team" || kindWord === "squad"
      ? "team"
      : kindWord === "project"
      ? "project"
      : "service";
    // The offsets keep the text's own joiner ("billing-service").
    add({
      words: source.slice(start, match.index + match[0].length),
      kind,
      start,
      end: start + words.length,
    });
  }
}

function readHanNames(source: string, add: (mention: Mention) => void): void {
  for (const match of source.matchAll(HAN_NAME)) {
    const words = match[0];
    add({
      words,
      kind: HAN_KINDS[match[2]] ?? "name",
      start: match.index,
      end: match.index + words.length,
    });
  }
  for (const person of readHanPersons(source)) add({ ...person, kind: "person" });
}

function statedAliases(source: string, mentions: readonly Mention[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (const mention of mentions) {
    if (mention.kind === "version" || mention.kind === "url" || mention.kind === "path") continue;
    const match = ALIAS_STATED.exec(source.slice(mention.end, mention.end + 64));
    if (match === null) continue;
    const alias = (match[1] ?? match[2]).trim();
    // Only a name-like alias: "Kubernetes (K8s)", not "Billing (see below)".
    if (!/^[\p{Lu}\d][\w.+-]*(?: [\p{Lu}\d][\w.+-]*){0,3}$/u.test(alias)) continue;
    if (alias === mention.words) continue;
    pairs.push([mention.words, alias]);
  }
  return pairs;
}
