/**
 * The numbers of usage-aware ranking (issue 39), each beside its reason. The nudge's defaults
 * follow the seed system mcp-local-memory (half-life 4 weeks, consolidation 1.0); the weight is
 * set so a used memory wins a tie, never a clearly better match (see docs/benchmarks.md
 * "Usage nudge" for LoCoMo R@10 with it on and off).
 * @module
 */

/** Days until an unused memory's usage nudge halves (the seed's `MEMORY_HALF_LIFE_WEEKS` 4). */
export const USAGE_HALF_LIFE_DAYS = 28;
/** How much each doubling of uses stretches the half-life (the seed's consolidation 1.0). */
export const USAGE_CONSOLIDATION = 1;
/** The largest nudge, right after a use; it decays from there and orders near-ties only. */
export const USAGE_WEIGHT = 0.05;
/**
 * How close two scores must be, relative to the higher, for use to order them: a near-tie. A
 * nudge added to the score instead (as at first) moved LoCoMo dev R@10 from 0.778 to 0.773–0.776,
 * pushing memories used by earlier questions past better matches; inside this band it cannot.
 */
export const USAGE_TIE_BAND = 0.01;
/** `find` records a use for this many of its top results (the ones an agent acts on). */
export const USAGE_FIND_TOP = 3;
/** The ledger writes its counts this long after the first unwritten use (ms). */
export const USAGE_FLUSH_DELAY_MS = 2_000;
/** Memories written per flush transaction: each slice is one short write. */
export const USAGE_FLUSH_SLICE = 200;
/**
 * Distinct memories the ledger holds unwritten at most (while the database cannot take
 * writes); uses of further memories are dropped, as a crash would drop them.
 */
export const USAGE_PENDING_MAX = 20_000;
/** After a failed flush, the next try waits this long (ms). */
export const USAGE_RETRY_DELAY_MS = 30_000;
/** At shutdown, the last flush gets this long (ms); what it cannot write is lost. */
export const USAGE_CLOSE_FLUSH_MS = 2_000;
