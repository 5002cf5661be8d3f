/**
 * The word lists the conflict rule stage reads sentences with: phrases that mark an update, a
 * negation, a historical statement or an addition, words that carry no attribute meaning, and
 * small families of verbs that name the same attribute. English first, with the common
 * Chinese equivalents. Lowercase; multi-word phrases match on word boundaries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UPDATE_PHRASES } from "./lexicon.ts";
 *
 * assert.ok(UPDATE_PHRASES.includes("moved to"));
 * ```
 * @module
 */

/**
 * Phrases that announce a change of a fact ("the deadline moved to Monday"). They are removed
 * from the content words (they are about the change, not the attribute) and add to the score.
 */
export const UPDATE_PHRASES: readonly string[] = [
  "no longer",
  "not anymore",
  "any more",
  "anymore",
  "moved to",
  "moved from",
  "moved",
  "relocated to",
  "relocated",
  "instead of",
  "instead",
  "changed to",
  "changed from",
  "changed",
  "change to",
  "replaced by",
  "replaced with",
  "replaced",
  "switched to",
  "switched from",
  "switched",
  "migrated to",
  "migrated from",
  "migrated",
  "as of",
  "from now on",
  "now",
  "currently",
  "these days",
  "updated to",
  "updated",
  "upgraded to",
  "upgraded",
  "downgraded to",
  "downgraded",
  "raised to",
  "raised",
  "lowered to",
  "lowered",
  "increased to",
  "increased",
  "decreased to",
  "decreased",
  "reduced to",
  "reduced",
  "bumped to",
  "bumped",
  "extended to",
  "extended",
  "postponed to",
  "postponed",
  "pushed back to",
  "pushed to",
  "delayed to",
  "delayed",
  "rescheduled to",
  "rescheduled",
  "reassigned to",
  "handed over to",
  "took over",
  "taken over",
  "grew to",
  "scaled to",
  "scaled up to",
  "scaled down to",
  "shrank to",
  // A figure changed by a verb of its own: "sprints were shortened to one week", "the budget
  // was cut to $3,000", "the price was slashed to $5".
  "shrunk to",
  "shortened to",
  "shortened",
  "lengthened to",
  "lengthened",
  "cut to",
  "cut back to",
  "trimmed to",
  "slashed to",
  "halved to",
  "doubled to",
  "tripled to",
  "expanded to",
  "dropped to",
  "went up to",
  "went down to",
  "set to",
  "renamed to",
  "renamed",
  // Change-of-state verbs (rule stage v2): each says the old value stopped being true.
  "swapped out for",
  "swapped for",
  "swapped",
  "transferred to",
  "transferred",
  "decommissioned",
  "cancelled",
  "canceled",
  "shut down",
  "phased out",
  "deprecated",
  "retired",
  "stopped",
  "dropped to",
  "dropped",
  "stepped down",
  "resigned",
  "left the",
  "left our",
  "left for",
  "left",
  "passed to",
  "has left",
  "have left",
  "took over",
  "takes over",
  "handed over",
  "handed",
  "gave up",
  "has started",
  "have started",
  "became",
  "has become",
  "brought forward",
  "slipped to",
  "slipped",
  "went up to",
  "went down to",
  "went up",
  "went down",
  "relicensed",
  "rebuilt",
  "rewritten",
  "rather than",
  // Going back to an earlier state is a change too ("the team went back to daily standups").
  "went back to",
  "switched back to",
  "moved back to",
  "reverted to",
  "returned to",
  // "pushed the launch back": the sentence reader joins the split particle verb first.
  "pushed back",
  "moved up",
  "starting from",
  "starting next",
  "starting on",
  "starting in",
  "starting tomorrow",
  "effective from",
  "effective",
  "从下个月起",
  "下个月起",
  "起改为",
  "迁移到",
  "迁移",
  "迁到",
  "离职",
  "接手",
  "接任",
  "接替",
  "下线",
  "停用",
  "弃用",
  "取消",
  "改用",
  "换了",
  "调去",
  "调整为",
  "提高到",
  "降低到",
  "增加到",
  "减少到",
  "延长到",
  "缩短到",
  "上调到",
  "下调到",
  "涨价",
  "降价",
  "降到",
  "涨到",
  "不再",
  "戒了",
  "戒掉",
  "改为",
  "改成",
  "变成",
  "变为",
  "调整到",
  "换成",
  "换到",
  "搬到",
  "搬去",
  "调到",
  "改到",
  "交给",
  "推迟到",
  "提前到",
  "升级到",
  "现在",
  "目前",
  "已经",
];

/**
 * Update phrases that mark the present without naming a change ("now", "currently"). The
 * others ("switched to", "moved to") say that something was replaced, which is what lets the
 * rule stage accept rows that share fewer words (the replaced verb is gone: "we use Jenkins" /
 * "we switched to GitHub Actions").
 */
export const SOFT_UPDATE_PHRASES: ReadonlySet<string> = new Set([
  "now",
  "currently",
  "these days",
  "as of",
  "现在",
  "目前",
  "已经",
]);

/**
 * Words and phrases that negate the statement they are in. "no longer" is both a negation and
 * an update phrase. Cessation verbs count: "we stopped using Redis" denies "we use Redis".
 */
export const NEGATION_PHRASES: readonly string[] = [
  "no longer",
  "not anymore",
  "not",
  "cannot",
  "n't",
  "never",
  "no",
  "none",
  "nobody",
  "nothing",
  "neither",
  "nor",
  "without",
  "stopped",
  "stop",
  "ceased",
  "quit",
  "gave up",
  "give up",
  "given up",
  "戒了",
  "戒掉",
  "dropped",
  "removed",
  "deprecated",
  "discontinued",
  "abandoned",
  "retired",
  "不再",
  "没有",
  "不",
  "没",
  "未",
  "无",
];

/**
 * Phrases that date a statement to the past. A row carrying one (and no update phrase)
 * describes history, which does not contradict a present-tense row about the same attribute:
 * "we used Jenkins in 2019" and "we use GitHub Actions" are both true. A bare past tense ("the
 * deadline was Friday") is not history: it is how people report a fact that just changed.
 */
export const HISTORICAL_PHRASES: readonly string[] = [
  "used to",
  "previously",
  "formerly",
  "originally",
  "initially",
  "back in",
  "back then",
  "at the time",
  "at that time",
  "in the past",
  "years ago",
  "last year",
  "years back",
  "once upon",
  // A stage of someone's life that is over: "Sara lived in Madrid as a child".
  "as a child",
  "as a kid",
  "as a teenager",
  "growing up",
  "以前",
  "曾经",
  "过去",
  "原来",
  "小时候",
];

/** Past-tense auxiliaries that make "in 2019" a historical anchor rather than a plan. */
export const PAST_TENSE_WORDS: ReadonlySet<string> = new Set([
  "was",
  "were",
  "had",
  "did",
  "used",
  "went",
  "ran",
  "wrote",
  "built",
  "began",
  "started",
]);

/**
 * Phrases that add a fact next to another rather than replace it ("the API also supports
 * XML"). A row with one (and no negation or update phrase) never conflicts.
 */
export const ADDITION_PHRASES: readonly string[] = [
  "also",
  "as well",
  "in addition",
  "additionally",
  "besides",
  "another",
  "too",
  "plus",
  "both",
  "还",
  "也",
  "另外",
];

/**
 * Words that judge rather than state ("an awesome experience" / "a rewarding experience"):
 * two rows that differ only in such words voice two feelings about one thing, which can both
 * be true. Chat is full of them (LoCoMo stored turn by turn); recorded facts rarely differ
 * only in one.
 */
export const EVALUATIVE_WORDS: ReadonlySet<string> = new Set(
  (
    "awesome amazing great good nice cool wonderful fantastic fabulous incredible terrific " +
    "lovely beautiful gorgeous brilliant excellent awful terrible horrible bad sad happy glad " +
    "fun funny exciting excited thrilled proud grateful thankful rewarding meaningful special " +
    "important worth worthwhile tough hard difficult easy inspiring inspired uplifting " +
    "cathartic fulfilling touching sweet kind super stunning impressive interesting boring " +
    "scary hopeful definitely totally truly absolutely really so such quite pretty love loved " +
    "like enjoy enjoyed cherish appreciate wow yeah yes sure okay ok thanks thank sorry"
  ).split(/\s+/).filter((word) => word !== ""),
);

/**
 * Words that carry no attribute: articles, pronouns, auxiliaries, prepositions, hedges and
 * relative-time words (they locate a fact in time, which the value extractor and the
 * historical check handle). Values never reach this list: they are cut out before.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an the this that these those it its it's is are was were be been being am do does did " +
    "has have had having will would shall should can could may might must i me my mine we us " +
    "our ours you your yours he him his she her hers they them their theirs who whom whose " +
    "which what when where why how there here of in on at to for from by with about into onto " +
    "over under than then so and or but if as per via up down out off each every all any some " +
    "just really very quite usually always mostly still also only again ever yet soon today " +
    "tomorrow yesterday week weeks month months year years day days last next ago recently " +
    "lately later earlier am pm et al etc s one's let's get gets got after before until till " +
    "since during within around across between among through says said mentioned tells told" +
    " 的 了 是 在 和 与 我 我们 你 你们 他 她 他们 这 那 个 就 都 会 要 把 被 由"
  ).split(/\s+/).filter((word) => word !== ""),
);

/**
 * Verb and noun families that name the same attribute. Mapping each member to one token lets
 * "Maria lives in Paris" and "Maria is based in Lisbon" share the attribute word, and keeps a
 * reworded restatement ("Priya prefers tea" / "Priya likes tea") from looking like a
 * different attribute. Deliberately small: a family is only worth having when its members are
 * interchangeable in memories.
 */
export const ATTRIBUTE_FAMILIES: Readonly<Record<string, readonly string[]>> = {
  "@location": [
    "live",
    "lives",
    "lived",
    "living",
    "based",
    "resides",
    "reside",
    "located",
    "works from",
    "work from",
    "works out of",
    // "the repo is hosted on GitHub" / "the repository lives on GitHub"
    "hosted on",
    "hosted in",
    "hosted at",
  ],
  "@begin": ["starts", "start", "begins", "begin", "commences", "kicks off", "kick off"],
  "@yearly": ["annual", "annually", "yearly", "per year", "a year"],
  // How often: "changed monthly" / "rotated every month" name one frequency.
  "@monthly": ["monthly", "every month", "each month", "per month", "每月", "每个月"],
  "@weekly": ["weekly", "every week", "each week", "per week", "每周"],
  "@daily": ["daily", "every day", "each day", "per day", "每天"],
  "@hourly": ["hourly", "every hour", "each hour", "per hour", "每小时"],
  "@preference": [
    "likes",
    "like",
    "loves",
    "love",
    "prefers",
    "prefer",
    "preferred",
    "favorite",
    "favourite",
    "喜欢",
    "爱吃",
  ],
  "@max": [
    "maximum",
    "max",
    "at most",
    "no more than",
    "capped at",
    // "bags may weigh up to 50 lb": a bound named by its preposition.
    "up to",
    "最多",
    "最大",
    "上限",
  ],
  "@min": [
    "minimum",
    "min",
    "at least",
    "no less than",
    // "requires iOS 15 or later" names a minimum version.
    "or later",
    "or newer",
    "or higher",
    "or above",
    "and up",
    "and above",
    "最少",
    "最低",
    "至少",
  ],
  "@use": [
    "uses",
    "use",
    "using",
    "runs on",
    "run on",
    "runs",
    "relies on",
    "built with",
    "built on",
  ],
  "@due": [
    "deadline",
    "due",
    "due date",
    "closes",
    "close",
    "submitted by",
    "submit by",
    "in by",
    "截止日期",
    "截止",
    "前提交",
  ],
  "@manager": ["manager", "reports to", "report to", "boss", "上级", "汇报", "领导"],
  "@send": ["goes out", "go out", "sent", "send", "sends", "published", "发出", "发送"],
  "@timeout": ["timeout", "time out", "times out"],
  // Particle verbs: "check in" and "check out" are two attributes, not one verb with a stopword.
  // The noun written as one word ("checkout is at 11am") is the same attribute.
  "@checkin": ["check in", "checks in", "check-in", "checked in", "checkin"],
  "@checkout": ["check out", "checks out", "check-out", "checked out", "checkout"],
  "@login": ["log in", "logs in", "login", "sign in", "signs in"],
  "@logout": ["log out", "logs out", "logout", "sign out", "signs out"],
  "@license": [
    "licensed under",
    "released under",
    "published under",
    "distributed under",
    "available under",
    "license",
    "licence",
    "licensed",
    "协议",
    "许可",
  ],
  "@address": ["address", "located at", "can be found at", "can be found on", "地址", "位于"],
  "@owner": [
    "owner",
    "owns",
    "own",
    "owned",
    "ownership",
    "maintainer",
    "maintains",
    "maintained",
  ],
  "@cost": [
    "costs",
    "cost",
    "price",
    "priced",
    "pricing",
    "sells for",
    "pay",
    "pays",
    "sell for",
    "charge",
    "charges",
    "billed at",
    "售价",
    "价格",
    "卖",
    "收费",
  ],
  "@status": ["status", "state"],
  // Rule stage v2 probes (tests/conflicts/corpus_probe.json): attributes people name in
  // interchangeable words.
  "@backup": ["backup", "backups", "back up", "backs up", "backed up", "backing up"],
  "@birthday": ["birthday", "born", "date of birth", "birth date", "生日", "出生"],
  "@current": ["current", "latest", "newest", "most recent"],
  "@store": [
    "stored in",
    "stored on",
    "stores",
    "store",
    "stored",
    "kept in",
    "kept on",
    "keep",
    "keeps",
    "kept",
    "saved in",
    "saved to",
  ],
  "@lead": [
    "lead",
    "leads",
    "head of",
    "heads",
    "in charge of",
    "负责人",
    "负责",
    "牵头",
    "带领",
    "组长",
  ],
};

/**
 * Opposite states of one attribute (rule stage v2). Each entry is a state token with the words
 * that assert it (`on`) and the words that deny it (`off`): "prohibited" reads as "allowed"
 * negated, so "smoking is permitted" / "smoking is prohibited" is a flipped polarity on the same
 * words, and "optional" / "mandatory" one on "required". Longest phrases match first; a state
 * word also counts as a changed state when the other row holds the opposite.
 */
export const STATE_ANTONYMS: Readonly<
  Record<string, { on: readonly string[]; off: readonly string[] }>
> = {
  allowed: {
    on: ["allowed", "allow", "permitted", "permit", "welcome", "allows", "permits", "允许", "可以"],
    off: [
      "prohibited",
      "forbidden",
      "forbids",
      "forbid",
      "banned",
      "bans",
      "disallowed",
      "blocked",
      "blocks",
      "not permitted",
      "禁止",
      "禁",
      "不允许",
      "不能",
      "不可以",
    ],
  },
  required: {
    on: [
      "required",
      "requires",
      "require",
      "needs",
      "need",
      "mandatory",
      "compulsory",
      "obligatory",
      "必须",
      "强制",
    ],
    off: ["optional", "voluntary", "可选"],
  },
  enabled: {
    on: ["enabled", "turned on", "switched on", "active", "启用", "开启"],
    off: ["disabled", "turned off", "switched off", "inactive", "停用", "关闭"],
  },
  open_source: {
    on: ["open source", "open-source", "开源"],
    off: ["closed source", "closed-source", "proprietary", "闭源", "商业授权"],
  },
  accepted: {
    on: ["accepted", "accepts", "accept", "接受"],
    off: ["rejected", "rejects", "refused", "拒绝"],
  },
  public: { on: ["public", "公开"], off: ["private", "私有"] },
  working: {
    // "is running" names a service up; "has been shut down" is the change that ends it.
    on: [
      "is working",
      "are working",
      "is running",
      "are running",
      "operational",
      "in service",
      "正常运行",
    ],
    off: ["is broken", "are broken", "broken", "out of order", "out of service", "坏了", "故障"],
  },
  married: { on: ["married", "已婚"], off: ["single", "unmarried", "divorced", "单身", "离婚"] },
  open: { on: ["open", "opens", "营业", "开门"], off: ["closed", "休息", "关门", "歇业", "打烊"] },
  in_stock: {
    on: ["in stock", "有货"],
    off: ["out of stock", "sold out", "缺货", "售罄"],
  },
  available: { on: ["available"], off: ["unavailable", "not available"] },
  supported: { on: ["supported"], off: ["unsupported", "no longer supported"] },
  compatible: {
    on: ["compatible with", "works with", "work with", "兼容"],
    off: ["incompatible with", "不兼容"],
  },
  online: { on: ["online", "上线"], off: ["offline", "下线"] },
  paid: { on: ["paid"], off: ["unpaid"] },
  full_time: { on: ["full-time", "full time", "全职"], off: ["part-time", "part time", "兼职"] },
  // Where someone works: the office side is named by its place ("from the office", "on
  // site", "去办公室上班"); "in the office" alone also locates things ("pets are allowed in the
  // office"), so only phrases that say where a person works count.
  remote: {
    on: ["remote", "remotely", "from home", "works at home", "在家办公", "居家办公", "远程"],
    off: [
      "on-site",
      "onsite",
      "on site",
      "from the office",
      "works in the office",
      "work in the office",
      "back in the office",
      "back to the office",
      "去办公室上班",
      "到办公室上班",
      "回办公室上班",
      "坐班",
    ],
  },
  // A resource shared between users against one given to a single user.
  shared: { on: ["shared with", "shared by", "共享"], off: ["dedicated to", "专用", "独占"] },
  // Read-only and writable are one switch ("read-only for everyone" is a state, not the
  // qualifier "only for"): the reader joins "read-only" into one word before qualifiers.
  read_only: {
    on: ["readonly", "只读"],
    off: ["writable", "read-write", "accepts writes", "accept writes", "可写", "可读写"],
  },
  // A diet: what a vegetarian does not eat, eaten, is the opposite state.
  vegetarian: {
    on: ["vegetarian", "vegan", "素食者", "素食主义者", "吃素"],
    off: ["eats meat", "eat meat", "eating meat", "吃肉", "吃荤"],
  },
  // Away from work and back: leave, sabbatical or a break ends with "back at work".
  on_leave: {
    on: [
      "on leave",
      "on parental leave",
      "on maternity leave",
      "on paternity leave",
      "on sick leave",
      "on sabbatical",
      "休假",
      "休产假",
      "请假",
    ],
    off: [
      "back at work",
      "back from leave",
      "returned to work",
      "back to work",
      "复工",
      "回来上班",
    ],
  },
  // Employment by contract against a place on the staff.
  contractor: {
    on: ["contractor", "freelancer", "freelance", "外包", "合同工"],
    off: ["permanent employee", "salaried employee", "on staff", "on the payroll", "正式员工"],
  },
  // Payment: a place that takes cash against one that is cashless.
  cash: {
    on: ["accepts cash", "accept cash", "takes cash", "take cash", "收现金"],
    off: ["cashless", "card only", "card-only", "不收现金"],
  },
  // The negative side of a preference: "hates" reads as "likes" negated. Its token is the
  // preference family's, so "loves" / "hates" meet on one word.
  "@preference": {
    on: [],
    off: ["hates", "hate", "dislikes", "dislike", "detests", "can not stand", "讨厌", "不喜欢"],
  },
};

/**
 * Phrases that narrow a statement to a part of what the other row covers ("the 50 MB limit
 * applies per file", "students pay $30", "an extra $20 for parking"): such a row qualifies the
 * other, it does not replace it. Without a named change, a row with one of these (and the
 * other without) is not a contradiction.
 */
export const QUALIFIER_PHRASES: readonly string[] = [
  "applies per",
  "applies to each",
  "applies to every",
  "per file",
  "per item",
  "per person",
  "per seat",
  "per request",
  "per room",
  "per workspace",
  "per device",
  "each file",
  "each separately",
  "separately",
  "extra",
  "additional",
  "surcharge",
  "on top of",
  "on orders over",
  "on orders above",
  "orders over",
  "students",
  "children",
  "seniors",
  "members get",
  "discount",
  "except",
  "unless",
  "only for",
  "按单个",
  "单个文件",
  "另加",
  "额外",
  "学生",
];

/**
 * Short forms written for the long ones in notes ("docs" / "documentation", "repo" /
 * "repository"): the stemmer reads both as the long form.
 */
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  doc: "documentation",
  docs: "documentation",
  repo: "repository",
  repos: "repository",
  config: "configuration",
  configs: "configuration",
  db: "database",
  dbs: "database",
  prod: "production",
  env: "environment",
  envs: "environment",
  app: "application",
  apps: "application",
  admin: "administrator",
  admins: "administrator",
  info: "information",
  stats: "statistics",
  spec: "specification",
  specs: "specification",
};

/**
 * Nouns made from verbs whose stem the suffix rules cannot recover ("retention" / "retain",
 * "registration" / "register"): read as the verb, so "data retention is 30 days" and "we
 * retain data for a year" share their attribute.
 */
export const DERIVED_FORMS: Readonly<Record<string, string>> = {
  registration: "register",
  retention: "retain",
  subscription: "subscribe",
  extension: "extend",
  decision: "decide",
  description: "describe",
  expiry: "expire",
  admission: "admit",
  assignment: "assign",
  weight: "weigh",
};

/**
 * Irregular past forms mapped to their base, so a passive or past restatement ("the team is
 * led by Chloe" / "Chloe leads the team") shares its verb with the present one.
 */
export const IRREGULAR_FORMS: Readonly<Record<string, string>> = {
  led: "lead",
  ran: "run",
  run: "run",
  wrote: "write",
  written: "write",
  held: "hold",
  kept: "keep",
  took: "take",
  taken: "take",
  gave: "give",
  given: "give",
  made: "make",
  paid: "pay",
  sold: "sell",
  built: "build",
  bought: "buy",
  sent: "send",
  spent: "spend",
  chose: "choose",
  chosen: "choose",
  met: "meet",
  taught: "teach",
  brought: "bring",
  known: "know",
  grew: "grow",
  grown: "grow",
  began: "begin",
  begun: "begin",
  shown: "show",
  seen: "see",
  found: "find",
};

/**
 * Verbs whose object can hold many values at once ("Julia reviews migrations" and "Julia
 * reviews API changes", "the kids love sandcastles" and "…love chalk"): a different object is
 * one more value, not a replacement, unless a change is named.
 */
export const MULTI_VALUED_VERBS: readonly string[] = [
  "like",
  "likes",
  "love",
  "loves",
  "enjoy",
  "enjoys",
  "show",
  "shows",
  "review",
  "reviews",
  "include",
  "includes",
  "support",
  "supports",
  "handle",
  "handles",
  "cover",
  "covers",
  "contain",
  "contains",
  "read",
  "reads",
  "play",
  "plays",
  "watch",
  "watches",
  "visit",
  "visits",
  "speak",
  "speaks",
  "collect",
  "collects",
  // What one dislikes or avoids is a list too ("spicy food", "sweet drinks").
  "dislike",
  "dislikes",
  "avoid",
  "avoids",
  // "allergic to peanuts" and "allergic to shellfish" can both hold.
  "allergic",
  "喜欢",
  "爱",
];

/**
 * Values of one attribute that exclude each other, which two rows name in their own words
 * ("Mike commutes by car" / "Mike now takes the train to work", "the newsletter is sent weekly"
 * / "the newsletter went monthly", "the build runs on Jenkins" / "builds are now done with
 * GitHub Actions"). Each group is one attribute; each member lists the phrases that name one
 * value. With a change named on one side only and the same subject, a different member is a
 * new value even though the rows share few other words. Groups stay small and closed: an open
 * list (any name) would meet every pair that mentions two tools for two jobs.
 */
export const EXCLUSIVE_ALTERNATIVES: Readonly<Record<string, readonly (readonly string[])[]>> = {
  // How often something recurs.
  frequency: [
    ["daily", "every day", "each day", "每天", "每日"],
    ["weekly", "every week", "each week", "once a week", "每周", "每星期"],
    ["biweekly", "every two weeks", "every other week", "fortnightly", "每两周"],
    ["monthly", "every month", "each month", "once a month", "每月", "每个月"],
    ["quarterly", "every quarter", "每季度"],
    ["yearly", "annually", "every year", "once a year", "每年"],
  ],
  // How someone gets to work or travels.
  transport: [
    ["by car", "drives", "drive to work", "开车"],
    ["by train", "takes the train", "take the train", "坐火车", "坐地铁"],
    ["by bus", "takes the bus", "take the bus", "坐公交"],
    ["by bike", "by bicycle", "cycles", "bikes to", "骑车", "骑自行车"],
    ["on foot", "walks to", "步行"],
  ],
  // How notes and drafts are written.
  writing: [
    ["by hand", "handwritten", "手写"],
    ["types", "typed", "on a laptop", "on the computer", "打字"],
  ],
  // What someone drinks by habit ("prefers tea in the morning" / "drinks coffee every morning
  // now").
  drink: [["tea", "green tea", "喝茶"], ["coffee", "espresso", "喝咖啡"]],
  // Which seat someone books.
  seat: [["window seat", "window seats", "靠窗"], ["aisle seat", "aisle seats", "靠过道"]],
  // Where builds run: continuous-integration services.
  ci: [
    ["jenkins"],
    ["github actions"],
    ["gitlab ci"],
    ["circleci", "circle ci"],
    ["travis", "travis ci"],
    ["buildkite"],
  ],
  // Where a service is hosted: the public clouds.
  cloud: [
    ["aws", "amazon web services"],
    ["google cloud", "gcp"],
    ["azure"],
    ["digitalocean"],
    ["hetzner"],
    ["阿里云"],
    ["腾讯云"],
  ],
  // How people are reached.
  channel: [
    ["email", "e-mail", "邮件"],
    ["by phone", "phone call", "phone calls", "电话"],
    ["slack"],
    ["microsoft teams", "teams chat"],
    ["whatsapp"],
    ["微信"],
  ],
};

/**
 * Words that name a change on one side of a pair ("now", "switched", "went monthly",
 * "改为"): with different members of one exclusive group, they mark the new value.
 */
export const ALTERNATIVE_CHANGE_MARKERS: readonly string[] = [
  "now",
  "from now on",
  "these days",
  "since",
  "no longer",
  "switched",
  "moved",
  "changed",
  "went",
  "became",
  "instead",
  "现在",
  "改为",
  "改用",
  "换成",
  "不再",
];
