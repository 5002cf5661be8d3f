/**
 * Conflict-detection tunables (docs/SPEC.md §8): the rule stage that decides which evidence pairs
 * look like a change of fact, and the NLI judge that rules on the survivors. Each value says why it
 * is what it is; the rule-stage figures were chosen on the tune half of
 * `tests/conflicts/corpus.json` (`deno task bench:conflicts` prints precision and recall on both
 * halves) and must be re-measured there when changed; the held half is for reporting only.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JUDGE_DEFAULT_THRESHOLDS } from "./constants.ts";
 *
 * assert.equal(JUDGE_DEFAULT_THRESHOLDS.conflict, 0.8);
 * ```
 * @module
 */

/**
 * Smallest share of the shorter row's content words (values, stopwords and update phrases
 * excluded) that the other row must also contain. Two rows about the same attribute repeat its
 * name ("the billing timeout is 30s" / "the billing timeout is now 45s" share everything but
 * the value); unrelated rows that only share a number ("retry limit is 3" / "we run 3 staging
 * environments") share nothing. 0.5 lets one extra word of context through on short rows
 * ("Maria lives in Paris" / "Maria moved to Berlin" share 1 of 2) and still rejects every
 * unrelated pair in the corpus.
 */
export const RULE_MIN_TEXT_OVERLAP = 0.5;

/**
 * The same share, required when both memories have a subject and the two subjects share no
 * content word: different subjects ("Alice" / "Bob") hint at complementary facts about
 * different things, so the sentences themselves must agree on more of their wording.
 */
export const RULE_MIN_TEXT_OVERLAP_DISJOINT_SUBJECTS = 0.67;

/**
 * The share required when a row names a change ("switched to", "moved to", "replaced by"):
 * the change phrase replaces the attribute's verb ("we use Jenkins for CI" / "we switched to
 * GitHub Actions for CI" share only "CI" of three words), and a named change is itself
 * evidence that the rows are about one fact. Still at least one shared word.
 */
export const RULE_MIN_TEXT_OVERLAP_WITH_CHANGE = 0.33;

/** Shared content words required at all; one is enough ("deadline", "owner", "timeout"). */
export const RULE_MIN_SHARED_WORDS = 1;

/**
 * Longest differing word run accepted as "a different value for the same attribute". A value
 * is a name, a place, a tool, a status: rarely more than four words ("GitHub Actions",
 * "221 King Road", "in code review"). Longer runs mean the rows say different things.
 */
export const RULE_MAX_VALUE_WORDS = 4;

/**
 * Fewest words a row must have to count as stated inside a longer row that goes on in a clause
 * of its own (rules.ts `statedWithin`). The README line it was written for has 20 (body-parser:
 * "… matches the `type` option" / "… option, or an empty object if there was no body"); under
 * five words ("the fee is $20") a row is left to the readings of qualifiers and additions.
 */
export const RULE_STATED_WITHIN_MIN_WORDS = 5;

/**
 * Relative gap under which two unit-normalized amounts count as equal, for the dimensions in
 * {@linkcode RULE_TOLERANT_DIMENSIONS} only. 2.5% absorbs the decimal/binary prefix ambiguity
 * (1 GB = 1000 MB or 1024 MB, 2.4% apart) and rounding in restatements ("1 year" / "52 weeks",
 * "$20" / "$20.40").
 */
export const RULE_AMOUNT_TOLERANCE = 0.025;

/**
 * Dimensions (or `prefix:` families) compared with {@linkcode RULE_AMOUNT_TOLERANCE}: only those
 * whose amounts go through a unit conversion or are routinely rounded when restated — sizes,
 * durations, money, mass and length ("50 lb" is 22.7 kg, restated as "23 kg": 1.4% apart). Everything else compares exactly: a percentage is itself the fact (an SLA
 * of 99.9% vs 99.5% is 0.4% apart and a different promise), so are counts ("40 replicas" /
 * "41 replicas"), bare numbers and identifiers ("ticket 1201"), versions and times of day
 * (14:00 / 14:15 are 1.8% apart in minutes after midnight).
 */
export const RULE_TOLERANT_DIMENSIONS: readonly string[] = [
  "bytes",
  "duration",
  "money:",
  "mass",
  "length",
];

/**
 * Relative gap still "equal" in an exact dimension: float rounding only, so "1.1k" (computed
 * 1100.0000000000002) matches "1,100". Far below any difference a person would write.
 */
export const RULE_EXACT_EPSILON = 1e-9;

/**
 * Pair score = overlap · W_OVERLAP + subject overlap · W_SUBJECT + signal · W_SIGNAL (+ bonus),
 * capped at 1. It orders candidates for the judge (strongest first) and gates the weakest: the
 * signal weight dominates because the signal is what makes a pair worth judging; overlap says
 * how surely both rows talk about the same attribute.
 */
export const RULE_SCORE_WEIGHTS = {
  overlap: 0.35,
  subject: 0.15,
  signal: 0.5,
} as const;

/**
 * Signal strengths per kind. Unit-normalized numbers and dates that differ are the most
 * reliable sign of a changed fact; a polarity flip next; a bare word substitution is the
 * weakest (it is also what two differently worded true facts look like).
 */
export const RULE_SIGNAL_STRENGTH = {
  number: 1,
  date: 1,
  negation: 0.9,
  value: 0.7,
  update_phrase: 0.6,
} as const;

/** Added to the score when a row carries an update phrase ("moved to", "no longer", "now"). */
export const RULE_UPDATE_PHRASE_BONUS = 0.1;

/**
 * Pairs scoring below this are dropped even with a signal. With the weights above, a value
 * substitution (0.35) between rows sharing half their words (0.175) passes; a substitution
 * between rows sharing a third of their words under disjoint subjects never reaches here
 * (the overlap gate drops it first), so the gate mostly trims weak one-word-overlap pairs.
 */
export const RULE_MIN_CANDIDATE_SCORE = 0.5;

/** Verdict thresholds on P(contradiction) of the NLI judge. */
export type JudgeThresholds = {
  /** At or above: a confident contradiction (normal notice). */
  conflict: number;
  /** At or above (and below `conflict`): the grey zone (info notice). */
  possible: number;
};

/**
 * Default judge thresholds. 0.8 is the confident-contradiction level the reference
 * implementation's changelog names for its notice gate (its README said 0.5; the
 * inconsistency is why both numbers are pinned here): XNLI cross-encoders put real
 * contradictions mostly above 0.9 and paraphrases below 0.1, so 0.8 keeps normal notices rare
 * and credible, and 0.5 (the model's own argmax boundary for three classes at most) sends the
 * rest of the likely contradictions to the info lane instead of dropping them.
 */
export const JUDGE_DEFAULT_THRESHOLDS: Readonly<JudgeThresholds> = Object.freeze({
  conflict: 0.8,
  possible: 0.5,
});

/**
 * Pairs per model call. The reference judge used 8 on CPU; padding makes a batch cost its
 * longest pair times its size, and rule-stage survivors are few (tens per write), so a small
 * batch bounds memory (8 × 512 tokens on mDeBERTa-base ≈ 12 MB of activations per layer)
 * without losing throughput that matters.
 */
export const JUDGE_BATCH_SIZE = 8;

/**
 * Longest pair, in tokens, when the caller gives none: mDeBERTa-v3 reads 512 positions, and
 * two evidence rows of at most 1,000 characters each fit in 512 tokens in the common case;
 * longer pairs are truncated (longest side first) rather than rejected.
 */
export const JUDGE_DEFAULT_MAX_LENGTH = 512;

/**
 * Judge each pair both ways (a→b and b→a) and keep the direction with the higher
 * P(contradiction). Contradiction is symmetric in logic but NLI models are trained on
 * premise→hypothesis and are not: a longer premise often reads as "neutral" to a shorter
 * hypothesis. Doubling the cost on a few dozen survivors per write is cheap next to a missed
 * conflict.
 */
export const JUDGE_BOTH_DIRECTIONS = true;

/**
 * Fewest words a row needs to be read as a claim ("The cache TTL is 5 minutes." has 6;
 * "Thanks, Jon!" and "Cool!" have 2 and 1). Every pair of the corpus states its facts in
 * three words or more ("Alex eats meat.").
 */
export const CLAIM_MIN_WORDS = 3;
/**
 * Readings of rows kept by `readClaim` (claims.ts): a check reads a neighbour's rows to keep
 * its claims, then the rule stage reads the ones it compares again. At 1M LoCoMo memories a
 * chunk's checks read ~2,000 neighbours of ~2 rows (bench/planned_checks.ts), so 4,096 holds
 * a chunk's worth, like the rule stage's own cache of readings (READ_CACHE_MAX in rules.ts).
 */
export const CLAIM_READS_KEPT = 4_096;
/**
 * Per-text readings the rule stage's pair tests keep (the choices a row takes and turns down,
 * the exclusive alternatives it names): a check compares each of its rows with every
 * neighbour's, and the rows of a chunk's checks fit in 4,096 as the claims do.
 */
export const RULE_TEXT_READS_KEPT = 4_096;

/**
 * A free-word value ("Jira" vs "Linear", "tabs" vs "spaces") counts only inside a frame of
 * at least this many shared words of three letters or more ("team tracks work", "priya
 * prefers indentation"). Chat shares one word ("appreciate them a lot" / "appreciate your
 * help") and made 231 such pairs per 300 LoCoMo turns; every value pair of the corpus has two.
 */
export const RULE_VALUE_MIN_FRAME_WORDS = 2;
/** Longest free-word value on either side, in words ("GitHub Actions", "oat milk"). */
export const RULE_VALUE_MAX_WORDS = 2;
/**
 * Longest free-word value when both rows give it after the same place preposition ("the spare
 * keys are in the top drawer" / "… in the blue box on the shelf"): a place is often a noun
 * phrase of three or four words.
 */
export const RULE_PLACE_MAX_WORDS = 4;

/**
 * Most words a row may add on its side when a named change of state lets a reworded pair
 * through ("Vault was decommissioned and secrets are now kept in AWS Secrets Manager" adds
 * four). Longer additions are a different story told next to the old one. Chosen on the tune
 * half of tests/conflicts/corpus.json.
 */
export const RULE_CHANGE_MAX_EXTRA_WORDS = 6;

/**
 * Share of the shorter row's attribute words two rows with different amounts (money, dates,
 * sizes) must share when each also has words the other lacks. Below it, "billing timeout 30s" /
 * "search timeout 45s" (half shared) are two settings; at or above it, the rows reword one
 * setting ("enterprise tier starts at $2,000" / "enterprise pricing begins at $2,500", two of
 * three). Chosen on the tune half of tests/conflicts/corpus.json.
 */
export const RULE_MIN_OVERLAP_REWORDED_VALUE = 0.6;

/**
 * Fewest letters a derivational suffix may leave when the stemmer reads a noun as its verb
 * ("migration" → "migr" meets "migrated"; "vacation", "station" and "location" stay whole, so
 * they never meet "vac-", "st-" or "loc-" words). Chosen on tests/conflicts/corpus_probe.json.
 */
export const RULE_DERIVED_MIN_BASE = 4;

/**
 * Words whose stems are kept (src/conflicts/sentence.ts). Stemming was a third of reading a chat
 * turn for the duplicate test; 20,000 words (~2 MB) hold a large library's working vocabulary.
 */
export const STEM_CACHE_MAX = 20_000;

/**
 * Share of the smaller row's remaining words (the crossing items left out) two rows must share
 * when each takes what the other turns down ("pnpm, not npm" / "npm; pnpm no longer"): the
 * swap itself is strong evidence, so one word of a common frame is enough ("secrets" in
 * "store secrets in Vault, never in env files" / "secrets live in env files; Vault no longer").
 * Chosen on the tune half of tests/conflicts/corpus.json (the v3- pairs).
 */
export const RULE_REVERSAL_MIN_FRAME = 0.34;
/**
 * The same share when only one row turns down what the other takes ("squash, do not rebase" /
 * "rebase when merging"): most of the frame must be shared, or the rows are two tasks that
 * happen to name one tool ("use pnpm, not npm, to install" / "use npm to publish").
 */
export const RULE_REVERSAL_ONE_WAY_MIN_FRAME = 0.6;

/**
 * Two windows of the day that never meet, in rows that share few words as written: the rows'
 * words are compared by their first 5 letters (enough for "delivers" / "deliveries" and
 * "visiting" / "visitors" to meet, which the stemmer keeps apart), and every word of the
 * shorter row must be shared that way. Two thirds let "the cleaning crew comes in the evening"
 * meet "the window cleaners come early in the morning", another crew.
 */
export const RULE_WINDOW_PREFIX = 5;
export const RULE_WINDOW_MIN_SHARE = 1;
