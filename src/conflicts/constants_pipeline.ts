/**
 * Budgets of the conflict pipeline. Bounded so one write never costs more
 * than a few milliseconds of rule checks.
 * @module
 */

/**
 * Neighbour memories compared with a newly written one: the best BM25 matches of its claim
 * rows' rarest words. Fewer neighbours, cheaper checks: 20 → 10 took in-process checks at
 * 100k memories from 263 to 438 per second, 10 → 6 on the side-by-side library at 10k from
 * 392 to 461; the tests' contradictions are all found among the first 6, and LoCoMo chat
 * opened fewer spurious conflicts (bench/chat_conflicts.ts: 11 → 7 → 5 of 1,451 turns).
 */
export const DETECT_NEIGHBOURS = 6;
/** Query terms taken from the new memory to find its neighbours (its rarest). */
export const DETECT_QUERY_TERMS = 12;
/**
 * Postings scored to find neighbours (see QUERY_POSTINGS_BUDGET in src/recall/constants.ts).
 * A neighbour worth comparing shares the new memory's rare words; the common ones only cost
 * time. Checks per second in-process on the side-by-side benchmark's library at 10k
 * memories: 3,000 → 233, 1,000 → 427; LoCoMo chat opened the same 7 conflicts either way.
 */
export const DETECT_POSTINGS_BUDGET = 1_000;
/** Row pairs the rule stage checks per write (memory-arbiter allowed 500 per job). */
export const DETECT_MAX_PAIRS = 2000;
/** Groups recorded per write (memory-arbiter capped notices at 5 per job). */
export const DETECT_MAX_NOTICES = 5;
/** How long a write response waits for the verdict by default (docs/SPEC.md §8). */
export const NOTICE_SYNC_WAIT_MS = 3000;
/**
 * Under strict isolation, how many pending notices a response looks through for ones the
 * caller may see (others belong to other workspaces and wait for their own callers).
 */
export const STRICT_NOTICE_WINDOW = 200;
/**
 * The key (`claimKeys`) a check's unit claims before it records its findings (conflict groups
 * and their notices): on a shared database those units run beside remembers, and one at a time
 * among themselves, so a pair is recorded once and an open group is joined by one at a time.
 */
export const CONFLICT_TABLES_KEY = "conflict-tables";
/**
 * The key a response's unit claims before it marks notices told: tellers run one at a time, so
 * a notice is told once. Not {@linkcode CONFLICT_TABLES_KEY}: a response would wait for every
 * check recording its findings (most answers of a busy library tell something), and a notice a
 * check commits meanwhile is simply told by a later answer.
 */
export const NOTICE_TELLING_KEY = "notice-telling";
/** Job kind of write-time detection. */
export const DETECT_JOB_KIND = "detect_conflicts";
/**
 * Job kind of the check of a bulk write's batch of at most DETECT_VECTOR_BACKLOG_MAX versions (a
 * bigger one is planned: check_plan.ts), and of import chunks queued by earlier builds:
 * batch_check.ts.
 */
export const DETECT_BATCH_JOB_KIND = "detect_conflicts_batch";
/**
 * Job kind of the planned checks of bulk writes (check_plan.ts): one job at a time works through
 * the plan (the `check_plan` table) in key order, a run at a time.
 */
export const DETECT_PLAN_JOB_KIND = "detect_conflicts_planned";
/**
 * Job kind of a big batch's versions waiting to join the plan (check_plan.ts): no worker claims
 * it; the plan's job reads these jobs, keys their members and takes them into the plan.
 */
export const DETECT_UNPLANNED_JOB_KIND = "detect_conflicts_unplanned";
/** Waiting batches the plan's job reads (and keys) at a time, between two turns for requests. */
export const DETECT_PLAN_FOLD_READ = 4;
/**
 * Members the plan's job keys before it writes them into the plan, sorted, in one transaction:
 * the plan is ordered by key, so each write touches pages all over it, and a few thousand rows
 * at once share them (an import chunk's 500 written with the chunk dirtied a page per row, and
 * made a 1M import 11% slower).
 */
export const DETECT_PLAN_FOLD_MEMBERS = 16_384;
/**
 * Most members of a batch checked in one run of its job; the rest go to a continuation job
 * committed with the run's findings. Also bounded by time ({@linkcode DETECT_BATCH_RUN_MS}), so
 * this only caps the findings one transaction holds.
 */
export const DETECT_BATCH_SLICE_MAX = 64;
/**
 * Members of a batch job whose records and claim rows one read fetches ahead of their checks
 * (batch_check.ts): a quarter of a run's cap, so a run cut short by time reads little it does
 * not check; a run reads one at a time while requests flow.
 */
export const DETECT_BATCH_READ_AHEAD = 16;
/**
 * Longest run of a batch job before it commits (wall time, turns for requests included): the
 * run yields to requests every JOB_SLICE_MS as any background work does, and commits its
 * findings and its continuation together at the end. Committing after every slice cost a claim,
 * a transaction and a rewritten continuation per member on a loaded machine (an 8 ms slice held
 * one ~15 ms check), which ate what the plan saved (bench/planned_checks.ts at 1M: 0.91× the
 * per-memory rate per CPU-second). A run killed before its commit checks its members again.
 */
export const DETECT_BATCH_RUN_MS = 250;
/**
 * Checked members' claim rows (and assessed row-pair outcomes) kept between the runs of batch
 * jobs: an imported chunk's memories are each other's neighbours (one conversation, one
 * document), so a member's rows are read once, not once per member that finds it. Keyed by
 * memory version, which never changes, so nothing goes stale; bounded so a 1M drain does not grow.
 */
export const DETECT_BATCH_MEMO_MAX = 4_096;
/** Bumped when the rule stage changes, so the next scan round is a full one (rules-2: issue 14). */
export const DETECTOR_VERSION = "rules-2";
/** Memories per kick (memory-arbiter used 400, capped at 2000). */
export const SCAN_DEFAULT_MEMORIES = 400;
/** Seconds per kick (memory-arbiter used 45). */
export const SCAN_DEFAULT_SECONDS = 45;
/** Scan queue page size (memory-arbiter: 10, max 30). */
export const SCAN_QUEUE_PAGE_DEFAULT = 10;
/** Largest scan queue page. */
export const SCAN_QUEUE_PAGE_MAX = 30;
/** Most decisions per submit. */
export const SCAN_SUBMIT_MAX = 200;
/** Most duplicate pairs listed (docs/SPEC.md §8). */
export const DUPLICATES_MAX = 200;
/**
 * Dice share of content words (stems, stopwords out, attribute families merged) from which two
 * facts are near-duplicates, once their polarity, values and names already match
 * (src/conflicts/duplicates.ts). Chosen on the pairs of tests/conflicts/duplicates_test.ts:
 * rewordings of one fact score 0.6–1.0 ("We deploy every Tuesday" / "Deploys happen every
 * Tuesday" 0.67); a fact and the same fact with a qualifier ("per file", "for EU users") scores
 * 0.5–0.67 when short, so 0.6 flags a short fact restated with one extra word, which is what a
 * hint is for. The previous test (word-set Jaccard ≥ 0.8 on raw tokens) missed every rewording.
 */
export const DUPLICATE_MIN_DICE = 0.6;
/**
 * With an embedding model, a neighbour by meaning is a near-duplicate from this similarity
 * (cosine scaled so the model's relevance floor is 0 and 1 is 1), once polarity, values and
 * names match. For the static model (floor 0.75) that is cosine ≥ 0.94, the figure docs/SPEC.md §7
 * gives for a paraphrase ("car broke down" / "automobile stopped working"), where an unrelated
 * sentence scores 0.70; for a model on the default floor (0.6), cosine ≥ 0.9.
 */
export const DUPLICATE_MIN_VECTOR = 0.75;
/**
 * Content words (values aside) each fact needs before it can be called a duplicate: "We deploy
 * every Tuesday" has one ("deploy") and is a fact; with values and names matching, one word is
 * enough.
 */
export const DUPLICATE_MIN_WORDS = 1;
/**
 * Most words one fact may have in place of as many of the other's, the rest equal, and still
 * be a different fact rather than a duplicate ("billing" / "search"). Offline there is no
 * synonym list, so "runs on" / "is deployed to" is refused too: a hint must be right more
 * often than it is helpful.
 */
export const DUPLICATE_MAX_SUBSTITUTED = 2;
/**
 * Neighbours `remember` compares for `write_hints.possible_duplicate`: the best lexical matches
 * of the new fact, from the same bounded lookup detection uses (a restatement shares the rare
 * words, so it is among the first few).
 */
export const DUPLICATE_NEIGHBOURS = 3;
/**
 * Rarest words of the new fact that look for its duplicates, and the postings they may score
 * (detection takes 12 and 1,000). A restatement shares its rarest words; the common ones only
 * cost time. bench/duplicate_hint.ts at 10k LoCoMo turns: with detection's budget the lookup
 * took 12.8 ms p50 (more than the write itself, 10.3 ms); with these, see the ARCHITECTURE
 * figures.
 */
export const DUPLICATE_QUERY_TERMS = 6;
/** See {@link DUPLICATE_QUERY_TERMS}. */
export const DUPLICATE_POSTINGS_BUDGET = 300;
/**
 * Texts up to this length are read as one claim for the duplicate test: a question or words
 * to the listener state no fact and get no duplicate hint (an exclamation mark may end a fact). On LoCoMo
 * turns (bench/duplicate_hint.ts, 1k) the two hints given without this were chat ("That's
 * great, Valentin! It's awesome…" / "Wow, Valentin, that's awesome!…"). One sentence of a fact
 * fits; a longer note is a document whose sentences differ in kind.
 */
export const DUPLICATE_CLAIM_CHARS = 280;
/** Characters of a memory the duplicate test reads (a fact is short; a document is not one). */
export const DUPLICATE_MAX_CHARS = 2000;
/** A full round is due again after this many days (doctor warns). */
export const SCAN_STALE_DAYS = 14;
/**
 * Share of the smaller row's words two rows must have in common before the
 * rule stage looks at them (it asks for half of the attribute words, counted
 * after removing values, so 0.3 of all words is a safe under-estimate).
 */
export const PREFILTER_SHARED_SHARE = 0.3;
/**
 * Rows of each memory compared at write time. Facts sit in the first rows of a
 * note; a 2 MiB paste has thousands of rows and must not block the server.
 */
export const DETECT_MAX_ROWS = 64;
/**
 * Memories longer than this (characters) are documents, not facts: conflict
 * detection skips them. Measured: a 2 MiB memory of repetitive text took 2.1 s
 * in the neighbour query alone (with the trigram index of generation 5), blocking
 * the server; 100k characters took 0.2 s. A document also has more rows than a
 * check compares (DETECT_MAX_ROWS).
 */
export const DETECT_MAX_CONTENT_CHARS = 100_000;
/**
 * Memories taken from the vector index per check, next to the lexical neighbours: the same
 * budget as {@linkcode DETECT_NEIGHBOURS}, so a check with a model compares at most twice as
 * many memories as one without.
 */
export const DETECT_VECTOR_NEIGHBOURS = 6;
/**
 * Above this many waiting conflict checks (a bulk import), checks look up word neighbours only.
 * A by-meaning lookup scans every vector (sqlite-vec is brute force: ~28 ms at 100k memories),
 * so with it a 100k import's checks drained at under 140 memories/s instead of ~320/s; facts
 * written one at a time, or in batches below this, still get their neighbours by meaning.
 */
export const DETECT_VECTOR_BACKLOG_MAX = 256;
/** How often the backlog is counted (counting walks the jobs table). */
export const DETECT_BACKLOG_RECOUNT_MS = 1_000;
/**
 * Scaled similarity (0 at the model's relevance floor, 1 for the same direction) from which a
 * neighbour by meaning goes to the judge even when the rules did not flag it. Half-way between
 * the floor and identity: with the static model (floor 0.75) a cosine of 0.875. Not measured
 * against a judge (none can be downloaded on the build machines); it bounds the judge's work
 * together with {@linkcode DETECT_MAX_JUDGE_ONLY_PAIRS}.
 */
export const DETECT_JUDGE_MIN_SIMILARITY = 0.5;
/**
 * Share of the shorter row's terms two rows must share for a lexical neighbour's pair to go to
 * the judge without a rule flag: half, the rule stage's own bar for "the same attribute"
 * (RULE_MIN_TEXT_OVERLAP), counted on raw terms.
 */
export const DETECT_JUDGE_MIN_SHARED_SHARE = 0.5;
/**
 * Pairs the rules did not flag that go to the judge per write: the NLI model reads a pair in
 * tens of milliseconds on CPU (both directions), so eight keep a check well under a second.
 */
export const DETECT_MAX_JUDGE_ONLY_PAIRS = 8;
/**
 * A memory at least this long (characters) is a document, whatever its source: its sentences
 * are about the document's own topic, not about whatever another document's similar sentence
 * is about. Two documents are compared only when their topics match (`documents.ts`). A fact
 * or a preference is far shorter (DUPLICATE_MAX_CHARS reads a fact as at most 2,000 too).
 */
export const DETECT_DOCUMENT_MIN_CHARS = 2000;
/**
 * An imported text (source type document_extracted) at least this long is a document too: a
 * few paragraphs of a README or a CHANGELOG ("Copyright 2013 Lovell Fuller and others.", a
 * 697-character README) are the package describing itself. Shorter imported notes (one or two
 * sentences: "The staging database is PostgreSQL 14.") are facts. Of the npm corpus
 * (bench/document_conflicts.ts), a third of the files are under 2,000 characters and most
 * remaining false pairs came from them.
 */
export const DETECT_IMPORTED_DOCUMENT_MIN_CHARS = 500;
