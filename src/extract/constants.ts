/**
 * The numbers and word lists of fact extraction (issue 39, `memory` action `extract`), each
 * beside its reason. The score weights and the threshold were chosen on LoCoMo conv-26's
 * session summaries against the observations the data set ships, and reported on conv-30 and
 * conv-41 (bench/extract_facts.ts; docs/benchmarks.md "Facts from a summary").
 * @module
 */

/** The longest text `extract` reads (a summary or notes, not a transcript). */
export const EXTRACT_TEXT_MAX = 20_000;
/** Most candidates one answer holds, best first. */
export const EXTRACT_CANDIDATES_MAX = 50;
/** A clause shorter than this many words states too little to keep ("Sounds good."). */
export const MIN_WORDS = 4;
/** Words of a suggested subject. */
export const SUBJECT_WORDS = 5;
/** Tags suggested per candidate. */
export const TAGS_MAX = 3;

/** Score parts; a candidate is kept at {@linkcode KEEP_SCORE} or more. */
export const SCORE = {
  /** Start: any clause of enough words. */
  base: 0.2,
  /** Names a person, place or thing (a capitalised word past the first). */
  entity: 0.3,
  /** States a number or a date. */
  quantity: 0.2,
  /** Says what someone did, does or will do (a past-tense or state verb). */
  event: 0.2,
  /** Describes the conversation rather than a fact ("X praised Y", "they both emphasized"). */
  dialogue: -0.4,
  /** Hedged ("maybe", "might", "I think"). */
  hedge: -0.2,
} as const;
/**
 * Kept at this score or more: the best F1 on conv-26 (0.42 at 0.5; 0.41 keeping every clause),
 * held out on conv-30 and conv-41: recall 0.19, precision 0.38 (every clause: 0.25, 0.29).
 */
export const KEEP_SCORE = 0.5;

/** Greetings and acknowledgements: no fact in them. */
export const FILLER_START =
  /^(?:thanks|thank you|hi|hello|hey|ok|okay|sure|great|cool|bye|goodbye|good (?:morning|night|evening)|sounds good|no problem|you're welcome)\b/i;
/** Words that describe the talk, not the world ("Melanie praised Caroline's empathy"). */
export const DIALOGUE_WORDS =
  /\b(?:had a (?:conversation|chat|talk)|talked about|praised|complimented|thanked|encouraged|emphasi[sz]ed|appreciated|congratulated|reassured|agreed that|both|each other|expressed (?:their|her|his) (?:gratitude|support|excitement))\b/i;
/** Hedges: a guess is a weak fact. */
export const HEDGE_WORDS =
  /\b(?:maybe|might|perhaps|probably|possibly|i think|i guess|not sure)\b/i;
/** State and change verbs that make a clause a fact about someone or something. */
export const EVENT_WORDS =
  /\b(?:is|are|was|were|has|have|had|will|plans?|planned|planning|decided|moved|lives?|lived|works?|worked|started|uses?|used|prefers?|likes?|loves?|wants?|needs?|bought|joined|attended|went|got|made|finished|became|owns?|runs?|adopted|visited|received|won|lost|signed|[a-z]{3,}ed)\b/i;
/** Words before the fact in reported speech: left out of a suggested subject. */
export const REPORTING_WORDS = new Set([
  "mentioned",
  "said",
  "says",
  "told",
  "noted",
  "explained",
  "shared",
  "added",
  "stated",
  "that",
  "also",
]);
/** Capitalised words that name no one: pronouns and sentence openers. */
export const NOT_ENTITIES = new Set([
  "i",
  "i'm",
  "i've",
  "i'll",
  "i'd",
  "he",
  "she",
  "they",
  "we",
  "you",
  "it",
  "the",
  "a",
  "an",
  "this",
  "that",
  "these",
  "those",
  "there",
  "then",
  "when",
  "while",
  "after",
  "before",
  "and",
  "but",
  "so",
  "if",
  "my",
  "our",
  "their",
  "his",
  "her",
]);
