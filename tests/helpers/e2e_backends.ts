/**
 * The end-to-end tests that run on both backends: the same body, once on a SQLite file in a
 * temporary home and once on a scratch PostgreSQL database (issue 33). The PostgreSQL run puts
 * `MEMA_DB_URL` in the home's environment, so every server and command the body starts with
 * that home (`startServer`, `runCli`, `startHttpServer`) uses the database. It needs the test
 * cluster (scripts/test_postgres.ts); with `MEMA_TEST_SKIP_POSTGRES=1` it is ignored, and its
 * name says so. A body that checks the storage itself (bytes in the SQLite file, rows left in
 * PostgreSQL) reads which backend it runs on from its second argument.
 * @module
 */
import { createScratchDatabase } from "../../src/store/postgres/scratch.ts";
import { testPostgresUrl } from "../store/backends.ts";
import { snapshotDatabase } from "./context.ts";
import { DatabaseSync } from "node:sqlite";
import {
  queryRows,
  rowCount,
  setMetaValue,
  snapshotPostgres,
  tablesHolding,
} from "./postgres_rows.ts";
import { makeTempHome, type TempHome } from "./server.ts";

const SKIP_POSTGRES = Deno.env.get("MEMA_TEST_SKIP_POSTGRES") === "1";

/** The backend a body runs on: the home's SQLite file, or the scratch database at `url`. */
export type E2eBackend = { name: "sqlite" } | { name: "postgres"; url: string };

/** Registers `fn` as two tests, "sqlite: name" and "postgres: name"; each gets a fresh home. */
export function onBothBackends(
  name: string,
  fn: (home: TempHome, backend: E2eBackend, t: Deno.TestContext) => Promise<void>,
): void {
  Deno.test(`sqlite: ${name}`, async (t) => {
    const home = makeTempHome();
    try {
      await fn(home, { name: "sqlite" }, t);
    } finally {
      removeHome(home);
    }
  });
  Deno.test({
    name: `postgres: ${name}${SKIP_POSTGRES ? " SKIPPED (MEMA_TEST_SKIP_POSTGRES=1)" : ""}`,
    ignore: SKIP_POSTGRES,
    // The scratch database's admin pool keeps idle timers until it is dropped, after the body.
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const scratch = await createScratchDatabase(testPostgresUrl());
      const home = makeTempHome();
      home.env.MEMA_DB_URL = scratch.url;
      try {
        await fn(home, { name: "postgres", url: scratch.url }, t);
      } finally {
        removeHome(home);
        await scratch.drop();
      }
    },
  });
}

/**
 * The memories, their history, the audit log and the word index's size on either backend, as
 * text: equal before and after a refused call means it wrote nothing.
 */
export function snapshotLibrary(home: TempHome, backend: E2eBackend): Promise<string> {
  return backend.name === "postgres"
    ? snapshotPostgres(backend.url)
    : Promise.resolve(snapshotDatabase(home.dbPath));
}

/** Sets `key` in the library's `meta` table behind the servers' backs (a hand edit). */
export function setLibraryMeta(
  home: TempHome,
  backend: E2eBackend,
  entry: { key: string; value: string },
): Promise<void> {
  if (backend.name === "postgres") return setMetaValue(backend.url, entry.key, entry.value);
  const db = new DatabaseSync(home.dbPath);
  try {
    db.prepare("UPDATE meta SET value = ? WHERE key = ?").run(entry.value, entry.key);
  } finally {
    db.close();
  }
  return Promise.resolve();
}

/** How many rows `table` of the library holds. */
export function libraryRowCount(
  home: TempHome,
  backend: E2eBackend,
  table: string,
): Promise<number> {
  if (backend.name === "postgres") return rowCount(backend.url, table);
  const db = new DatabaseSync(home.dbPath, { readOnly: true });
  try {
    const row = db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number };
    return Promise.resolve(Number(row.n));
  } finally {
    db.close();
  }
}

/**
 * The rows a read-only statement written for both dialects returns (`?` parameters; cast a
 * bigint column with `CAST(x AS INTEGER)`, which PostgreSQL's driver otherwise returns as text).
 */
export function libraryRows(
  home: TempHome,
  backend: E2eBackend,
  statement: string,
  params: readonly (string | number)[] = [],
): Promise<Record<string, unknown>[]> {
  if (backend.name === "postgres") return queryRows(backend.url, statement, params);
  const db = new DatabaseSync(home.dbPath, { readOnly: true });
  try {
    const rows = db.prepare(statement).all(...params) as Record<string, unknown>[];
    return Promise.resolve(rows.map((row) => ({ ...row })));
  } finally {
    db.close();
  }
}

/**
 * Whether the library still holds `text` anywhere: in the SQLite file or its WAL (every byte,
 * free pages too), or in a live row of any PostgreSQL table.
 */
export async function libraryHolds(
  home: TempHome,
  backend: E2eBackend,
  text: string,
): Promise<boolean> {
  if (backend.name === "postgres") return (await tablesHolding(backend.url, text)).length > 0;
  for (const path of [home.dbPath, `${home.dbPath}-wal`]) {
    try {
      if (new TextDecoder("latin1").decode(Deno.readFileSync(path)).includes(text)) return true;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return false;
}

/** Removes the home unless the body already did (bodies clean up after themselves too). */
function removeHome(home: TempHome): void {
  try {
    home.cleanup();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
