/**
 * Workspace tunables, each with where it came from.
 * @module
 */

/**
 * A new workspace name this close to an existing one (edit distance, a swap of two
 * neighbouring letters counting once) gets a `did_you_mean` hint: issue 13 asks for ≤ 2
 * ("alpah" vs "alpha" is 1). The distance must also stay below half the shorter name, so
 * "qa" and "ux" (distance 2, nothing alike) are not offered as typos of each other.
 */
export const NEAR_NAME_MAX_DISTANCE = 2;

/**
 * The fixed ranking nudge `weak` isolation gives the caller's own workspace, added to the
 * rank score (text relevance is ~0–1.5 after the rerank, trust nudges are 0.02–0.05).
 * Large enough to order near-ties toward the caller's project, small enough that a clearly
 * better match elsewhere still wins. The seed system also uses a fixed binary nudge.
 */
export const WEAK_ISOLATION_NUDGE = 0.1;
