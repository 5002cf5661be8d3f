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
/** Jobs claimed per round. */
export const JOB_CLAIM_BATCH = 8;
/** Finished jobs are pruned after this long. */
export const JOB_DONE_RETENTION_MS = 24 * 60 * 60_000;
