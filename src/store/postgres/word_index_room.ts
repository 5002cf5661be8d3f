/**
 * The word index on PostgreSQL: {@linkcode WordIndexRepository}, and the index rows the memories
 * room writes beside each memory.
 *
 * The tokens are mema's own (src/text/index_terms.ts: stemmed words, CJK bigrams), exactly as the
 * SQLite index holds them, so both backends find the same memories. Each memory's row keeps its
 * tokens per column (for term counts) and a `tsvector` of them under a GIN index (candidates);
 * `memory_postings`, kept by triggers on `memory_terms` (migration 12), holds (token, memory id)
 * pairs under a B-tree, for reads of a word's newest holders (`weightedTermHits`);
 * `memory_terms_df` keeps each token's document count and `memory_terms_size` the tokens of the
 * whole index. `termHits` scores the candidates with FTS5's BM25 (column weights from
 * `BM25_WEIGHTS`, k1 = 1.2, b = 0.75, the same document sizes and the same idf floor), so the
 * ranking is the SQLite backend's. Query text is never built from user words: the tokens go to
 * the server as an array and become a `tsquery` there, each lexeme quoted.
 *
 * @module
 */
import { indexTokens } from "../../text/index_terms.ts";
import { ALL_DOCUMENTS_TOKEN, scopeToken } from "../terms_sql.ts";
import { BM25_WEIGHTS } from "../constants.ts";
import type { PgCore, PgQuery } from "./core.ts";
import { PendingTermCounts } from "./term_counts.ts";
import { filterCondition } from "./recall_room.ts";
import type { WordIndexRepository } from "../repositories.ts";
import type { FieldTokens, RecallFilters } from "../types.ts";

/** FTS5's BM25 constants (fts5_aux.c), so scores match the SQLite backend's. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** FTS5's floor for the idf of a token most documents hold. */
const BM25_IDF_FLOOR = 1e-6;

/**
 * The lexeme text a `tsvector` may hold: offsets into it are 20 bits (PostgreSQL's MAXSTRPOS,
 * 1 MiB - 1), and `array_to_tsvector` wraps them past that instead of refusing, so the words
 * beyond it were silently unfindable in a memory of over ~1 MB of distinct words (the content
 * limit is 2 MiB). Kept below it with room to spare.
 */
const TSVECTOR_LEXEME_BYTES = 1_000_000;
/**
 * The lexeme that marks a memory whose words did not all fit its `tsvector` (a space: mema's
 * tokens never hold one). Every query's candidates include such memories, and their token arrays
 * decide whether they hold the query's words.
 */
const OVERFLOW_LEXEME = " words past the tsvector";

/** The words for a memory's `tsvector`: all of them, or those that fit and the overflow mark. */
function tsvectorWords(words: string[]): string[] {
  const encoder = new TextEncoder();
  let bytes = 0;
  const kept: string[] = [];
  for (const word of words) {
    bytes += encoder.encode(word).length;
    if (bytes > TSVECTOR_LEXEME_BYTES) return [...kept, OVERFLOW_LEXEME];
    kept.push(word);
  }
  return kept;
}

/** What the index needs of a memory. */
export interface IndexedFields {
  subject: string;
  tags: readonly string[];
  content: string;
  workspaceCanonical: string;
  /** The subject's and content's tokens when the writer has them (types.ts `NewMemory`). */
  indexTokens?: FieldTokens;
}

/** A memory's index tokens per column, as the SQLite index splits them (terms_sql.ts). */
function fieldTokens(fields: IndexedFields) {
  return {
    subject: fields.indexTokens?.subject ?? indexTokens(fields.subject),
    tags: indexTokens(fields.tags.join(" ")),
    content: fields.indexTokens?.content ?? indexTokens(fields.content),
    scope: scopeToken(fields.workspaceCanonical),
  };
}

/** The distinct tokens a memory counts in the document frequencies (all-documents included). */
function documentTokens(tokens: ReturnType<typeof fieldTokens>): string[] {
  return [
    ...new Set([
      ALL_DOCUMENTS_TOKEN,
      tokens.scope,
      ...tokens.subject,
      ...tokens.tags,
      ...tokens.content,
    ]),
  ];
}

/**
 * Owes `delta` to the document counts of `terms` and `delta × size` to the index's token total:
 * the unit writes them just before it commits (term_counts.ts); outside a unit, at once.
 */
async function countTerms(
  core: PgCore<unknown>,
  change: { terms: string[]; size: number },
  delta: 1 | -1,
): Promise<void> {
  const owed = core.termCounts();
  const counts = owed ?? new PendingTermCounts();
  counts.add(change.terms, { docs: delta, tokens: delta * change.size });
  if (owed === undefined) await counts.write(core.q());
}

/** A memory's `memory_terms` row (what {@linkcode indexMemoryTerms} inserts), as JSON. */
export interface MemoryTermsRow {
  subject: string[];
  tags: string[];
  content: string[];
  scope: string;
  size: number;
  words: string[];
  /** Each token's count in the memory, weighted by column (BM25's term frequency), as JSON. */
  counts: string;
}

/**
 * Each token's count in a memory, each occurrence weighted by its column's BM25 weight: what
 * `termHits` sums per query token. Written with the row, so a search reads one value per
 * candidate and token instead of unpacking the candidate's token arrays (the bulk of a `find`'s
 * BM25 query at 10,000 memories, docs/POSTGRES.md).
 */
function weightedCounts(tokens: { subject: string[]; tags: string[]; content: string[] }): string {
  const counts: Record<string, number> = {};
  for (const column of ["subject", "tags", "content"] as const) {
    const weight = BM25_WEIGHTS[column];
    for (const token of tokens[column]) counts[token] = (counts[token] ?? 0) + weight;
  }
  return JSON.stringify(counts);
}

/** A memory's index row, and the tokens it counts in the document counts. */
function termsRow(fields: IndexedFields): { row: MemoryTermsRow; counted: string[] } {
  const tokens = fieldTokens(fields);
  // FTS5 counts the scope column's one token in a document's size too.
  const size = tokens.subject.length + tokens.tags.length + tokens.content.length + 1;
  const row = {
    subject: tokens.subject,
    tags: tokens.tags,
    content: tokens.content,
    scope: tokens.scope,
    size,
    words: tsvectorWords([...new Set([...tokens.subject, ...tokens.tags, ...tokens.content])]),
    counts: weightedCounts(tokens),
  };
  return { row, counted: documentTokens(tokens) };
}

/**
 * The index row of a new memory, its document counts owed to the unit open now (written at
 * once outside a unit): for a caller that inserts the row inside a statement of its own.
 */
export async function termsRowOwed(
  core: PgCore<unknown>,
  fields: IndexedFields,
): Promise<MemoryTermsRow> {
  const { row, counted } = termsRow(fields);
  await countTerms(core, { terms: counted, size: row.size }, 1);
  return row;
}

/**
 * Writes memory `id`'s index row; `previous` (its fields as they were) takes the old row's
 * counts out first.
 */
export async function indexMemoryTerms(
  core: PgCore<unknown>,
  id: number,
  fields: IndexedFields,
  previous?: IndexedFields,
): Promise<void> {
  if (previous) await unindexMemoryTerms(core, id, previous);
  const row = await termsRowOwed(core, fields);
  await core.q()`INSERT INTO memory_terms (memory_id, subject, tags, content, scope, size, words,
      counts)
    VALUES (${id}, ${row.subject}::text[], ${row.tags}::text[], ${row.content}::text[],
      ${row.scope}, ${row.size}, array_to_tsvector(${row.words}::text[]), ${row.counts}::text::jsonb)`;
}

/**
 * Writes the index rows of many new memories in one statement (the rows go as one JSON
 * document: their token arrays differ in length, so they cannot be parallel arrays).
 */
export async function indexManyMemoryTerms(
  core: PgCore<unknown>,
  memories: readonly { id: number; fields: IndexedFields }[],
): Promise<void> {
  if (memories.length === 0) return;
  const owed = core.termCounts();
  const counts = owed ?? new PendingTermCounts();
  const rows = memories.map(({ id, fields }) => {
    const { row, counted } = termsRow(fields);
    counts.add(counted, { docs: 1, tokens: row.size });
    return { memory_id: id, ...row };
  });
  await core.q()`INSERT INTO memory_terms (memory_id, subject, tags, content, scope, size, words,
      counts)
    SELECT memory_id, subject, tags, content, scope, size, array_to_tsvector(words),
      counts::jsonb
    FROM json_to_recordset(${
    JSON.stringify(rows)
  }::text::json) AS r(memory_id bigint, subject text[],
      tags text[], content text[], scope text, size int, words text[], counts text)`;
  if (owed === undefined) await counts.write(core.q());
}

/** Removes memory `id` (whose fields were `fields`) from the index. */
export async function unindexMemoryTerms(
  core: PgCore<unknown>,
  id: number,
  fields: IndexedFields,
): Promise<void> {
  const [row] = await core.q()`DELETE FROM memory_terms WHERE memory_id = ${id} RETURNING size`;
  if (row === undefined) return;
  await countTerms(
    core,
    { terms: documentTokens(fieldTokens(fields)), size: Number(row.size) },
    -1,
  );
}

/**
 * Indexes many memories at once, none of them indexed yet: their rows in one statement, without
 * touching the document counts or the token total ({@linkcode recountTerms} sets both after).
 * One row at a time, a rebuild updated the same count rows once per memory inside one
 * transaction, each update a new row version the next had to step over: 10,000 memories took
 * minutes.
 */
export async function indexMemoriesInBulk(
  sql: PgQuery,
  memories: readonly ({ id: number } & IndexedFields)[],
): Promise<void> {
  if (memories.length === 0) return;
  const rows = memories.map((memory) => {
    const tokens = fieldTokens(memory);
    return {
      memory_id: memory.id,
      subject: tokens.subject,
      tags: tokens.tags,
      content: tokens.content,
      scope: tokens.scope,
      size: tokens.subject.length + tokens.tags.length + tokens.content.length + 1,
      words: tsvectorWords([...new Set([...tokens.subject, ...tokens.tags, ...tokens.content])]),
      counts: weightedCounts(tokens),
    };
  });
  await sql`INSERT INTO memory_terms (memory_id, subject, tags, content, scope, size, words,
      counts)
    SELECT r.memory_id, r.subject, r.tags, r.content, r.scope, r.size, array_to_tsvector(r.words),
      r.counts::jsonb
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) AS r(memory_id bigint,
      subject text[], tags text[], content text[], scope text, size int, words text[],
      counts text)`;
}

/** Sets every token's document count and the index's token total from the index rows. */
export async function recountTerms(sql: PgQuery): Promise<void> {
  await sql`DELETE FROM memory_terms_df`;
  await sql`INSERT INTO memory_terms_df (term, docs)
    SELECT term, count(*) FROM (
      SELECT DISTINCT t.memory_id, x.term FROM memory_terms t CROSS JOIN LATERAL
        unnest(t.subject || t.tags || t.content || ARRAY[t.scope, ${ALL_DOCUMENTS_TOKEN}::text])
        AS x(term)
    ) held GROUP BY term`;
  await sql`UPDATE memory_terms_size SET tokens = (SELECT coalesce(sum(size), 0) FROM memory_terms)`;
}

/** The prefix of a document count kept in a read unit (PgCore.unitKept). */
const DF_KEY = "df:";

/** LIKE's wildcards in a term, escaped (`\` is the escape). */
function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** True when `filters` keep memories to part of the library, beyond their statuses. */
function narrows(filters: RecallFilters): boolean {
  const some = (list: readonly unknown[] | undefined) => list !== undefined && list.length > 0;
  return filters.workspaces !== undefined || some(filters.excludeWorkspaces) ||
    some(filters.tagsAll) || filters.after !== undefined || filters.before !== undefined ||
    filters.sourceTypes !== undefined || filters.protectionLevels !== undefined;
}

/** The word index room over `core`'s pool. */
export function pgWordIndex(core: PgCore<unknown>): WordIndexRepository {
  const tokenFrequencies = async (tokens: readonly string[]) => {
    const found = new Map<string, number>(tokens.map((token) => [token, 0]));
    if (tokens.length === 0) return found;
    // Inside a write unit, the counts it owes are written first, so it reads its own writes.
    await core.settleTermCounts();
    // Inside a read unit, counts read before are still its answer (PgCore.unitKept), and the
    // library's size comes along with the first read: `find` asks for it twice more.
    const kept = core.unitKept() as Map<string, number> | undefined;
    const wanted = new Set([...found.keys()].filter((token) => !kept?.has(DF_KEY + token)));
    if (kept !== undefined && !kept.has(DF_KEY + ALL_DOCUMENTS_TOKEN)) {
      wanted.add(ALL_DOCUMENTS_TOKEN);
    }
    if (wanted.size > 0) {
      const rows = await core.q()`SELECT term, docs FROM memory_terms_df
        WHERE term = ANY(${[...wanted]}::text[])`;
      for (const token of wanted) kept?.set(DF_KEY + token, 0);
      for (const row of rows) kept?.set(DF_KEY + String(row.term), Number(row.docs));
      if (kept === undefined) {
        for (const row of rows) found.set(String(row.term), Number(row.docs));
      }
    }
    if (kept !== undefined) {
      for (const token of found.keys()) found.set(token, kept.get(DF_KEY + token)!);
    }
    return found;
  };
  return {
    async termHits(tokens, filters, limit) {
      if (tokens.length === 0) return [];
      await core.settleTermCounts();
      const sql = core.q();
      // Without a filter that leaves out most memories, the candidates are scored first (the
      // score does not depend on the filters) and the best probed in order until enough pass:
      // a probe of `memories` per candidate was the costliest join, 15 of 35 ms at 10,000
      // memories. A narrowing filter (a workspace, tags, a time range) is applied first, as it
      // may leave few of many candidates.
      const narrowed = narrows(filters)
        ? sql`JOIN memories m ON m.id = t.memory_id AND ${filterCondition(sql, filters)}`
        : sql``;
      // Each token is a phrase of its own (a repeated one counts twice, as in FTS5's query).
      const rows = await sql`
        WITH stats AS (
          SELECT coalesce((SELECT docs FROM memory_terms_df WHERE term = ''), 0) AS n,
            (SELECT tokens FROM memory_terms_size) AS total
        ), query AS MATERIALIZED (
          -- float8 all through: with numeric literals ln() ran in numeric, once per joined row.
          SELECT q.term, greatest(ln((s.n - coalesce(d.docs, 0) + 0.5::float8)
              / (coalesce(d.docs, 0) + 0.5::float8)), ${BM25_IDF_FLOOR}::float8) AS idf,
            s.total::float8 / greatest(s.n, 1) AS avgdl
          FROM unnest(${tokens as string[]}::text[]) AS q(term)
          CROSS JOIN stats s LEFT JOIN memory_terms_df d ON d.term = q.term
        ), matched AS MATERIALIZED (
          SELECT t.memory_id, t.size, t.counts FROM memory_terms t ${narrowed}
          WHERE t.words @@ (SELECT string_agg(quote_literal(x), ' | ')
              FROM unnest(${[...tokens, OVERFLOW_LEXEME]}::text[]) AS x)::tsquery
        ), counted AS (
          -- A row's weighted counts (written with it) give each query token's count in one
          -- lookup; unpacking the token arrays was most of this query's time.
          SELECT c.memory_id, c.size, q.term, (c.counts ->> q.term)::float8 AS w
          FROM matched c CROSS JOIN (SELECT DISTINCT term
            FROM unnest(${tokens as string[]}::text[]) AS u(term)) q
          WHERE c.counts ? q.term
          UNION ALL
          -- A row indexed before the counts were kept: its arrays, read once, counting only
          -- the query's tokens (array_positions for every query token cost 4× as much).
          SELECT c.memory_id, c.size, x.term, sum(x.weight) AS w
          FROM matched c JOIN memory_terms t ON t.memory_id = c.memory_id CROSS JOIN LATERAL (
            SELECT term, ${BM25_WEIGHTS.subject}::float8 AS weight FROM unnest(t.subject) AS term
            UNION ALL SELECT term, ${BM25_WEIGHTS.tags}::float8 FROM unnest(t.tags) AS term
            UNION ALL SELECT term, ${BM25_WEIGHTS.content}::float8 FROM unnest(t.content) AS term
          ) x
          WHERE c.counts IS NULL AND x.term = ANY(${tokens as string[]}::text[])
          GROUP BY c.memory_id, c.size, x.term
        ), scored AS (
          SELECT c.memory_id,
            sum(q.idf * (c.w * ${BM25_K1 + 1}::float8) / (c.w + ${BM25_K1}::float8
              * (1 - ${BM25_B}::float8 + ${BM25_B}::float8 * c.size / q.avgdl))) AS relevance
          FROM counted c JOIN query q ON q.term = c.term
          GROUP BY c.memory_id
          ORDER BY relevance DESC, c.memory_id
        )
        SELECT s.memory_id AS id, s.relevance FROM scored s
        WHERE EXISTS (SELECT 1 FROM memories m
          WHERE m.id = s.memory_id AND ${filterCondition(sql, filters)})
        ORDER BY s.relevance DESC, s.memory_id LIMIT ${limit}`;
      return rows.map((row) => ({ id: Number(row.id), relevance: Number(row.relevance) }));
    },
    async weightedTermHits(tokens, filters, limit) {
      if (tokens.length === 0) return [];
      const sql = core.q();
      // Each word's holders come from the postings B-tree (term, memory id), newest first: a
      // capped word (held by more memories than the read budget) stops after its cap, a word
      // read whole (LIMIT NULL) reads its few entries. Neither touches an index row. Through the
      // GIN index, a capped word fetched every holder's row to sort them (8,664 rows over 4,727
      // pages for a 4-word lookup at 100,000 memories, docs/POSTGRES.md), and the overflow mark
      // had to be checked: the postings hold every word of a memory, past the tsvector's limit too.
      const newest = tokens.map((t) => {
        const cap = Math.floor(t.newest ?? 0);
        return cap > 0 ? cap : null;
      });
      const held = sql`SELECT h.memory_id, q.weight
          FROM unnest(${tokens.map((t) => t.token)}::text[], ${
        tokens.map((t) => t.weight)
      }::float8[], ${newest}::int[]) AS q(token, weight, newest)
          CROSS JOIN LATERAL (SELECT memory_id FROM memory_postings WHERE term = q.token
            ORDER BY memory_id DESC LIMIT q.newest) h`;
      const rows = await sql`SELECT t.memory_id AS id, sum(t.weight) AS weight
        FROM (${held}) t JOIN memories m ON m.id = t.memory_id
        WHERE ${filterCondition(sql, filters)}
        GROUP BY t.memory_id ORDER BY weight DESC, t.memory_id DESC LIMIT ${limit}`;
      return rows.map((row) => ({ id: Number(row.id), relevance: Number(row.weight) }));
    },
    tokenFrequencies,
    async vocabularyByPrefix(prefix, lengths, limit) {
      const found = new Map<string, number>();
      if (prefix === "") return found;
      await core.settleTermCounts();
      const last = prefix.length - 1;
      const after = prefix.slice(0, last) + String.fromCharCode(prefix.charCodeAt(last) + 1);
      // The LIMIT bounds the rows read, not the rows kept, as on SQLite.
      const rows = await core.q()`SELECT term, docs FROM (
          SELECT term, docs FROM memory_terms_df WHERE term >= ${prefix} AND term < ${after}
          ORDER BY term LIMIT ${limit}
        ) v WHERE docs > 0 AND char_length(term) BETWEEN ${lengths.min} AND ${lengths.max}`;
      for (const row of rows) found.set(String(row.term), Number(row.docs));
      return found;
    },
    async indexedMemories() {
      return (await tokenFrequencies([ALL_DOCUMENTS_TOKEN])).get(ALL_DOCUMENTS_TOKEN) ?? 0;
    },
    async likeHits(terms, filters, limit) {
      if (terms.length === 0) return [];
      const sql = core.q();
      const patterns = terms.map((term) => `%${escapeLike(term)}%`);
      // ILIKE: SQLite's LIKE ignores ASCII case; the trigram indexes serve both.
      const rows = await sql`SELECT m.id FROM memories m
        WHERE (m.subject ILIKE ANY(${patterns}::text[]) OR m.tags::text ILIKE ANY(${patterns}::text[])
          OR m.content ILIKE ANY(${patterns}::text[]))
          AND ${filterCondition(sql, filters)}
        ORDER BY m.ingest_time COLLATE "C" DESC, m.id DESC LIMIT ${limit}`;
      return rows.map((row) => Number(row.id));
    },
    async linkedTodos(options) {
      if (options.tags.length === 0) return [];
      const rows = await core.q()`SELECT id, shared FROM (
          SELECT m.id, m.ingest_time, (SELECT count(*)
              FROM jsonb_array_elements_text(m.tags) AS t(tag)
              WHERE t.tag = ANY(${options.tags as string[]}::text[])) AS shared
          FROM memories m
          WHERE m.status = 'active' AND m.tags ? ${options.todoTag}
            AND m.id != ALL(${options.exclude as number[]}::bigint[])
        ) todo WHERE shared > 0
        ORDER BY shared DESC, ingest_time COLLATE "C" DESC, id DESC LIMIT ${options.limit}`;
      return rows.map((row) => ({ id: Number(row.id), shared: Number(row.shared) }));
    },
  };
}
