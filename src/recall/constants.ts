/**
 * Every recall tunable, each with where its value came from. Change a number
 * here only with a measurement (bench/locomo_recall.ts) written beside it.
 * @module
 */

/** Outline entries in a preview (docs/SPEC.md §6). */
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
/**
 * The pool is the memories holding the most IDF weight of the query's (pruned) words, read
 * from the index's postings without scoring, instead of FTS5's BM25 top hits, when the kept
 * words' postings number at most {@link WORD_POOL_MAX_POSTINGS}: the rerank computes its own
 * BM25 over the pool anyway, and FTS5's bm25() costs ~2.4 µs per matching memory (1.0 of
 * 1.2 ms per query at 1,000 memories). LoCoMo dev R@10 with / without follows: lexical
 * 0.774 / 0.700 → 0.774 / 0.698 (one conv-26 question), static model 0.785 / 0.717 →
 * 0.787 / 0.721.
 */
export const WORD_POOL = true;
/**
 * Past this many postings the pool is FTS5's BM25 again: with thousands of matches many
 * memories hold the same rare words, and BM25's term counts, lengths and field weights pick
 * better among them than the summed IDF's tie-break (newest first). R@10 at library scale,
 * 400 renamed LoCoMo questions in process (bench/side_by_side.ts' library), BM25 pool / word
 * pool always / word pool up to 2,000 postings: 10k 0.587 / 0.591 / 0.596; 100k 0.499 / 0.482
 * / 0.499 (3,000 and 5,000: 0.499), find p50 25.5 / 18.1 / 19.6 ms. Queries at 1,000
 * memories stay under it. Measured again at 10k (in process, two passes): 2,000 → 0.596, p50
 * 5.3–5.9 ms; 3,000 → 0.584; 5,000 → 0.592, p50 3.6–3.9 ms; 10,000 → 0.590: a third off the
 * query's time for fewer evidence turns found, and 10k `find` already stays inside the peer's p95.
 */
export const WORD_POOL_MAX_POSTINGS = 2_000;
/**
 * Most query terms scored per query, rarest first. A pasted 4,000-character query has
 * hundreds of terms; its rarest dozen pick the same memories at a bounded cost.
 */
export const QUERY_TERMS_MAX = 12;
/**
 * Most postings (summed document frequencies) a query scores: the terms past this budget
 * are the library's most common words, whose BM25 weight is near zero. FTS5 scores a
 * posting in ~1 µs, so the budget bounds the full-text query whatever the library size.
 * Through MCP at 100k memories (bench/side_by_side.ts) 20,000 gave find p50 33 ms, p95 52
 * ms; LoCoMo dev is too small to reach either budget (same recall).
 */
export const QUERY_POSTINGS_BUDGET = 10_000;
/**
 * When even the query's rarest word is held by more memories than the postings budget (at a
 * million memories most LoCoMo questions' words are), the pool is taken from the newest holders
 * of this many of its rarest words, each read up to an equal share of the budget, and scored
 * by the summed IDF of the words held: the read stops at the budget instead of walking doclists
 * that grow with the library (which made `find` take seconds at 1.1M memories). Memories holding
 * several of the words come first; newer ones win where the reads stop.
 */
export const QUERY_CAPPED_TERMS = 4;
/**
 * The rerank's BM25 (src/recall/bm25.ts). The index picks the candidates with FTS5's BM25
 * (k1 1.2, b 0.75, fixed); the rerank scores them again with these. Chat turns vary in
 * length without saying more, so length normalization hurts: LoCoMo dev R@10 per
 * conversation (conv-26 / conv-30 / conv-41), with follows and without:
 * b 0 → 0.715 / 0.743 / 0.742, 0.658 / 0.693 / 0.704; b 0.15 → 0.715 / 0.749 / 0.741,
 * 0.650 / 0.693 / 0.708; b 0.3 → 0.715 / 0.724 / 0.734; b 0.75 → 0.703 / 0.728 / 0.721,
 * 0.630 / 0.697 / 0.690; FTS5's score alone → 0.725 / 0.726 / 0.719, 0.632 / 0.683 / 0.675.
 * Leaving each conversation out in turn, the other two pick b = 0.15 every time.
 */
export const BM25_B = 0.15;
/** BM25's term-frequency saturation; 0.8 and 1.6 were both lower at b 0.3 (0.727, 0.725). */
export const BM25_K1 = 1.2;
/**
 * Term frequency credited when a query word begins a longer indexed word or the other way
 * round ("camp" / "campfire", "workout" / "work"), the role the trigram index played.
 * LoCoMo dev R@10 with / without follows at b 0.15: 0 → 0.729 / 0.675, 0.25 → 0.731 /
 * 0.679, 0.5 → 0.730 / 0.682, 1 → 0.730 / 0.679.
 */
export const BM25_PREFIX_CREDIT = 0.5;
/** Shortest word that counts as a prefix of another ("art" is not "artist"'s). */
export const BM25_PREFIX_MIN_CHARS = 4;
/** Memories whose tokens the rerank keeps (about 40 tokens each: a few MB at most). */
export const MEMORY_TOKENS_CACHE_MAX = 20_000;
/** LIKE candidates when FTS5 cannot serve the query. */
export const LIKE_POOL = 500;

/**
 * Rerank weights. The text score is the rerank's BM25 (src/recall/bm25.ts), normalized to
 * the best candidate (0..1).
 * Coverage is the share of query terms present anywhere; the subject and tag
 * terms are the shares present there. Initial values: coverage
 * dominates so that a memory holding every term beats one repeating one term;
 * subject/tag hits are strong signals because the agent chose those words.
 * Measured on the LoCoMo dev split (bench/locomo_recall.ts, 383 questions, R@10 / MRR):
 * text:coverage:subject:tags = 1:1.5:0.8:0.6 → 0.659 / 0.505 (chosen); 2:1.5:0.8:0.6 →
 * 0.667 / 0.501; 1:1:0.3:0.6 → 0.655 / 0.499; 1:2:0:0.6 → 0.647 / 0.493; 2:1:0:0.3 →
 * 0.642 / 0.490; 1.5:1.5:0.2:0.4 → 0.651 / 0.495. Chosen for the best R@5 and MRR.
 * With the word index and the rerank's own BM25 (generation 6), text weight per
 * conversation (conv-26 / conv-30 / conv-41), R@10 with follows | without:
 * 0.5 → 0.708 / 0.731 / 0.748 | 0.652 / 0.693 / 0.701; 0.6 → 0.708 / 0.746 / 0.748 |
 * 0.652 / 0.693 / 0.708; 0.75 → 0.715 / 0.749 / 0.748 | 0.652 / 0.693 / 0.708;
 * 1 → 0.715 / 0.736 / 0.741 | 0.648 / 0.693 / 0.708; 1.25 → 0.715 / 0.736 / 0.741 |
 * 0.642 / 0.706 / 0.708. 0.75 is at least as good as 1 in every conversation.
 */
export const RANK_WEIGHTS = {
  text: 0.75,
  coverage: 1.5,
  subject: 0.8,
  tags: 0.6,
} as const;

/**
 * Weight of a query term found only inside other words ("art" in "party"), against 1
 * at the start of a word. Not 0: lower-cased identifiers ("getusername") hold their
 * words inside. LoCoMo dev split, R@10 lexical / hybrid (static model), with follows:
 * 0 → 0.721 / 0.739; 0.25 → 0.726 / 0.742; 0.5 → 0.727 / 0.739 (MRR 0.531 / 0.548);
 * 1 (plain substring) → 0.726 / 0.740: neutral there, so chosen for precision on
 * short terms (tests/recall/follows_test.ts, the word-index case).
 */
export const INSIDE_WORD_MATCH = 0.5;

/** Trust nudges (docs/SPEC.md §4 order). Small: trust orders near-ties, never beats relevance. */
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
 * Measured on the LoCoMo dev split with the static model (R@10 / MRR):
 * - before the word index and follows (lexical 0.659 / 0.505): weight 0.5 floor 0.6 →
 *   0.660 / 0.498; 0.5/0.75 → 0.657 / 0.501; 1.0/0.6 → 0.625; 2.0/either → 0.564.
 *   Reciprocal-rank fusion (k 60, vector weight 0.5 / 0.25 / 0.1) measured 0.605 / 0.644 /
 *   0.654: it throws away the lexical score's margins, which matter more than the weak
 *   static channel adds, so scores are added instead.
 * - with the word index and follows (lexical 0.726 / 0.530), floor 0.6: weight 0.25 / 0.5 /
 *   0.75 / 1.0 / 1.5 → 0.730 / 0.731 / 0.737 / 0.737 / 0.726, MRR 0.538 / 0.546 / 0.555 /
 *   0.552 / 0.543; without follows (lexical 0.679) every weight fell below lexical (0.677 /
 *   0.675 / 0.668). Weight 0.75 with floor 0.7 / 0.75 → 0.734 / 0.740 with follows,
 *   0.672 / 0.679 without: the static model's manifest entry sets floor 0.75.
 * - scoring every lexical candidate's rows exactly (not only the top-k rows) lowered it:
 *   0.668 without follows, 0.720 with, so the vector channel stays a top-k search.
 * - with two follows hops and query dates (lexical 0.751 / 0.698), through MCP, R@10
 *   conv-26 / conv-30 / conv-41 with follows | without: weight 0.4 → 0.743 / 0.709 / 0.777 |
 *   0.679 / 0.693 / 0.724; 0.75 → 0.737 / 0.731 / 0.775 | 0.672 / 0.703 / 0.729 (overall
 *   0.751 | 0.702); 1.2 → 0.721 / 0.731 / 0.769 | 0.652 / 0.703 / 0.723. 0.4 costs conv-30
 *   and 1.2 costs conv-26, so 0.75 stays.
 * - the word-vector channel's levers (bench/locomo_vectors.ts, in process, chunks embedded
 *   with the static model's recipe; floors 0.4–0.75 × weights 0.5–1.5, leave one
 *   conversation out, R@10 held out conv-26 / conv-30 / conv-41 with follows | without,
 *   against the shipped 0.737 / 0.731 / 0.775 | 0.672 / 0.703 / 0.729):
 *   the unweighted query at its held-out choice (floor 0.5–0.6, weight 0.5) 0.730 / 0.721 /
 *   0.793 | 0.669 / 0.712 / 0.735; SIF a 1e-3 / 5e-3 / 1e-2 instead of 2e-3, 0.730 / 0.727 /
 *   0.793 | 0.672 / 0.718 / 0.736 at best; removing the common component (the first
 *   principal direction of the library's chunk vectors) 0.740 / 0.727 / 0.774 | 0.677 /
 *   0.730 / 0.722, of the Zipf-weighted wink rows no better than without; keeping memories
 *   only the vectors found out of the ranking: within 0.006 either way, picked by no more
 *   than two folds. None taken (conv-30 falls).
 *   Query words weighed by their IDF in the library (`src/recall/query_weights.ts`,
 *   `QUERY_IDF_WEIGHTING`): every fold picks floor 0.6, weight 0.5; held out 0.757 / 0.737 /
 *   0.792 | 0.679 / 0.741 / 0.732 (overall 0.766 | 0.713, multi-hop 0.480 | 0.495): no
 *   conversation lower, so 0.5 and the static model's floor 0.6 (models.manifest.json).
 *   Measured with the static model only; an e5 model uses the same weight.
 *   Again with the verb forms and the carry through hits (issue 18, second wave): every fold
 *   still picks floor 0.6 and weight 0.5, held out 0.768 / 0.768 / 0.811 | 0.692 / 0.734 /
 *   0.732 (the unweighted query at its held-out choice 0.757 / 0.746 / 0.806 | 0.676 / 0.693 /
 *   0.729).
 */
export const HYBRID_VECTOR_WEIGHT = 0.5;

/**
 * Whether the query vector of a word-level model (the built-in static model) weighs each
 * query word by its IDF in the library (`src/recall/query_weights.ts`); stored vectors are
 * unchanged. LoCoMo dev held out (see {@link HYBRID_VECTOR_WEIGHT}): with 0.757 / 0.737 /
 * 0.792 | 0.679 / 0.741 / 0.732, without (best held-out fusion) 0.730 / 0.721 / 0.793 |
 * 0.669 / 0.712 / 0.735. A word no memory holds keeps weight 1: weighing it as the rarest
 * word (IDF 7.98) measured 0.748 / 0.728 / 0.788 at floor 0.5 and lowered conv-30. The IDF
 * raised to a power (`--variants idf^P`), held out: 0.5 → 0.738 / 0.737 / 0.787 | 0.676 /
 * 0.741 / 0.734; 1.5 → 0.748 / 0.741 / 0.795 | 0.676 / 0.728 / 0.729; 2 → 0.741 / 0.730 /
 * 0.788 | 0.676 / 0.718 / 0.725: the plain IDF is best. Cost: one document-frequency lookup
 * and one single-word text per distinct word; a 4,000-character query's vector took p50 1.7
 * ms instead of 0.5 ms (a short question 0.27 instead of 0.09 ms).
 */
export const QUERY_IDF_WEIGHTING = true;

/**
 * Share of a memory's score that the memory following it (`follows`) inherits when
 * that is more than its own (src/recall/follows.ts). Measured on the LoCoMo dev split
 * (each turn stored with `follows` = the previous turn of its session; R@10 / MRR):
 * - a simulation over the same candidates first: adding the share instead of taking the
 *   larger (+0.25 / +0.35 / +0.5 × score) gave 0.682 / 0.696 / 0.695 with MRR falling to
 *   0.475 (every reply climbs, answer or not); carrying backwards to the memory before a
 *   hit added nothing.
 * - then the real ranking, lexical / hybrid (static model, weight 0.75, floor 0.6):
 *   0 → 0.679 / 0.674; 0.5 → 0.714 / 0.708; 0.6 → 0.722 / 0.726; 0.7 → 0.726 / 0.737
 *   (MRR 0.530 / 0.555); 0.8 → 0.726 / 0.734; 0.9 → 0.723 / 0.730. 0.7: the top of the
 *   plateau; each of the three conversations is above 0.70 from 0.6 to 0.8.
 * - with two hops and dates (bench/locomo_levers.ts --grid), conv-26 / conv-30 / conv-41:
 *   0.6 → 0.727 / 0.736 / 0.767; 0.7 → 0.737 / 0.736 / 0.774; 0.8 → 0.748 / 0.721 / 0.774;
 *   0.9 → 0.744 / 0.740 / 0.762. Leaving one out picks 0.7 / 0.8 / 0.9, held out 0.737 /
 *   0.721 / 0.762: two folds fall, so 0.7 stays.
 */
export const FOLLOWS_CARRY = 0.7;
/**
 * How far down a sequence a hit lends its score, and the share each further hop passes
 * on (hop 2 gets 0.7 × 0.85 of the hit's score). A reply is often two turns after the
 * question ("That must have been breathtaking!" sits between the meteor shower and how it
 * felt). Leaving each LoCoMo conversation out in turn (bench/locomo_levers.ts --grid), R@10
 * conv-26 / conv-30 / conv-41 with follows: 1 hop → 0.710 / 0.736 / 0.747; 2 hops, share
 * 0.5 / 0.7 / 0.85 → 0.713 / 0.736 / 0.747, 0.713 / 0.736 / 0.754, 0.723 / 0.736 / 0.754;
 * 3 hops, 0.7 / 0.85 → 0.713 / 0.736 / 0.754, 0.723 / 0.736 / 0.751. The two training
 * conversations pick 2 hops each time (share 0.7 once, 0.85 twice); held out: 0.713 /
 * 0.736 / 0.754, no conversation lower than with one hop. Carrying backwards too (to the
 * memory a hit follows, share 0.3 / 0.5 / 0.7) → 0.710 / 0.743 / 0.747, 0.707 / 0.730 /
 * 0.741, 0.700 / 0.740 / 0.741: held out no better than without (off).
 */
export const FOLLOWS_HOPS = 2;
/** See {@link FOLLOWS_HOPS}. */
export const FOLLOWS_HOP_SHARE = 0.85;
/**
 * Whether a hit's carry passes on down the sequence through a memory that is a hit itself. A
 * question rarely sits alone: in "It's been tough… the road trip last year" → "Where did you
 * go on that road trip?" → "We explored the coast…", the middle turn matches the query too,
 * and stopping the first hit's carry there left the answer with only the middle turn's weaker
 * share. Each memory still takes the largest score lent to it. LoCoMo dev, R@10 conv-26 /
 * conv-30 / conv-41 with follows (without `follows` nothing changes): off → 0.747 / 0.749 /
 * 0.774, on → 0.747 / 0.786 / 0.795; every fold picks on. Hybrid (static model): off → 0.763 /
 * 0.744 / 0.792, on → 0.768 / 0.768 / 0.811. Re-choosing the carry (0.6 / 0.7 / 0.8), hops
 * (2 / 3) and hop share (0.7 / 0.85 / 1) with it by leaving each conversation out picked
 * three different settings, held out 0.747 / 0.752 / 0.795 (none below off): the carry, hops
 * and share stay as they were.
 */
export const FOLLOWS_THROUGH_HITS = true;

/**
 * Added to the score of a candidate whose event time falls in a date the query names ("on
 * 7 July, 2023", "in May 2023", "in June", "last May"; src/recall/dates.ts). LoCoMo dev
 * (35 of 383 questions name a date), R@10 conv-26 / conv-30 / conv-41 with follows |
 * without: off → 0.723 / 0.736 / 0.754 | 0.663 / 0.693 / 0.708; 0.2 → 0.730 / 0.736 /
 * 0.767 | 0.670 / 0.693 / 0.715; 0.4 → 0.730 / 0.736 / 0.774 | 0.670 / 0.693 / 0.721;
 * 0.8 → 0.737 / 0.736 / 0.774 | 0.677 / 0.693 / 0.721; 1.2 → 0.737 / 0.736 / 0.767 |
 * 0.677 / 0.693 / 0.715; 2 → 0.737 / 0.736 / 0.761 | 0.677 / 0.693 / 0.715. Leaving each
 * conversation out, the other two pick 0.4 once and 0.8 twice; held out, no conversation
 * falls. Measured and not taken: widening a date by 2 days (same figures), searching
 * without the date's words (0.730 instead of 0.737 on conv-26), fetching up to 20 or 50
 * more candidates inside each date (same or lower).
 */
export const DATE_MATCH_WEIGHT = 0.8;

/**
 * Credit of an irregular verb's past forms searched with a query's base form ("choose" →
 * "chose", "chosen"; src/text/irregular.ts), in the rerank's BM25 and coverage (1: the same
 * word). LoCoMo dev, in process (bench/locomo_levers.ts --grid), R@10 conv-26 / conv-30 /
 * conv-41 with follows | without: off → 0.737 / 0.736 / 0.774 | 0.677 / 0.693 / 0.721;
 * 0.5 → 0.740 / 0.736 / 0.774 | 0.677 / 0.693 / 0.721; 0.75 → 0.740 / 0.736 / 0.774 |
 * 0.683 / 0.693 / 0.721; 1 → 0.747 / 0.749 / 0.774 | 0.683 / 0.693 / 0.721. Leaving each
 * conversation out, the other two pick 1 every time; held out no conversation falls.
 * Hybrid (static model, bench/locomo_vectors.ts' shipped channel): off → 0.757 / 0.737 /
 * 0.792 | 0.679 / 0.741 / 0.732; 1 → 0.763 / 0.744 / 0.792 | 0.692 / 0.734 / 0.732 (conv-30
 * without follows loses "How long did it take…", where "took" is not the answer; its mean
 * with and without follows is unchanged). Expanding past forms to the base too ("made" →
 * "make") measured 0.747 / 0.749 / 0.772 | 0.683 / 0.693 / 0.720: conv-41 fell, so only
 * base forms are expanded.
 */
export const VERB_FORM_WEIGHT = 1;

/**
 * Credit of a library word standing in for a misspelt query word (src/recall/spelling.ts):
 * a query word no memory holds is searched as the index's words within a small edit distance,
 * each earning this share of a match of the word itself in the rerank's BM25 and coverage.
 * LoCoMo dev, in process (bench/locomo_levers.ts --grid), R@10 conv-26 / conv-30 / conv-41
 * with follows | without: off → 0.747 / 0.786 / 0.795 | 0.677 / 0.693 / 0.721; 0.25 and 0.5 →
 * 0.753 / 0.786 / 0.795 | 0.683 / 0.693 / 0.721; 0.75 and 1 → 0.753 / 0.786 / 0.798 | 0.683 /
 * 0.693 / 0.724. Leaving each conversation out, the other two pick 0.75 twice and 0.25 once
 * (conv-41 out: a tie from 0.25 to 1); held out no conversation falls. Two dev questions hold
 * such a slip ("fesetival", "funraiser").
 */
export const SPELLING_WEIGHT = 0.75;
/**
 * Shortest query word (as an index token, after stemming) read as a possible slip. A shorter
 * word the library does not hold is as likely a real word one edit from another real one
 * (LoCoMo dev: "trait" → "train", "common" → "commun(ity)", "belov(ed)" → "below"); real
 * words grow sparse with length, slips do not ("fesetival", "funraiser").
 */
export const SPELLING_MIN_LENGTH = 7;
/** From this length on (index token), two edits are allowed; one below. */
export const SPELLING_TWO_EDITS_LENGTH = 10;
/** At most this many unknown words of one query are looked up (a pasted text costs no more). */
export const SPELLING_WORDS_MAX = 3;
/** Library words kept per unknown word: the nearest, the most widely held first. */
export const SPELLING_VARIANTS_MAX = 2;
/**
 * Letters a library word must share with the unknown word, from the start: the lookup reads
 * one range of the vocabulary. Slips in the first two letters are not caught; with one letter
 * the range held ~15× more words (a 186k-word vocabulary: 4–16 ms a word, against ~0.5).
 */
export const SPELLING_PREFIX = 2;
/**
 * Vocabulary rows read per unknown word (the words sharing its first letters): bounds the
 * lookup in a library of any size.
 */
export const SPELLING_SCAN_MAX = 5_000;

/**
 * Hit spans covering at least this share of a short content (see HITS_FULL_MAX_CHARS) become
 * the whole content (docs/SPEC.md §6): one text is cheaper than several spans with their offsets.
 */
export const HITS_FULL_COVERAGE = 0.5;
/**
 * Longest content `hits` may return whole, in characters (~500 tokens). docs/SPEC.md §6's coverage
 * rule alone returned whole documents: a 32,821-character README whose matching rows covered half
 * of it came back entire, and a 3-result page of the npm README corpus cost 46,677
 * characters. Below this bound the whole text costs about what two or three spans with their
 * offsets cost; above it, hits are hits.
 */
export const HITS_FULL_MAX_CHARS = 2_000;
/**
 * Characters of hit spans one result carries (two evidence rows of ROW_MAX_CHARS 1,000, or
 * one hit with its neighbouring rows). The best-matching rows come first; the hits left out
 * are counted, with the `read` span that holds them.
 */
export const HITS_RESULT_MAX_CHARS = 2_000;
/**
 * Characters of hit spans (and contents upgraded to full) one page carries, across its
 * results in rank order (~2,000 tokens, about three preview pages of 10): the first results
 * get their passages, later ones their counts and `read` spans once it is spent.
 */
export const HITS_PAGE_MAX_CHARS = 8_000;
/** Default neighbouring rows around each hit. */
export const HIT_WINDOW_DEFAULT = 0;
/** Most neighbouring rows an agent may ask for. */
export const HIT_WINDOW_MAX = 5;

/** The tag that marks an open item (docs/SPEC.md §6 linked_open_items). */
export const TODO_TAG = "todo";
/** Most linked open items on one page (docs/SPEC.md §6). */
export const LINKED_OPEN_ITEMS_MAX = 5;

/**
 * A member a resolved conflict left carrying the replaced claim (annotated as superseded, or
 * kept as history) keeps this share of its score, and each member holding the chosen value
 * takes at least the member's full score (issue 14: after resolution the loser ranked #2, or
 * #1 for a question worded like it). Any share below 1 puts the holder above the stale member
 * for every question that finds the stale one; 0.5 still ranks the stale member above weak
 * matches, because for a question about its other content it remains a good answer.
 */
export const STALE_CLAIM_SHARE = 0.5;

/**
 * Share of a query's best score lent to the facts one entity relation away from an entity the
 * query names (src/recall/entity_expansion.ts). 0: off, as shipped: on LoCoMo dev it changed
 * nothing measurable (docs/benchmarks.md "Entity extraction"), and a lever that moves no
 * figure is not switched on.
 */
export const ENTITY_EXPANSION_SHARE = 0;
/** Relations read for an expansion. */
export const ENTITY_EXPANSION_RELATIONS = 100;
/** Facts of related entities an expansion may lift. */
export const ENTITY_EXPANSION_FACTS = 50;

/**
 * Ids a serving process's start-up check of the word index counts per slice
 * (src/recall/word_index_check.ts): ~2–4 ms of the one connection at 1M memories on the
 * 2-core build machine (10,000 ids took 10–20 ms, and the whole count ~400 ms before the first
 * answer), so a request that arrives during a slice waits at most about that; the 500 slices
 * of a million memories finish within a minute of an idle server.
 */
export const WORD_INDEX_CHECK_SPAN = 2_000;
