/**
 * `mema copy SOURCE TARGET`: a whole library copied between a SQLite file and a PostgreSQL
 * database, either way (or file to file), through the store's copy room (`tablesToCopyFrom`,
 * `copyTableFrom`, evidence rows included, then `writeRowVectors` for their vectors), then
 * verified by row counts and content fingerprints.
 *
 * The source is opened read-only (a SQLite file in read-only mode; a PostgreSQL database in a
 * `READ ONLY` snapshot, no migration run) and never changed. The target must hold no memories.
 * Before anything is copied the target is marked with {@linkcode COPY_INCOMPLETE_KEY} (its own
 * commit); the rows then arrive in one unit of work, and the mark is removed only after the
 * fingerprints match. A copy killed half way thus leaves a marked target, which every server and
 * command refuses ({@linkcode refuseIncompleteCopy}) until a copy into it runs to the end.
 *
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { isPostgresUrl, redactDbUrl } from "../config/db_url.ts";
import {
  type ContentFingerprints,
  type CopiedVectors,
  type CopySource,
  openPostgresCopySource,
  openStore,
  SCHEMA_GENERATION,
  type Store,
  UpgradeSource,
} from "../store/mod.ts";
import { absolutePath, pathExists } from "../platform/paths.ts";

/** The meta key that marks a target whose copy has not finished. */
export const COPY_INCOMPLETE_KEY = "copy_incomplete";

/** The meta key of the embedding space the vectors belong to (src/evidence/semantic.ts). */
const EMBEDDING_SPACE_KEY = "embedding_space";

/** Vectors written per store call: bounds one call's argument, not the unit. */
const VECTOR_BATCH = 500;

/** The dimension in a space id (`model:dim:fingerprint`, src/evidence/semantic.ts). */
function spaceDimension(space: string): number | undefined {
  const dim = Number(space.split(":").at(-2));
  return Number.isInteger(dim) && dim > 0 ? dim : undefined;
}

/** What a copy did, for the report (`--json` prints it as it is). */
export interface CopyResult {
  source: string;
  target: string;
  /** Rows copied per table. */
  copied: Record<string, number>;
  /** Memories indexed in the target's word index. */
  indexed: number;
  /**
   * Embedded evidence rows copied with their vectors (and the space), or why none were: the
   * target's `mema serve` then embeds the rows again.
   */
  vectors: { space: string; rows: number } | { skipped: string };
  /** Fingerprints of the source and of the target after the copy (equal, or the copy failed). */
  fingerprints: { source: ContentFingerprints; target: ContentFingerprints };
}

/** How a copy runs. */
export interface CopyOptions {
  cacheDir: string;
  log?: (line: string) => void;
  /** Called inside the copy's unit after each table (tests stop the process there). */
  afterTable?: (table: string) => void;
}

/** A database named on the command line, as it is shown (a URL without its password). */
export function describeDatabase(name: string): string {
  return isPostgresUrl(name) ? redactDbUrl(name) : absolutePath(name);
}

/** Throws when `store`'s database is marked by a copy that did not finish. */
export async function refuseIncompleteCopy(store: Store, description: string): Promise<void> {
  const mark = await store.read(async (tx) => await tx.getMeta(COPY_INCOMPLETE_KEY));
  if (mark === undefined || mark === "") return;
  throw new MemaError(
    "storage_error",
    `${description} holds an unfinished \`mema copy\` (started ${mark}): its rows are incomplete`,
    { hint: "run the same `mema copy SOURCE TARGET` again: it starts the copy over" },
  );
}

interface OpenedSource {
  source: CopySource;
  fingerprints: () => ContentFingerprints;
  mark: string | undefined;
  /** Rows of a table in the source. */
  count(table: string): number;
  /** Runs `fn` on one snapshot of the source (a SQLite file's read transaction). */
  snapshot<T>(fn: () => Promise<T>): Promise<T>;
  /** The source's vectors (after `load`), if it has any it can read. */
  vectors(): CopiedVectors | undefined;
  /** Reads the tables' rows before the copy, where the source needs it. */
  load(tables: { table: string; columns: string[] }[]): Promise<void>;
  close(): Promise<void>;
}

async function openSource(
  name: string,
  description: string,
  cacheDir: string,
): Promise<OpenedSource> {
  if (isPostgresUrl(name)) {
    const pg = await openPostgresCopySource(name).catch((error) => {
      throw new MemaError(
        "storage_error",
        `cannot read the source ${description}: ${
          error instanceof MemaError ? error.reason : redactError(error, name)
        }`,
      );
    });
    return {
      source: pg,
      fingerprints: () => pg.fingerprints(),
      mark: pg.meta(COPY_INCOMPLETE_KEY),
      count: (table) => pg.rowCount(table),
      // load() reads the rows and the fingerprints in one snapshot of its own.
      snapshot: (fn) => fn(),
      vectors: () => pg.vectors(),
      load: (tables) => pg.load(tables),
      close: () => pg.close(),
    };
  }
  if (!pathExists(name)) {
    throw new MemaError("invalid_input", `the source ${description} does not exist`, {
      field: "source",
    });
  }
  const file = new UpgradeSource(name);
  const kind = file.inspect();
  if (kind.kind === "mema" && kind.generation !== SCHEMA_GENERATION) {
    file.close();
    throw new MemaError(
      "invalid_input",
      `the source ${description} is of schema generation ${kind.generation}; this mema copies generation ${SCHEMA_GENERATION}`,
      {
        hint: kind.generation < SCHEMA_GENERATION
          ? "bring it to this generation first (`mema upgrade --db <file>`), then copy the new file"
          : "use the newer mema that wrote it",
      },
    );
  }
  if (kind.kind !== "mema") {
    file.close();
    throw new MemaError("invalid_input", `the source ${description} is no mema library`, {
      hint: kind.kind === "seed" ? "use `mema upgrade` for older databases" : undefined,
    });
  }
  // Counted on first use, inside the snapshot the copy reads.
  let counts: Record<string, number> | undefined;
  // Without sqlite-vec the vectors cannot be read; the target then embeds the rows again.
  const vecLoaded = await file.loadVec(cacheDir).catch(() => false);
  return {
    source: file,
    count: (table) => (counts ??= file.counts())[table] ?? 0,
    fingerprints: () => file.fingerprints(),
    mark: file.meta(COPY_INCOMPLETE_KEY),
    snapshot: (fn) => file.read(fn),
    vectors: () => vecLoaded ? file.vectors() : undefined,
    load: () => Promise.resolve(),
    close: () => Promise.resolve(file.close()),
  };
}

function redactError(error: unknown, url: string): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replaceAll(url, redactDbUrl(url));
}

async function openTarget(name: string, cacheDir: string): Promise<Store> {
  return isPostgresUrl(name)
    ? await openStore("", { cacheDir, dbUrl: name })
    : await openStore(absolutePath(name), { cacheDir });
}

function sameFingerprints(a: ContentFingerprints, b: ContentFingerprints): boolean {
  return a.memories.count === b.memories.count && a.memories.sha256 === b.memories.sha256 &&
    a.history.count === b.history.count && a.history.sha256 === b.history.sha256;
}

/** Copies the library at `sourceName` into the empty database at `targetName`, and verifies it. */
export async function copyLibrary(
  sourceName: string,
  targetName: string,
  options: CopyOptions,
): Promise<CopyResult> {
  const log = options.log ?? (() => {});
  const [source, target] = [describeDatabase(sourceName), describeDatabase(targetName)];
  if (source === target) {
    throw new MemaError("invalid_input", "the source and the target are the same database");
  }
  const from = await openSource(sourceName, source, options.cacheDir);
  try {
    if (from.mark) {
      throw new MemaError("invalid_input", `the source ${source} holds an unfinished copy`, {
        hint: "copy into it again from its own source first",
      });
    }
    const into = await openTarget(targetName, options.cacheDir);
    try {
      return await from.snapshot(() => copyInto(from, into, { ...options, log, source, target }));
    } finally {
      await into.close();
    }
  } finally {
    await from.close();
  }
}

async function copyInto(
  from: OpenedSource,
  into: Store,
  options: CopyOptions & { log: (line: string) => void; source: string; target: string },
): Promise<CopyResult> {
  const mark = await into.read(async (tx) => await tx.getMeta(COPY_INCOMPLETE_KEY));
  const restarting = mark !== undefined && mark !== "";
  if (!restarting) {
    const prints = await into.read(async (tx) => await tx.contentFingerprints());
    const held = prints.memories.count;
    if (held > 0 || prints.history.count > 0) {
      throw new MemaError(
        "invalid_input",
        `the target ${options.target} is not empty (${held} memories); nothing was copied`,
        { hint: "copy into a new SQLite file or an empty PostgreSQL database" },
      );
    }
  } else {
    options.log(`the target holds an unfinished copy (started ${mark}); starting over`);
  }
  const tables = await into.tablesToCopyFrom(from.source, { evidence: true });
  options.log(`reading ${options.source}`);
  await from.load(tables);
  const found = from.vectors();
  const vectors = found === undefined
    ? undefined
    : into.capabilities.vec && spaceDimension(found.space) !== undefined
    ? found
    : undefined;
  if (vectors === undefined) {
    // Rows not marked embedded are embedded again by the target's server.
    for (const entry of tables) {
      if (entry.table === "memory_rows") {
        entry.columns = entry.columns.filter((column) => column !== "embedding_space");
      }
    }
  }
  await into.write(async (tx) => await tx.setMeta(COPY_INCOMPLETE_KEY, new Date().toISOString()));
  const copied: Record<string, number> = {};
  const indexed = await into.writeBlocking(async (tx) => {
    for (const { table, columns } of tables) {
      options.log(`copying ${table}`);
      copied[table] = 0;
      if (from.source.pages === undefined) {
        copied[table] = await tx.copyTableFrom(from.source, table, columns);
      } else {
        // A page at a time (a PostgreSQL source): read, then written, then the next one read.
        for await (const _rows of from.source.pages(table, columns)) {
          copied[table] += await tx.copyTableFrom(from.source, table, columns);
        }
      }
      const expected = from.count(table);
      if (copied[table] !== expected) {
        throw new MemaError(
          "storage_error",
          `verification failed: ${copied[table]} of ${expected} rows of ${table} were copied`,
        );
      }
      options.afterTable?.(table);
    }
    if (vectors !== undefined) {
      options.log(`copying ${vectors.rows.length} vectors (${vectors.space})`);
      await tx.recreateVecTable(spaceDimension(vectors.space)!);
      await tx.setMeta(EMBEDDING_SPACE_KEY, vectors.space);
      let written = 0;
      for (let at = 0; at < vectors.rows.length; at += VECTOR_BATCH) {
        written += await tx.writeRowVectors(
          vectors.space,
          vectors.rows.slice(at, at + VECTOR_BATCH),
        );
      }
      if (written !== vectors.rows.length) {
        throw new MemaError(
          "storage_error",
          `verification failed: ${written} of ${vectors.rows.length} vectors were copied`,
        );
      }
    }
    await tx.registerMemoryWorkspaces();
    return await tx.rebuildWordIndex();
  });
  options.log("verifying row counts and content fingerprints");
  const fingerprints = {
    source: from.fingerprints(),
    target: await into.read(async (tx) => await tx.contentFingerprints()),
  };
  if (!sameFingerprints(fingerprints.source, fingerprints.target)) {
    throw new MemaError(
      "storage_error",
      `verification failed: the copy's memories or versions differ from the source's; ${options.target} stays marked unfinished`,
      { hint: "run the copy again; if it fails the same way, report it" },
    );
  }
  await into.write(async (tx) => await tx.setMeta(COPY_INCOMPLETE_KEY, ""));
  return {
    source: options.source,
    target: options.target,
    copied,
    indexed,
    vectors: vectors !== undefined ? { space: vectors.space, rows: vectors.rows.length } : {
      skipped: found === undefined
        ? "the source has no vectors it can be read for"
        : "the target cannot hold vectors (sqlite-vec did not load)",
    },
    fingerprints,
  };
}
