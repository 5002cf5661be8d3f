/**
 * Tunables of the embedding provider client (src/models/provider_embedder.ts). None was
 * measured against a real server here (there is none on the test machine); each is the usual
 * figure of the public APIs it talks to, said beside it.
 * @module
 */

/**
 * Retries of one background batch after its first try. With the doubling backoff below that is
 * 0.5 + 1 + 2 s of waiting: a model server restarting or a short rate-limit window passes
 * within it; a longer outage is the outage path's job (the job sleeps, nothing spins).
 */
export const PROVIDER_RETRIES = 3;
/** First backoff between retries of a batch when the server gives no `Retry-After`. */
export const PROVIDER_RETRY_BASE_MS = 500;
/**
 * Longest `Retry-After` waited for inside a batch. OpenAI's and Voyage's rate-limit windows ask
 * for seconds to tens of seconds; longer than this, the batch gives up and the job is scheduled
 * for that time instead of holding the worker.
 */
export const PROVIDER_RETRY_AFTER_MAX_MS = 20_000;
/** After the first failed call, the endpoint is left alone this long; doubled per failure. */
export const PROVIDER_OUTAGE_BASE_MS = 2_000;
/** The longest pause between two tries of an endpoint that keeps failing. */
export const PROVIDER_OUTAGE_MAX_MS = 60_000;
/** How much of a server's error body a message quotes (after the key is cut out). */
export const PROVIDER_ERROR_BODY_CHARS = 200;
/**
 * Longest text sent, in characters (cut at a code point). A refused batch is not retried and
 * stops embedding until the next try, so one text over a hosted API's input limit (OpenAI:
 * 8,192 tokens, an error, not a cut) must never be sent: 4,000 characters stay under it even at
 * two tokens per character (CJK). Local servers cut far shorter themselves (e5 and nomic read
 * 512 tokens by default, ~2,000 characters), and mema's chunks are ≤ 400 characters unless one
 * sentence is longer.
 */
export const PROVIDER_INPUT_MAX_CHARS = 4_000;
