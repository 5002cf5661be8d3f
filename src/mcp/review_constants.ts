/**
 * How large a `memory_review` view may grow. An agent reads every character it is sent, so a
 * view shows what a decision needs and says where the rest is (a `read` call, an offset, a
 * count). Each value says why it is what it is.
 *
 * @example
 * ```ts
 * import { MEMBER_CONTENT_WHOLE_MAX } from "./review_constants.ts";
 * import assert from "node:assert/strict";
 * assert.equal(MEMBER_CONTENT_WHOLE_MAX, 1_500);
 * ```
 * @module
 */

/**
 * A conflict member's content shown whole up to this many characters: a fact of a few
 * sentences (nearly every remembered fact) reads as before; an imported document does not.
 */
export const MEMBER_CONTENT_WHOLE_MAX = 1_500;
/**
 * Characters of a longer member shown around the row that disagrees: the row and a sentence
 * or two either side, enough to see what it is about; `read` gives the whole.
 */
export const MEMBER_PREVIEW_CHARS = 600;
/** Characters shown before the disagreeing row inside a preview (the lead-in to it). */
export const MEMBER_PREVIEW_LEAD = 200;
/** A member's disagreeing row shown up to this many characters (a row is one sentence). */
export const ROW_TEXT_MAX = 600;
/**
 * Members of one conflict per page. Detection records at most a handful; a group that facts
 * keep joining grows, and 20 side by side is as many as one decision weighs.
 */
export const CONFLICT_MEMBERS_DEFAULT = 20;
/** Largest member page a caller may ask for. */
export const CONFLICT_MEMBERS_MAX = 50;
/** Value groups shown per conflict (record_conflict allows 8; detection rarely more). */
export const VALUE_GROUPS_MAX = 20;
/** Ways of writing one value shown per group ("3 days", "72 hours", …). */
export const VALUE_VARIANTS_MAX = 10;
/** Memory ids listed per value group (the members page lists them all, paged). */
export const VALUE_MEMBER_IDS_MAX = 50;
/**
 * A value shown whole up to this many characters: a value is a word, a number or a phrase;
 * one longer than this is a passage (an agent may record one), and its start says which it
 * is. `one_step` still carries the chosen value whole: it is the judge call to send.
 */
export const VALUE_PREVIEW_CHARS = 300;
/** The suggestion's explanation shown up to this many characters (it names values and trust). */
export const EXPLANATION_MAX = 1_000;
/** Strings inside detection evidence (rows quoted, explanations) cut to this length. */
export const EVIDENCE_STRING_MAX = 500;
/** Items kept per list inside detection evidence (pairs, scores, matched words). */
export const EVIDENCE_ITEMS_MAX = 20;
/** Earlier plans kept in `plan_history` (the latest ones: a replan follows the last). */
export const PLAN_HISTORY_MAX = 10;
/** Versions per page of the history view. */
export const HISTORY_VERSIONS_DEFAULT = 20;
/** Largest history page a caller may ask for. */
export const HISTORY_VERSIONS_MAX = 100;
/** A version's content shown whole in the history view up to this many characters. */
export const HISTORY_CONTENT_WHOLE_MAX = 4_000;
/** Workspaces per page of the workspaces view. */
export const WORKSPACES_PAGE_DEFAULT = 100;
/** Largest workspaces page a caller may ask for. */
export const WORKSPACES_PAGE_MAX = 500;
/**
 * Characters of a unified diff per page: two long documents rewritten end to end make a diff
 * as long as both; 20,000 is a few hundred lines, as much as one reading takes in.
 */
export const HISTORY_DIFF_PAGE_CHARS = 20_000;
/**
 * Workspaces the overview counts by name (the largest): a glance at where the memories are;
 * the workspaces view pages through all of them.
 */
export const OVERVIEW_WORKSPACES_MAX = 50;
