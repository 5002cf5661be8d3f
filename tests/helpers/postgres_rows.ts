/**
 * What a scratch PostgreSQL database holds, read directly for the end-to-end tests whose SQLite
 * run reads the file (tests/helpers/e2e_backends.ts): the tables whose rows still hold a text,
 * which tables a VACUUM has run on, a snapshot of the rows a refused write must not change, meta
 * values, pending notices, row counts and the rows of a statement written for both dialects.
 * @module
 */
import { connectPostgres } from "../../src/store/postgres/connect.ts";

type Sql = Awaited<ReturnType<typeof connectPostgres>>;

async function withDatabase<T>(url: string, body: (sql: Sql) => Promise<T>): Promise<T> {
  const sql = await connectPostgres(url, { max: 1 });
  try {
    return await body(sql);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function userTables(sql: Sql): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`SELECT relname AS name FROM pg_stat_user_tables
    WHERE schemaname = 'public' ORDER BY relname`;
  return rows.map((row) => row.name);
}

/** The tables with a live row whose text (every column, as PostgreSQL prints the row) holds `needle`. */
export function tablesHolding(url: string, needle: string): Promise<string[]> {
  return withDatabase(url, async (sql) => {
    const found: string[] = [];
    for (const table of await userTables(sql)) {
      const [row] = await sql`SELECT count(*)::int AS n FROM ${sql(table)} AS t
        WHERE strpos(t::text, ${needle}) > 0`;
      if (row.n > 0) found.push(table);
    }
    return found;
  });
}

/** The tables VACUUM has run on since the database was made (autovacuum's runs not counted). */
export function vacuumedTables(url: string): Promise<string[]> {
  return withDatabase(url, async (sql) => {
    const rows = await sql<{ name: string }[]>`SELECT relname AS name FROM pg_stat_user_tables
      WHERE schemaname = 'public' AND last_vacuum IS NOT NULL ORDER BY relname`;
    return rows.map((row) => row.name);
  });
}

/**
 * The memories, their history, the audit log and the word index's document count, as text: equal
 * before and after a call means the call wrote nothing a user could notice.
 */
export function snapshotPostgres(url: string): Promise<string> {
  return withDatabase(url, async (sql) => {
    const parts: string[] = [];
    for (const table of ["memories", "memory_history", "audit"]) {
      parts.push(JSON.stringify(await sql`SELECT * FROM ${sql(table)} ORDER BY id`));
    }
    const [terms] = await sql`SELECT count(*)::int AS n FROM memory_terms`;
    parts.push(String(terms.n));
    return parts.join("\n");
  });
}

/** The value of `key` in the library's `meta` table, or undefined. */
export function metaValue(url: string, key: string): Promise<string | undefined> {
  return withDatabase(url, async (sql) => {
    const [row] = await sql<{ value: string }[]>`SELECT value FROM meta WHERE key = ${key}`;
    return row?.value;
  });
}

/** How many notices wait to be delivered. */
export function pendingNotices(url: string): Promise<number> {
  return withDatabase(url, async (sql) => {
    const [row] = await sql`SELECT count(*)::int AS n FROM notices WHERE status = 'pending'`;
    return row.n as number;
  });
}

/** Sets `key` in the library's `meta` table, as another mema (or a hand edit) would. */
export function setMetaValue(url: string, key: string, value: string): Promise<void> {
  return withDatabase(url, async (sql) => {
    await sql`UPDATE meta SET value = ${value} WHERE key = ${key}`;
  });
}

/** How many rows `table` holds. */
export function rowCount(url: string, table: string): Promise<number> {
  return withDatabase(url, async (sql) => {
    const [row] = await sql`SELECT count(*)::int AS n FROM ${sql(table)}`;
    return row.n as number;
  });
}

/** The rows a statement returns; `?` marks a parameter, as in the SQLite test's statement. */
export function queryRows(
  url: string,
  statement: string,
  params: readonly (string | number)[] = [],
): Promise<Record<string, unknown>[]> {
  let n = 0;
  const text = statement.replace(/\?/g, () => `$${++n}`);
  return withDatabase(
    url,
    async (sql) => [...await sql.unsafe(text, params as (string | number)[])],
  );
}
