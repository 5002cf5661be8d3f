/**
 * Every recall tunable, each with where its value came from. Change a number
 * here only with a measurement (bench/locomo_recall.ts) written beside it.
 * @module
 */

/** Outline entries in a preview (SPEC §6). */
export const OUTLINE_MAX_ENTRIES = 8;
/** Characters of each outline head (memory-arbiter used 40; agents read it fine). */
export const OUTLINE_HEAD_MAX_CHARS = 40;
/**
 * Content up to this many characters is returned whole even in preview mode:
 * an outline of a one-sentence fact costs as much as the fact and forces a read.
 */
export const PREVIEW_INLINE_MAX_CHARS = 280;
/** BPE tokenizers average about four characters per token on English and JSON. */
export const CHARS_PER_TOKEN_LATIN = 4;

/**
 * Candidates ranked per query before paging. Pages inside this pool are stable
 * across offsets; deeper pages grow the pool to offset + limit + 1.
 */
export const CANDIDATE_POOL = 200;
/** Subject/tag LIKE candidates per query (the "surface" seats of memory-arbiter). */
export const SURFACE_POOL = 50;
/** LIKE candidates when FTS5 cannot serve the query. */
export const LIKE_POOL = 500;

/**
 * Rerank weights. The full-text score is BM25 normalized to the best hit of
 * the pool (0..1). Coverage is the share of query terms present anywhere; the
 * subject and tag terms are the shares present there. Initial values: coverage
 * dominates so that a memory holding every term beats one repeating one term;
 * subject/tag hits are strong signals because the agent chose those words.
 * Measured on the LoCoMo dev split (bench/locomo_recall.ts, 383 questions, R@10 / MRR):
 * text:coverage:subject:tags = 1:1.5:0.8:0.6 → 0.659 / 0.505 (chosen); 2:1.5:0.8:0.6 →
 * 0.667 / 0.501; 1:1:0.3:0.6 → 0.655 / 0.499; 1:2:0:0.6 → 0.647 / 0.493; 2:1:0:0.3 →
 * 0.642 / 0.490; 1.5:1.5:0.2:0.4 → 0.651 / 0.495. Chosen for the best R@5 and MRR.
 */
export const RANK_WEIGHTS = {
  text: 1.0,
  coverage: 1.5,
  subject: 0.8,
  tags: 0.6,
} as const;

/** Trust nudges (SPEC §4 order). Small: trust orders near-ties, it never beats relevance. */
export const TRUST_BOOST = {
  user_confirmed: 0.15,
  document_extracted: 0.08,
  agent_generated: 0,
  unknown: -0.02,
} as const;
/** Extra nudge for locked memories. */
export const LOCKED_BOOST = 0.05;

/** Recency nudges by age of event_time (ingest_time when absent), from memory-arbiter. */
export const RECENCY_BOOST = [
  { maxDays: 7, boost: 0.06 },
  { maxDays: 30, boost: 0.03 },
  { maxDays: 90, boost: 0.01 },
] as const;

/** Superseded memories sort after every live one when they are included at all. */
export const SUPERSEDED_PENALTY = 100;

/**
 * Rows fetched from the vector index per query, before filters. The KNN is
 * exact (sqlite-vec brute force) and its top-k cost grows with k: at 800k rows
 * one query took 927 ms at k = 400 and 253 ms at k = 100 (bench/scale.ts). On
 * the LoCoMo dev split k = 100 measured R@10 0.670 / MRR 0.522 against 0.674 /
 * 0.522 at k = 400, within run-to-run noise, so 100.
 */
export const VECTOR_K_ROWS = 100;
/** Extra rows of one memory that add support to its best row's cosine. */
export const VECTOR_SUPPORT_ROWS = 2;
/** Weight of each supporting row's cosine above the floor (memory-arbiter used 0.08). */
export const VECTOR_SUPPORT_WEIGHT = 0.08;
/**
 * A row counts as a hit (a hit span) when its cosine is within this margin of
 * the memory's best row: sentences of one note sit close together in vector
 * space (same topic words), so a wide margin would mark whole notes.
 */
export const VECTOR_HIT_ROW_MARGIN = 0.03;
/** Similarity floor when the model's manifest entry gives none. */
export const DEFAULT_SIMILARITY_FLOOR = 0.6;
/**
 * Weight of the evidence similarity ((cosine − floor) / (1 − floor), 0..1)
 * added to the lexical score; vector-only memories start from their prior.
 * Measured on the LoCoMo dev split with the static model (R@10 / MRR;
 * lexical alone 0.659 / 0.505 before IDF weighting):
 * weight 0.5 floor 0.6 → 0.660 / 0.498 (chosen); 0.5/0.75 → 0.657 / 0.501;
 * 1.0/0.6 → 0.625; 1.0/0.75 → 0.631; 2.0/either → 0.564.
 * Reciprocal-rank fusion (k 60, vector weight 0.5 / 0.25 / 0.1) measured
 * 0.605 / 0.644 / 0.654: it throws away the lexical score's margins, which
 * matter more than the weak static channel adds, so scores are added instead.
 */
export const HYBRID_VECTOR_WEIGHT = 0.5;

/** Hit spans covering at least this share of the content become the whole content (SPEC §6). */
export const HITS_FULL_COVERAGE = 0.5;
/** Default neighbouring rows around each hit. */
export const HIT_WINDOW_DEFAULT = 0;
/** Most neighbouring rows an agent may ask for. */
export const HIT_WINDOW_MAX = 5;

/** The tag that marks an open item (SPEC §6 linked_open_items). */
export const TODO_TAG = "todo";
/** Most linked open items on one page (SPEC §6). */
export const LINKED_OPEN_ITEMS_MAX = 5;
