/**
 * When the process last served a request. Background work reads it to step back while
 * agents are calling: a bulk import or a burst of writes gets the thread first, and the
 * backlog they leave (conflict checks, embeddings) drains when the calls stop.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteRequest, servingRequests } from "./activity.ts";
 *
 * noteRequest();
 * assert.equal(servingRequests(), true);
 * ```
 * @module
 */
import { JOB_FOREGROUND_WINDOW_MS } from "./constants.ts";

let lastRequestAt = Number.NEGATIVE_INFINITY;

/** Records that a request is being served now. */
export function noteRequest(): void {
  lastRequestAt = performance.now();
}

/** True when a request was served within the last {@linkcode JOB_FOREGROUND_WINDOW_MS}. */
export function servingRequests(): boolean {
  return foregroundRemainingMs() > 0;
}

/** How long until the process counts as idle again (0: idle now). */
export function foregroundRemainingMs(): number {
  return Math.max(0, lastRequestAt + JOB_FOREGROUND_WINDOW_MS - performance.now());
}

/**
 * Resolves once no request came for {@linkcode JOB_FOREGROUND_WINDOW_MS}, or after `maxMs` of
 * requests without such a pause: for background work that would hold the thread too long to run
 * between two calls.
 */
export async function untilQuiet(maxMs: number): Promise<void> {
  const deadline = performance.now() + maxMs;
  for (;;) {
    const wait = Math.min(foregroundRemainingMs(), deadline - performance.now());
    if (wait <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
  }
}
