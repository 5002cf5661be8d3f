/**
 * The word index (generation 6): one contentless FTS5 table over the index
 * tokens mema computes itself ({@link ../text/index_terms.ts}), kept beside
 * `memories` by the store's own writes (no triggers: the tokens come from
 * TypeScript), and its vocabulary for document frequencies.
 *
 * Contentless (`content=''`) because the text lives in `memories` already;
 * `contentless_delete=1` lets a changed memory's row be replaced in place.
 *
 * `memories_terms_df` keeps each token's document frequency, which recall reads to prune
 * common terms. FTS5's own vocabulary table computes it by walking the token's whole doclist:
 * at 100k memories that lookup was 41% of write-time conflict detection's time.
 *
 * A new memory's counts are held back (generation 12): one row of `memories_terms_pending`
 * names its tokens, and the counts are folded into `memories_terms_df` once
 * {@link PENDING_FOLD_AT} memories wait. Upserting each of a `remember`'s ~20 tokens in
 * place touched ~6 pages of the vocabulary (more as it grows) and ran ~20 statements: ~0.25 ms
 * of a ~2 ms call through MCP at 1k memories. A document frequency is the table's count plus
 * the waiting rows holding the token; every indexed memory is counted in exactly one of them.
 * @module
 */
import { countMemoryChange } from "./change_counts_sql.ts";
import { createHash } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import { indexTokens } from "../text/index_terms.ts";
import { BM25_WEIGHTS } from "./constants.ts";
import { filterSql } from "./recall_sql.ts";
import type { FieldTokens, LexicalHit, RecallFilters, WordIndexSlice } from "./types.ts";

/** The index and its vocabulary (created by the generation 6 migration). */
export const TERMS_TABLES = `
CREATE VIRTUAL TABLE memories_terms USING fts5(
  subject, tags, content, scope,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 0'
);
CREATE TABLE memories_terms_df (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
`;

/**
 * Creates the table of memories whose document counts are not in `memories_terms_df` yet
 * (generation 12): the tokens each adds, space-separated (index tokens hold no spaces; the
 * all-documents token is implied by the row).
 */
export function createPendingCounts(db: DatabaseSync): void {
  db.exec(
    "CREATE TABLE IF NOT EXISTS memories_terms_pending (id INTEGER PRIMARY KEY, terms TEXT NOT NULL)",
  );
  pendingTable.set(db, true);
}

/**
 * How many memories' counts may wait before the write that adds one folds them all in. A
 * reader that has not cached a token's count reads every waiting row (~0.1 ms for 128 chat
 * turns); the fold upserts their distinct tokens (a few ms at 1k memories, once per 128).
 */
export const PENDING_FOLD_AT = 128;

/** What the index needs of a memory. */
export interface IndexedFields {
  subject: string;
  tags: readonly string[];
  content: string;
  workspaceCanonical: string;
  /** The subject's and content's tokens when the writer has them (types.ts `NewMemory`). */
  indexTokens?: FieldTokens;
}

/**
 * The `scope` column holds one token naming the memory's workspace, so a workspace-scoped
 * query scores only the memories of that workspace (FTS5 intersects the doclists) instead
 * of every match in the library and filtering afterwards. A hash keeps the token to letters
 * and digits whatever the name; the join with `memories` still checks the name exactly.
 */
export function scopeToken(workspaceCanonical: string): string {
  let token = scopeTokens.get(workspaceCanonical);
  if (token === undefined) {
    token = `0ws${createHash("sha256").update(workspaceCanonical).digest("hex").slice(0, 16)}`;
    // A library has a handful of workspaces; the bound only guards against odd callers.
    if (scopeTokens.size >= 1024) scopeTokens.clear();
    scopeTokens.set(workspaceCanonical, token);
  }
  return token;
}

const scopeTokens = new Map<string, string>();

/** The pseudo-token whose frequency is the number of indexed memories. */
export const ALL_DOCUMENTS_TOKEN = "";

/** A memory's index tokens, per column, computed once for the row and the frequencies. */
function fieldTokens(
  fields: IndexedFields,
): { subject: string[]; tags: string[]; content: string[] } {
  return {
    subject: fields.indexTokens?.subject ?? indexTokens(fields.subject),
    tags: indexTokens(fields.tags.join(" ")),
    content: fields.indexTokens?.content ?? indexTokens(fields.content),
  };
}

/** The distinct tokens a memory contributes to the document frequencies. */
function documentTokens(
  fields: IndexedFields,
  tokens: ReturnType<typeof fieldTokens> = fieldTokens(fields),
): Set<string> {
  return new Set([
    ALL_DOCUMENTS_TOKEN,
    scopeToken(fields.workspaceCanonical),
    ...tokens.subject,
    ...tokens.tags,
    ...tokens.content,
  ]);
}

/**
 * Frequency changes held back while a bulk write runs (see {@linkcode deferFrequencies}),
 * per connection.
 */
const deferred = new WeakMap<DatabaseSync, Map<string, number>>();

function countTokens(db: DatabaseSync, tokens: Iterable<string>, delta: 1 | -1): void {
  const pending = deferred.get(db);
  if (pending) {
    for (const token of tokens) pending.set(token, (pending.get(token) ?? 0) + delta);
    return;
  }
  writeFrequencies(db, [...tokens].map((token) => [token, delta]));
}

function writeFrequencies(db: DatabaseSync, changes: Iterable<[string, number]>): void {
  const upsert = db.prepare(
    `INSERT INTO memories_terms_df(term, docs) VALUES (?, ?)
     ON CONFLICT(term) DO UPDATE SET docs = docs + excluded.docs`,
  );
  let removed = false;
  for (const [token, delta] of changes) {
    if (delta === 0) continue;
    upsert.run(token, delta);
    removed ||= delta < 0;
  }
  if (removed) db.prepare("DELETE FROM memories_terms_df WHERE docs <= 0").run();
}

/**
 * Runs `fn` (inside a write transaction) with document-frequency changes summed in memory
 * and written once at the end: a bulk import of 500 short notes touches ~3,000 distinct
 * tokens instead of running ~8,000 upserts. Queries inside `fn` would see stale
 * frequencies; bulk writes run none. If `fn` throws, nothing is written (the transaction
 * rolls back anyway).
 */
export async function deferFrequencies<T>(db: DatabaseSync, fn: () => Promise<T>): Promise<T> {
  const parent = deferred.get(db);
  const pending = new Map<string, number>();
  deferred.set(db, pending);
  let result: T;
  try {
    // Only the unit holding the connection runs meanwhile (sqlite_connection.ts `admits`).
    result = await fn();
  } finally {
    if (parent) deferred.set(db, parent);
    else deferred.delete(db);
  }
  // Nested (a savepoint inside a bulk write): the changes join the outer ones only when
  // `fn` succeeded, so a unit rolled back to its savepoint leaves no counts behind.
  if (parent) {
    for (const [token, delta] of pending) parent.set(token, (parent.get(token) ?? 0) + delta);
  } else {
    writeFrequencies(db, pending);
  }
  return result;
}

/** True while {@linkcode deferFrequencies} holds this connection's frequency changes. */
export function deferringFrequencies(db: DatabaseSync): boolean {
  return deferred.has(db);
}

/** What writing a memory's index row did to the document counts. */
export interface IndexedRow {
  /** The tokens whose document count the row added one to. */
  counted: ReadonlySet<string>;
  /** Those counts wait in `memories_terms_pending` (else they went to `memories_terms_df`). */
  held: boolean;
  /** The counts held back until now were folded into `memories_terms_df` (none are waiting). */
  folded: boolean;
}

/**
 * Writes the index row of memory `id`. `previous` is what the row held before (its
 * fields as they were), so a changed memory's old tokens leave the frequencies.
 */
export function indexMemoryTerms(
  db: DatabaseSync,
  id: number,
  fields: IndexedFields,
  previous?: IndexedFields,
): IndexedRow {
  if (previous) unindexMemoryTerms(db, id, previous);
  const tokens = fieldTokens(fields);
  db.prepare(
    "INSERT INTO memories_terms(rowid, subject, tags, content, scope) VALUES (?, ?, ?, ?, ?)",
  ).run(
    id,
    tokens.subject.join(" "),
    tokens.tags.join(" "),
    tokens.content.join(" "),
    scopeToken(fields.workspaceCanonical),
  );
  const counted = documentTokens(fields, tokens);
  // A bulk write sums its counts in memory and writes them once; one memory's wait their turn.
  if (deferred.has(db) || !holdsPendingCounts(db)) {
    countTokens(db, counted, 1);
    return { counted, held: false, folded: false };
  }
  const folded = holdCounts(db, id, counted);
  return { counted, held: !folded, folded };
}

/** Removes memory `id` (whose fields were `fields`) from the index. */
export function unindexMemoryTerms(db: DatabaseSync, id: number, fields: IndexedFields): void {
  db.prepare("DELETE FROM memories_terms WHERE rowid = ?").run(id);
  // Counts still waiting leave with their row; counts already folded in are taken out.
  if (holdsPendingCounts(db) && dropHeldCounts(db, id)) return;
  countTokens(db, documentTokens(fields), -1);
}

/** Whether the file has the table of waiting counts (a generation 11 file opened read-only has not). */
const pendingTable = new WeakMap<DatabaseSync, boolean>();

function holdsPendingCounts(db: DatabaseSync): boolean {
  let present = pendingTable.get(db);
  if (present === undefined) {
    present = db.prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memories_terms_pending'",
    ).get() !== undefined;
    pendingTable.set(db, present);
  }
  return present;
}

/**
 * Records memory `id`'s counts as waiting; past the bound folds every waiting count in (and
 * says so).
 */
function holdCounts(db: DatabaseSync, id: number, counted: ReadonlySet<string>): boolean {
  const terms = [...counted].filter((token) => token !== ALL_DOCUMENTS_TOKEN).join(" ");
  db.prepare("INSERT OR REPLACE INTO memories_terms_pending(id, terms) VALUES (?, ?)").run(
    id,
    terms,
  );
  const waiting = db.prepare("SELECT count(*) AS n FROM memories_terms_pending").get() as {
    n: number;
  };
  if (Number(waiting.n) < PENDING_FOLD_AT) return false;
  foldPendingCounts(db);
  return true;
}

/** Forgets memory `id`'s waiting counts; false when they were folded in already. */
function dropHeldCounts(db: DatabaseSync, id: number): boolean {
  const result = db.prepare("DELETE FROM memories_terms_pending WHERE id = ?").run(id);
  return Number(result.changes) > 0;
}

/** Moves every waiting count into `memories_terms_df` (inside a write transaction). */
function foldPendingCounts(db: DatabaseSync): void {
  const held = selectHeldCounts(db);
  if (held.memories === 0) return;
  writeFrequencies(db, [[ALL_DOCUMENTS_TOKEN, held.memories], ...held.tokens]);
  db.prepare("DELETE FROM memories_terms_pending").run();
}

/** The document counts still waiting: each token's, and the memories they belong to. */
export interface HeldCounts {
  memories: number;
  tokens: ReadonlyMap<string, number>;
}

const NOTHING_HELD: HeldCounts = { memories: 0, tokens: new Map() };

/** Reads every waiting count (at most {@link PENDING_FOLD_AT} memories' rows). */
export function selectHeldCounts(db: DatabaseSync): HeldCounts {
  if (!holdsPendingCounts(db)) return NOTHING_HELD;
  const rows = db.prepare("SELECT terms FROM memories_terms_pending").all() as {
    terms: string;
  }[];
  if (rows.length === 0) return NOTHING_HELD;
  const tokens = new Map<string, number>();
  for (const row of rows) {
    if (row.terms === "") continue;
    for (const token of row.terms.split(" ")) tokens.set(token, (tokens.get(token) ?? 0) + 1);
  }
  return { memories: rows.length, tokens };
}

/** A token's waiting count. */
function heldCount(held: HeldCounts, token: string): number {
  return token === ALL_DOCUMENTS_TOKEN ? held.memories : held.tokens.get(token) ?? 0;
}

/** Rebuilds the whole index from `memories` (the index is derived data; purged tombstones stay out). */
export function rebuildTermsIndex(db: DatabaseSync): number {
  // 'delete-all' resets FTS5's own statistics too (documents, token totals), which BM25 reads:
  // a plain DELETE left them counting the old rows, so a rebuilt index ranked differently.
  db.exec(
    "INSERT INTO memories_terms(memories_terms) VALUES('delete-all'); DELETE FROM memories_terms_df;",
  );
  if (holdsPendingCounts(db)) db.exec("DELETE FROM memories_terms_pending");
  const rows = db.prepare(
    "SELECT id, subject, tags, content, workspace_canonical FROM memories WHERE status != 'deleted'",
  ).iterate() as Iterable<
    { id: number; subject: string; tags: string; content: string; workspace_canonical: string }
  >;
  let count = 0;
  for (const row of rows) {
    indexMemoryTerms(db, Number(row.id), {
      subject: row.subject,
      tags: JSON.parse(row.tags) as string[],
      content: row.content,
      workspaceCanonical: row.workspace_canonical,
    });
    count++;
  }
  // The index changed without a change to memories: tell the caches of its answers.
  countMemoryChange(db);
  return count;
}

/** Rows in the index (compared with `memories` at open). */
export function countIndexedMemories(db: DatabaseSync): number {
  const row = db.prepare("SELECT count(*) AS n FROM memories_terms_docsize").get() as { n: number };
  return Number(row.n);
}

/**
 * Counts memories not purged and index rows among the ids after `afterId`, `span` ids at a
 * time, so a serving process can check a large library between requests instead of counting
 * it whole before its first answer (~10 ms per 10,000 ids at 1M, against ~400 ms for the whole
 * count). Every indexed memory has its row in the same transaction, so the two counts agree in
 * every slice of a sound index, whatever is written between slices.
 */
export function countWordIndexSlice(
  db: DatabaseSync,
  afterId: number,
  span: number,
): WordIndexSlice {
  const max = db.prepare("SELECT max(id) AS id FROM memories").get() as { id: number | null };
  const lastId = max.id === null ? 0 : Number(max.id);
  const through = Math.max(afterId, Math.min(afterId + span, lastId));
  const last = through === lastId || afterId >= lastId;
  const count = (sql: string, ...bounds: number[]) =>
    Number((db.prepare(sql).get(...bounds) as { n: number }).n);
  return {
    throughId: through,
    last,
    memories: count(
      "SELECT count(*) AS n FROM memories WHERE id > ? AND id <= ? AND status != 'deleted'",
      afterId,
      through,
    ),
    // The last slice counts every row past `afterId`: a row without its memory is drift too.
    indexed: last
      ? count("SELECT count(*) AS n FROM memories_terms_docsize WHERE id > ?", afterId)
      : count(
        "SELECT count(*) AS n FROM memories_terms_docsize WHERE id > ? AND id <= ?",
        afterId,
        through,
      ),
  };
}

/**
 * How many memories contain each token (tokens absent from the index are 0): the folded
 * count plus the waiting one (`held`, read here when not given).
 */
export function selectTokenFrequencies(
  db: DatabaseSync,
  tokens: readonly string[],
  held: HeldCounts = selectHeldCounts(db),
): Map<string, number> {
  const found = new Map<string, number>(tokens.map((token) => [token, 0]));
  if (tokens.length === 0) return found;
  // One statement for all: ~2 µs a token against ~5 µs for one lookup each (a write's
  // duplicate check weighs ~30 tokens).
  const rows = db.prepare(
    "SELECT term, docs FROM memories_terms_df WHERE term IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify([...found.keys()])) as { term: string; docs: number }[];
  for (const row of rows) found.set(String(row.term), Number(row.docs));
  if (held.memories > 0) {
    for (const [token, count] of found) found.set(token, count + heldCount(held, token));
  }
  return found;
}

/**
 * Index tokens that begin with `prefix` and whose length lies within `lengths`, with their
 * document counts: the library's words a misspelt query word may stand for. A range of the
 * vocabulary's primary key, at most `limit` rows of it read whatever their length.
 */
export function selectVocabularyByPrefix(
  db: DatabaseSync,
  prefix: string,
  lengths: { min: number; max: number },
  limit: number,
  held: HeldCounts = selectHeldCounts(db),
): Map<string, number> {
  const found = new Map<string, number>();
  if (prefix === "") return found;
  const last = prefix.length - 1;
  const after = prefix.slice(0, last) + String.fromCharCode(prefix.charCodeAt(last) + 1);
  // The LIMIT sits in the subquery so it bounds the rows read, not the rows kept.
  const rows = db.prepare(
    `SELECT term, docs FROM (
       SELECT term, docs FROM memories_terms_df WHERE term >= ? AND term < ? LIMIT ?
     ) WHERE docs > 0 AND length(term) BETWEEN ? AND ?`,
  ).all(prefix, after, limit, lengths.min, lengths.max) as { term: string; docs: number }[];
  for (const row of rows) found.set(String(row.term), Number(row.docs));
  // Waiting words count too: a word first written a moment ago is the library's already.
  for (const [token, count] of held.tokens) {
    if (token < prefix || token >= after) continue;
    const length = [...token].length;
    if (length >= lengths.min && length <= lengths.max) {
      found.set(token, (found.get(token) ?? 0) + count);
    }
  }
  return found;
}

/**
 * How many index hits are scored before the filters when only the status filter applies:
 * twice the pool, since few memories are outside the requested statuses.
 */
const UNFILTERED_OVERFETCH = 2;
/** A workspace filter keeping less than this share of the library runs inside the index. */
const SCOPE_IN_INDEX_MAX_SHARE = 0.5;

/**
 * Best matches for a MATCH expression of index tokens, best first, with a
 * relevance where larger is better (FTS5's BM25 is negative-is-better).
 *
 * A workspace filter that keeps a minority of the library runs inside the index (the scope
 * column), so only that workspace is scored; one that keeps most of it is applied after, like
 * the status filter (intersecting with a scope token held by most memories read its whole
 * doclist: 3 ms of each conflict check at 10k memories in one workspace). With no other
 * filter, the best hits are taken from the index alone and then joined with `memories`
 * (joining every match first doubled the cost at 100k memories: 15 → 8 ms for 8,400
 * matches); when that leaves the page short, the joined query runs. Tag, time and source
 * filters join first, so the index's best hits are the best of those in scope.
 */
export function selectTermHits(
  db: DatabaseSync,
  match: string,
  filters: RecallFilters,
  limit: number,
  tokenFrequencies: (tokens: readonly string[]) => Map<string, number> = (tokens) =>
    selectTokenFrequencies(db, tokens),
): LexicalHit[] {
  const { where, values } = filterSql(filters);
  // The scope column never scores (weight 0) and never matches query words.
  const weights = [BM25_WEIGHTS.subject, BM25_WEIGHTS.tags, BM25_WEIGHTS.content, 0];
  const words = `{subject tags content} : (${match})`;
  let scoped = words;
  if (filters.workspaces) {
    const scopes = filters.workspaces.map(scopeToken);
    const frequencies = tokenFrequencies([...scopes, ALL_DOCUMENTS_TOKEN]);
    const inScope = scopes.reduce((sum, token) => sum + (frequencies.get(token) ?? 0), 0);
    if (inScope < SCOPE_IN_INDEX_MAX_SHARE * (frequencies.get(ALL_DOCUMENTS_TOKEN) ?? 0)) {
      scoped = `${words} AND scope : (${scopes.map((token) => `"${token}"`).join(" OR ")})`;
    }
  }
  // The index applies the workspace itself; other filters (tags, time, source) need the join.
  const indexFilters = !filters.tagsAll?.length && !filters.after && !filters.before &&
    !filters.sourceTypes?.length && !filters.protectionLevels?.length;
  if (indexFilters) {
    const fetch = limit * UNFILTERED_OVERFETCH;
    const rows = db.prepare(
      `WITH top AS MATERIALIZED (
         SELECT rowid AS id, bm25(memories_terms, ?, ?, ?, ?) AS score FROM memories_terms
         WHERE memories_terms MATCH ? ORDER BY score LIMIT ?)
       SELECT m.id AS id, top.score AS score, (SELECT count(*) FROM top) AS fetched
       FROM top JOIN memories m ON m.id = top.id
       WHERE ${where} ORDER BY top.score LIMIT ?`,
    ).all(...weights, scoped, fetch, ...values, limit) as {
      id: number;
      score: number;
      fetched: number;
    }[];
    // An empty page says nothing about how many hits the filters dropped: run the joined query.
    const exhausted = rows.length > 0 && Number(rows[0].fetched) < fetch;
    if (rows.length >= limit || exhausted) return rows.map(toHit);
  }
  const rows = db.prepare(
    `SELECT m.id AS id, bm25(memories_terms, ?, ?, ?, ?) AS score
     FROM memories_terms JOIN memories m ON m.id = memories_terms.rowid
     WHERE memories_terms MATCH ? AND ${where}
     ORDER BY score LIMIT ?`,
  ).all(...weights, scoped, ...values, limit) as { id: number; score: number }[];
  return rows.map(toHit);
}

/**
 * The ids of the memories holding `token`, an index token (letters and digits only, so quoted
 * it is one phrase), or only its `newest` holders (highest ids: FTS5 walks the doclist
 * backwards and stops at the LIMIT, so the read is bounded however long the list). The
 * doclist is read as one string: reading a long one as row objects cost twice as much.
 */
export function selectPostings(db: DatabaseSync, token: string, newest?: number): Int32Array {
  const match = `{subject tags content} : "${token}"`;
  const row = (newest === undefined
    ? db.prepare(
      "SELECT group_concat(rowid) AS ids FROM memories_terms WHERE memories_terms MATCH ?",
    ).get(match)
    : db.prepare(
      `SELECT group_concat(id) AS ids FROM (SELECT rowid AS id FROM memories_terms
       WHERE memories_terms MATCH ? ORDER BY rowid DESC LIMIT ?)`,
    ).get(match, Math.max(0, Math.floor(newest)))) as { ids: string | null };
  const list = row.ids ?? "";
  if (list === "") return new Int32Array(0);
  let count = 1;
  for (let i = 0; i < list.length; i++) if (list.charCodeAt(i) === 44) count++;
  const ids = new Int32Array(count);
  let at = 0;
  let id = 0;
  for (let i = 0; i <= list.length; i++) {
    const code = i < list.length ? list.charCodeAt(i) : 44;
    if (code === 44) {
      ids[at++] = id;
      id = 0;
    } else {
      id = id * 10 + (code - 48);
    }
  }
  return ids;
}

/**
 * Memories holding the most weight of `terms`, best first: each term's postings are read
 * without scoring and a memory scores the summed weights of the terms it holds (ties: newest
 * first). For `find`'s candidate pool (which the rerank orders itself) and the neighbour
 * lookups, which need shared rare words, not a ranking: FTS5's bm25() reads every matching
 * row's length, which made a 6-word duplicate check cost 1.3 ms at 3k memories (0.3 ms of it
 * for 300 postings) against ~0.05 ms for the postings alone. `passes` answers the filters for
 * the memories it knows (the store's record cache), so only the others are looked up, and
 * `learn` hears each looked-up memory's verdict; `postingsOf` reads a token's postings (the
 * store's term cache keeps them).
 */
export function selectWeightedTermHits(
  db: DatabaseSync,
  terms: readonly { token: string; weight: number; newest?: number }[],
  filters: RecallFilters,
  limit: number,
  passes: (id: number) => boolean | undefined = () => undefined,
  postingsOf: (term: { token: string; newest?: number }) => Int32Array = (term) =>
    selectPostings(db, term.token, term.newest),
  learn: (id: number, passes: boolean) => void = () => {},
): LexicalHit[] {
  const scores = new Map<number, number>();
  for (const term of terms) {
    const { weight } = term;
    const ids = postingsOf(term);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      scores.set(id, (scores.get(id) ?? 0) + weight);
    }
  }
  // Best first (ties: newest first), as parallel arrays: an entry array per posting was a
  // fifth of a query's garbage.
  const ids = new Float64Array(scores.size);
  const weights = new Float64Array(scores.size);
  let count = 0;
  scores.forEach((weight, id) => {
    ids[count] = id;
    weights[count++] = weight;
  });
  const better = (a: number, b: number) => weights[b] - weights[a] || ids[b] - ids[a];
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  // Most lookups stop within the first pages: only those entries are put in order, and the
  // rest only if the filters leave the hits short (a full sort was most of a neighbour lookup's
  // own time at 1M).
  const page = Math.max(limit * WEIGHTED_FILTER_PAGES, 1);
  let ordered = orderFront(order, Math.min(count, page * 2), better);
  // The filters run on the best first, a few pages at a time: most hits pass them, and
  // checking every hit (up to the postings budget) cost as much as reading the postings.
  const { where, values } = filterSql(filters);
  const inScope = db.prepare(
    `SELECT m.id AS id FROM memories m WHERE m.id IN (SELECT value FROM json_each(?)) AND ${where}`,
  );
  const hits: LexicalHit[] = [];
  let next = 0;
  while (next < count && hits.length < limit) {
    // A batch ends once the hits it surely adds fill the page (the record cache answered for
    // them), or at `page` entries: the others are looked up in one query.
    const batch: [number, number][] = [];
    const kept = new Set<number>();
    const unknown: number[] = [];
    while (next < count && batch.length < page && hits.length + kept.size < limit) {
      if (next === ordered) {
        // The filters left the hits short of the ordered front: the rest, in order.
        order.subarray(ordered).sort(better);
        ordered = count;
      }
      const id = ids[order[next]];
      const weight = weights[order[next++]];
      const verdict = passes(id);
      if (verdict === false) continue;
      batch.push([id, weight]);
      if (verdict) kept.add(id);
      else unknown.push(id);
    }
    if (unknown.length > 0) {
      const passing = new Set<number>();
      for (const row of inScope.all(JSON.stringify(unknown), ...values) as { id: number }[]) {
        passing.add(Number(row.id));
      }
      for (const id of unknown) {
        const passes = passing.has(id);
        if (passes) kept.add(id);
        learn(id, passes);
      }
    }
    for (const [id, relevance] of batch) {
      if (kept.has(id) && hits.length < limit) hits.push({ id, relevance });
    }
  }
  return hits;
}

/** Pages of `limit` hits filtered at once by {@linkcode selectWeightedTermHits}. */
const WEIGHTED_FILTER_PAGES = 4;

/**
 * Puts the `front` first entries of `order` in `better` order, each before every entry after
 * them (which stay unordered): a quickselect of the front's boundary, then a sort of the front
 * alone. Returns how many entries are in order (all of them when few are left over).
 */
export function orderFront(
  order: Uint32Array,
  front: number,
  better: (a: number, b: number) => number,
): number {
  if (front * 4 >= order.length) {
    order.sort(better);
    return order.length;
  }
  // Hoare quickselect: afterwards order[0, front) holds the `front` best.
  let lo = 0;
  let hi = order.length - 1;
  const kth = front - 1;
  while (lo < hi) {
    const pivot = order[lo + ((hi - lo) >> 1)];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (better(order[i], pivot) < 0) i++;
      while (better(order[j], pivot) > 0) j--;
      if (i <= j) {
        const swap = order[i];
        order[i++] = order[j];
        order[j--] = swap;
      }
    }
    if (kth <= j) hi = j;
    else if (kth >= i) lo = i;
    else break;
  }
  order.subarray(0, front).sort(better);
  return front;
}

function toHit(row: { id: number; score: number }): LexicalHit {
  return { id: Number(row.id), relevance: -Number(row.score) };
}
