/**
 * Evidence-row tunables (docs/SPEC.md §3 `memory_rows`, §7). Each value says why it is
 * what it is; change one only with the reason written beside it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ROW_MAX_CHARS } from "./constants.ts";
 *
 * assert.ok("a very long sentence".length <= ROW_MAX_CHARS);
 * ```
 * @module
 */

/**
 * Longest row, in UTF-16 code units. Rows are embedded one by one and shown as
 * hit spans: multilingual-e5-small reads at most 512 tokens, and 1,000
 * characters (~250 English tokens, ~700 CJK tokens worst case) stays near or
 * under that, so a row's vector still describes all of its text. It also keeps
 * one pathological "sentence" (a pasted log line, a base64 blob) from becoming
 * a 2 MiB hit span. Longer runs are cut at the last whitespace or comma below
 * the cap, or hard-cut (never inside a surrogate pair) when there is none.
 */
export const ROW_MAX_CHARS = 1000;

/**
 * Longest abbreviation looked up before a period. Every entry below is shorter;
 * a longer word before ". " is never an abbreviation, so the lookup stops here
 * and sentence splitting stays linear in the content length.
 */
export const ABBREVIATION_MAX_CHARS = 12;

/**
 * Abbreviations after which ". " never ends a sentence: titles and connectives
 * that are always followed by more of the same sentence ("Dr. Smith",
 * "e.g. this", "vs. that", "No. 5"). Lowercase, with their final period.
 */
export const ABBREVIATIONS_MID_SENTENCE: ReadonlySet<string> = new Set(
  (
    "mr. mrs. ms. mx. dr. prof. sr. st. mt. rev. hon. gen. col. capt. lt. sgt. " +
    "e.g. i.e. eg. ie. cf. vs. viz. approx. ca. fig. figs. vol. p. pp. ch. " +
    "ed. eds. dept. resp. incl. excl. u.s. u.k. e.u."
  ).split(" "),
);

/**
 * Abbreviations that are also sentence-final words or often end a sentence
 * ("…pears, etc. Then we left.", "I said no. Then…"): ". " after them ends the
 * sentence only when an uppercase letter follows, so "etc. and more",
 * "No. 5" and "Jan. 3" stay one row.
 */
export const ABBREVIATIONS_MAYBE_FINAL: ReadonlySet<string> = new Set(
  (
    "etc. inc. ltd. co. corp. llc. plc. jr. a.m. p.m. ph.d. bros. al. " +
    "no. nos. min. max. sec. est. ref. " +
    "jan. feb. mar. apr. jun. jul. aug. sep. sept. oct. nov. dec."
  ).split(" "),
);

/**
 * `row_index` of the subject row. Content rows count from 0 in content order,
 * so the subject, which is not part of the content, sits before them.
 */
export const SUBJECT_ROW_INDEX = -1;

/** Job kind that embeds rows lacking a vector in the current embedding space. */
export const EMBED_JOB_KIND = "embed_rows";

/**
 * The job that switches the vector index to the configured model's space after a model change
 * (recreates the vector table, then leaves the filling to the {@linkcode EMBED_JOB_KIND} job).
 */
export const REBUILD_JOB_KIND = "rebuild_vectors";

/** The rebuild job's dedupe key: one pending rebuild, however many servers notice the change. */
export const REBUILD_DEDUPE_KEY = "space-change";

/** Rows embedded and committed together: one model batch-set, small enough to lose little on a crash. */
export const EMBED_BATCH_ROWS = 128;

/**
 * How long the vector state (three COUNT queries) is reused between responses.
 * Every response reports it; half a second of staleness in a warning costs
 * nothing, a count per call would cost milliseconds at 100k rows.
 */
export const DESCRIBE_CACHE_MS = 500;
/**
 * A count that took t ms is kept at least t × this long, so counting takes at most ~0.5% of the
 * thread however large the index (the counts grow with the rows: ~4–20 ms at 100k memories).
 */
export const DESCRIBE_COST_FACTOR = 200;

/**
 * Meta key set once every memory is known to have its evidence rows: on a new database, or
 * when a search for memories without rows came back empty. Every write stores its rows in its
 * own transaction, so it stays true; with it the serve start skips that search, which reads the
 * whole library (687 ms at 100k memories on a loaded machine, seconds at 1M, inside
 * `initialize`).
 */
export const EVIDENCE_ROWS_COMPLETE_KEY = "evidence_rows_complete";

/** Memories given rows per backfill transaction (databases from before generation 2). */
export const ROW_BACKFILL_BATCH = 200;

/**
 * The worker's poll interval, which is also its first delay: the handshake and
 * the first calls go first, the model loads after (docs/SPEC.md §7: never during the handshake).
 */
export const EVIDENCE_WORKER_START_DELAY_MS = 1000;

/**
 * Share of the current rows that must have been embedded (a vector, or marked as having none)
 * before `find` uses the vector channel and `mode` says `hybrid`. Below it, recall by meaning
 * would silently miss most of the library while claiming to search it, so find stays lexical
 * and says how far the index is. 95% rather than 100% so the few rows of the latest writes,
 * embedded within a second by the worker, do not flip every response back to lexical.
 */
export const HYBRID_MIN_COVERAGE = 0.95;

/**
 * Most characters of rows embedded as one vector (src/evidence/chunks.ts). 400 characters
 * is a short paragraph: well inside the 512 tokens of the small transformer models, and for
 * the static model (a mean of word vectors) a fact of a few sentences reads as one.
 */
export const EMBED_CHUNK_CHARS = 400;

/**
 * Word rows of the built-in static model kept for query vectors (src/evidence/semantic.ts): 20,000
 * words of 100 floats are ~8 MB.
 */
export const QUERY_WORD_ROWS_MAX = 20_000;

/**
 * Background work (embedding rows, a conflict check's neighbours by meaning) that would load the
 * embedding model waits for a pause in requests first, at most this long: loading it holds the
 * thread in pieces of up to ~140 ms (transformers.js and the ONNX session; with the built-in
 * static model, three calls of 45–140 ms in a one-call-at-a-time ingest at 1k). A `find` that
 * needs a query vector loads it at once, on its own time.
 */
export const MODEL_LOAD_QUIET_MAX_MS = 30_000;

/**
 * Vectors a serving process adds to its in-memory copy per page of the background load
 * (src/evidence/vector_copy_load.ts): ~2 µs each, so a page holds a request ≤ ~5 ms, and
 * 1.1M vectors load in ~550 pages. Two sqlite-vec chunks of 1,024; PostgreSQL's keyset pages
 * were 2,000 rows already.
 */
export const VECTOR_COPY_PAGE_VECTORS = 2_048;

/**
 * Without requests, pages of the background load run back to back for this long before a turn
 * for whatever arrives (the job worker's slice, `JOB_SLICE_MS`, is as long). While calls come
 * back to back, one page runs between two of them: 8 ms slices then raised the cold `find` p95
 * at 1M (load 7.5 on the 2 cores: 105 → 169 ms against the load at the first `find`), since
 * every call waited for one.
 */
export const VECTOR_COPY_SLICE_MS = 8;
