/**
 * Job queue tunables.
 * @module
 */

/**
 * How long a claim holds a job. A worker that crashes or hangs loses the job
 * to another worker after this; embedding a batch of rows takes well under a
 * second with the static model, so 60 s leaves room for slow real models.
 */
export const JOB_LEASE_MS = 60_000;
/** Attempts before a job is poisoned (kept for inspection, never retried). */
export const JOB_MAX_ATTEMPTS = 5;
/** First retry delay; doubled per attempt up to the cap below. */
export const JOB_RETRY_BASE_MS = 1_000;
/** Longest retry delay. */
export const JOB_RETRY_MAX_MS = 5 * 60_000;
/** How often an idle worker looks for work. */
export const JOB_POLL_MS = 250;
/**
 * Jobs claimed per round. A conflict check takes 1–5 ms, so 64 are a fraction of a second of
 * work, far inside the lease; claiming 8 at a time spent a transaction per 8 jobs.
 */
export const JOB_CLAIM_BATCH = 64;
/**
 * Longest run of jobs between two turns for requests, in ms (issue 11: background work never
 * holds a request more than 10 ms). A job that is already running finishes first, so one job
 * must itself stay short: conflict checks are bounded by their postings budget and embedding
 * runs in batches.
 */
export const JOB_SLICE_MS = 8;
/**
 * The slice while requests flow: one job (any budget below a job's duration). With calls
 * back to back every slice delays the call that arrives during it, so at 100k memories an
 * 8 ms slice every ~260 ms put ~14% of `find` calls 8+ ms late (find p95 51 → 60 ms through
 * MCP with a 100k-check backlog); one job (2–3 ms) bounds that delay.
 */
export const JOB_SLICE_SERVING_MS = 0;
/** Finished jobs are pruned after this long. */
export const JOB_DONE_RETENTION_MS = 24 * 60 * 60_000;

/**
 * A request within this many ms means agents are calling: background work then pauses
 * {@linkcode JOB_PAUSE_WHILE_SERVING_MS} after each slice, so a burst of calls gets the thread
 * first and the backlog it leaves (conflict checks, embeddings) drains when the calls stop.
 * Through MCP at 10k memories, one remember at a time: 251 memories/s with the checks
 * interleaved, 496/s with the pause (the backlog then drained in 12.6 s).
 */
export const JOB_FOREGROUND_WINDOW_MS = 50;
/**
 * Longest pause after a slice while requests are being served: the worker waits until no
 * request came for {@linkcode JOB_FOREGROUND_WINDOW_MS}, at most this long, so calls back to back
 * leave background work one job every ~250 ms (~1% of the thread), while a lone call (a status
 * poll) holds it up ≤ 50 ms. A call that arrives during a slice waits for it: with a fixed
 * 25 ms pause (24% of the thread) and then 100 ms, that showed in `find`'s and `remember`'s p95
 * while a backlog drained (through MCP at 1k, find p95 17.6 ms against 6.2 ms for the peer).
 */
export const JOB_PAUSE_WHILE_SERVING_MS = 250;
