/**
 * Import: units read from notes or a JSONL export are stored through the write path
 * (`rememberInTransaction` / `updateInTransaction`), so an imported fact is exactly like a
 * remembered one: same validation, evidence rows, conflict check, `follows` links. The checks
 * of a batch are planned together: one job for the batch (src/conflicts/batch_check.ts). Plain
 * new memories (most of a large import) are stored together through the write path's bulk
 * store (import_bulk.ts), leaving what storing them one by one would.
 *
 * Idempotent. A memory is matched to what an earlier import stored from the same place —
 * the same `mema_id` with the same ingest time (an export of this database), else the active
 * memory with the same `source_ref` in the workspace: the same content is left alone, changed
 * content becomes a new version of that memory (with history). Anything else is remembered,
 * and byte-identical content already active in the workspace is a duplicate replay.
 *
 * Units are all or nothing: each runs in a savepoint of a batch transaction of about 500
 * memories, and a unit the write path refuses is undone alone and reported by path and line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { importUnits } from "./import.ts";
 * import { markdownUnit } from "./sources.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * const unit = markdownUnit("# Deploys\nFridays.\n", {
 *   path: "notes/ops.md",
 *   sourceRef: "ops.md",
 *   fileTitle: "ops",
 *   split: "file",
 * });
 * const report = await importUnits(ctx, [unit], { defaultWorkspace: "notes" });
 * assert.equal(report.created, 1);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { AuthorizationRequired } from "../core/authorization.ts";
import type { ServiceContext } from "../core/context.ts";
import { rememberInTransaction } from "../memory/remember.ts";
import { type MemoryEdit, updateInTransaction } from "../memory/update.ts";
import { contentSha } from "../memory/content_hash.ts";
import type { PreparedText } from "../memory/prepared_text.ts";
import { normalizeTags } from "../memory/normalize.ts";
import type { SourceType } from "../store/mod.ts";
import { canonicalWorkspace } from "../core/workspace_names.ts";
import { IMPORT_BATCH_MEMORIES, IMPORT_CHECKPOINT_PAGES } from "./constants.ts";
import { hasPlainShape, PlainGroup, preparePlain } from "./import_bulk.ts";
import { callerFor, findExisting, rememberInputOf, trustOf } from "./import_match.ts";
import type { ImportItem, ImportUnit, SkippedSource } from "./import_types.ts";
import { ImportedIds } from "./imported_ids.ts";
import type { TextPreparer } from "./text_preparer.ts";

/** How an import runs. */
export interface ImportOptions {
  /** Workspace of items that do not name one. */
  defaultWorkspace?: string;
  /** Trust of items that do not declare one (default document_extracted). */
  defaultSourceType?: SourceType;
  /** The user approved keeping user_confirmed / locked trust and changing guarded memories. */
  authorized?: boolean;
  /** Do everything, report it, then roll it all back. */
  dryRun?: boolean;
  /**
   * Store every item through the single-fact write path, plain new memories too (the
   * reference the bulk path is tested against).
   */
  oneByOne?: boolean;
  /** Called after each batch with memories handled so far and in all. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Prepares the text work of each batch's plain new memories while the batch before it is
   * written (text_preparer.ts: a worker); without it the write path does that work itself.
   */
  preparer?: Pick<TextPreparer, "prepare">;
}

/** What an import did (or, dry, would do). */
export interface ImportReport {
  units: number;
  created: number;
  /** Existing memories that got a new version. */
  updated: number;
  /** Already imported, same content: left alone. */
  unchanged: number;
  /** The same content was already active in the workspace. */
  duplicates: number;
  /** Versions replayed from an export's history. */
  versionsReplayed: number;
  /** Facts stored below the trust their source declared (no `--authorized`). */
  lowered: number;
  skipped: SkippedSource[];
  dryRun: boolean;
}

type Outcome = "created" | "updated" | "unchanged" | "duplicates";

interface UnitResult {
  outcomes: Outcome[];
  versions: number;
  lowered: number;
  ids: [number, number][];
}

class DryRunRollback extends Error {}

/** A unit error with the item it happened on. */
class ItemFailure extends Error {
  readonly item: ImportItem;
  readonly error: MemaError | AuthorizationRequired;
  constructor(item: ImportItem, error: MemaError | AuthorizationRequired) {
    super(error.message);
    this.item = item;
    this.error = error;
  }
}

/**
 * A unit of one memory without history needs no savepoint: `remember` and `update` check
 * everything before their first write, so a refused item has written nothing. (A savepoint
 * per note cost ~15% of a 10k-note import.)
 */
function needsSavepoint(unit: ImportUnit): boolean {
  return unit.items.length > 1 || (unit.items[0]?.history?.length ?? 0) > 0;
}

/** True for errors that belong to one unit (bad input, a guard) rather than to the database. */
function isUnitError(error: unknown): error is MemaError | AuthorizationRequired {
  if (error instanceof AuthorizationRequired) return true;
  return error instanceof MemaError && error.code !== "storage_busy" &&
    error.code !== "storage_error" && error.code !== "schema_mismatch";
}

/** The line a write-path error points at: the frontmatter key it names, else the item. */
function errorLine(item: ImportItem, error: MemaError | AuthorizationRequired): number {
  if (error instanceof MemaError && error.field) {
    const root = error.field.split(".")[0].replace(/^new_/, "");
    const line = item.fieldLines?.[root];
    if (line !== undefined) return line;
  }
  return item.line;
}

function describe(error: MemaError | AuthorizationRequired): string {
  if (error instanceof AuthorizationRequired) {
    return `${error.request.impact.split(". ")[0]}; pass --authorized to change it`;
  }
  return error.reason;
}

/**
 * What an import reads: units in source order, and for a piece a reader could not read, the
 * reason it was skipped. An array or a stream (an async generator reading a file): the import
 * holds one batch at a time, so a reader that streams keeps the whole import in bounded memory.
 */
export type ImportFeed =
  | Iterable<ImportUnit | SkippedSource>
  | AsyncIterable<ImportUnit | SkippedSource>;

/** A batch of units and the pieces the reader skipped since the batch before it. */
interface FeedBatch {
  units: ImportUnit[];
  skipped: SkippedSource[];
  /** The text work of its plain items, on its way (see {@linkcode preparedAhead}). */
  prepared?: Promise<Map<ImportItem, PreparedText>>;
}

/**
 * Each batch with the text work of its plain items sent to `preparer` as the batch is read:
 * read one batch ahead ({@linkcode withLast}), a batch is prepared while the one before it is
 * written. The first batch prepares its own: the worker starts while it is written, and an
 * import of one batch never pays for starting it (~0.2 s, measured with bench/import_paths.ts:
 * 1,500 memories took 0.6× the wall time of the bulk path without a worker when every batch
 * waited for it).
 */
async function* preparedAhead(
  batches: AsyncIterable<FeedBatch>,
  preparer: Pick<TextPreparer, "prepare">,
): AsyncGenerator<FeedBatch> {
  let first = true;
  for await (const batch of batches) {
    if (first) {
      first = false;
      yield batch;
      continue;
    }
    const items = batch.units.filter(hasPlainShape).map((unit) => unit.items[0]);
    const prepared = preparer.prepare(items).then((list) =>
      new Map(list === undefined ? [] : items.map((item, index) => [item, list[index]]))
    );
    yield { ...batch, prepared };
  }
}

/**
 * The feed in batches of about {@linkcode IMPORT_BATCH_MEMORIES}, each carrying the pieces
 * skipped while it was read, so the report lists them in the order the file gives them even
 * when the next batch is read ahead; skipped pieces after the last unit go to `leftover`.
 */
async function* batchesOf(feed: ImportFeed, leftover: SkippedSource[]): AsyncGenerator<FeedBatch> {
  let batch: FeedBatch = { units: [], skipped: [] };
  let size = 0;
  for await (const entry of feed) {
    if (!("items" in entry)) {
      batch.skipped.push(entry);
      continue;
    }
    if (size > 0 && size + entry.items.length > IMPORT_BATCH_MEMORIES) {
      // Pieces skipped after the batch's last unit were read before it was handed on: its own.
      const next: FeedBatch = { units: [], skipped: [] };
      yield batch;
      [batch, size] = [next, 0];
    }
    batch.units.push(entry);
    size += entry.items.length;
  }
  if (batch.units.length > 0) yield batch;
  else leftover.push(...batch.skipped);
}

/**
 * Each batch with whether it is the feed's last (read one batch ahead). Only the last batch's
 * commit waits for the disk: an earlier commit reaches it with the next synced one, in order, so
 * a power loss mid-import loses a suffix of batches that importing the file again restores
 * (commits with their syncs and checkpoints were ~18% of a 50k import's wall time at 1M).
 */
async function* withLast<T>(items: AsyncIterable<T>): AsyncGenerator<{ value: T; last: boolean }> {
  let held: { value: T } | undefined;
  for await (const value of items) {
    if (held) yield { value: held.value, last: false };
    held = { value };
  }
  if (held) yield { value: held.value, last: true };
}

/** One batch's units, each applied or skipped. */
type BatchResults = { unit: ImportUnit; result?: UnitResult; skipped?: SkippedSource }[];

/** Old ids → ids here, as a batch sees them. */
interface IdLookup {
  get(oldId: number): number | undefined;
  set(oldId: number, newId: number): void;
}

/**
 * The ids a batch stores, kept beside the ones committed before it and added to them only
 * once it commits: a retried batch starts over without copying the whole map (a copy per
 * batch grew with the import, quadratic over a million memories).
 */
class BatchIds implements IdLookup {
  readonly #committed: ImportedIds;
  readonly #added = new Map<number, number>();
  constructor(committed: ImportedIds) {
    this.#committed = committed;
  }
  get(oldId: number): number | undefined {
    return this.#added.get(oldId) ?? this.#committed.get(oldId);
  }
  set(oldId: number, newId: number): void {
    this.#added.set(oldId, newId);
  }
  commit(): void {
    for (const [from, to] of this.#added) this.#committed.set(from, to);
  }
}

/** Stores units; see the module documentation. */
export async function importUnits(
  ctx: ServiceContext,
  feed: ImportFeed,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const report: ImportReport = {
    units: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    duplicates: 0,
    versionsReplayed: 0,
    lowered: 0,
    skipped: [],
    dryRun: options.dryRun === true,
  };
  // An array says its size up front; a stream's total is not known until it ends.
  const total = Array.isArray(feed)
    ? (feed as (ImportUnit | SkippedSource)[]).reduce(
      (sum, entry) => sum + ("items" in entry ? entry.items.length : 0),
      0,
    )
    : undefined;
  // Old id (in the exporting database) → id here, for `follows`.
  const idMap = new ImportedIds();
  let done = 0;
  const tally = (batch: ImportUnit[], results: BatchResults) => {
    for (const entry of results) {
      if (entry.skipped) {
        report.skipped.push(entry.skipped);
        continue;
      }
      for (const outcome of entry.result!.outcomes) report[outcome]++;
      report.versionsReplayed += entry.result!.versions;
      report.lowered += entry.result!.lowered;
    }
    report.units += batch.length;
    done += batch.reduce((sum, unit) => sum + unit.items.length, 0);
    options.onProgress?.(done, total ?? done);
  };
  const batches = batchesOf(feed, report.skipped);
  if (options.dryRun) {
    // One transaction for everything, rolled back at the end: later units see earlier ones.
    // The feed is read inside it, so the body must not run twice.
    let ran = false;
    try {
      await ctx.store.write(async () => {
        if (ran) {
          throw new MemaError("storage_busy", "the database was busy during the dry run", {
            hint: "run the dry run again",
          });
        }
        ran = true;
        for await (const { units, skipped } of batches) {
          report.skipped.push(...skipped);
          const events = ctx.events.batch();
          tally(units, await applyBatch({ ...ctx, events }, units, idMap, options));
          await events.settleBatch(ctx.store);
        }
        throw new DryRunRollback();
      });
    } catch (error) {
      if (!(error instanceof DryRunRollback)) throw error;
    }
    return report;
  }
  await ctx.store.spaceCheckpoints(IMPORT_CHECKPOINT_PAGES);
  const fed = options.preparer ? preparedAhead(batches, options.preparer) : batches;
  try {
    await writeBatches(ctx, withLast(fed), {
      idMap,
      options,
      skipped: report.skipped,
      tally,
    });
  } finally {
    await ctx.store.spaceCheckpoints(undefined);
  }
  return report;
}

/** Writes each batch in its own transaction; `tally` counts what it did once it commits. */
async function writeBatches(
  ctx: ServiceContext,
  batches: AsyncIterable<{ value: FeedBatch; last: boolean }>,
  state: {
    idMap: ImportedIds;
    options: ImportOptions;
    skipped: SkippedSource[];
    tally: (batch: ImportUnit[], results: BatchResults) => void;
  },
): Promise<void> {
  const { idMap, options, tally } = state;
  for await (const { value: { units: batch, skipped, prepared: ahead }, last } of batches) {
    state.skipped.push(...skipped);
    // Awaited before the transaction: the write lock is never held waiting for the worker.
    const prepared = await ahead;
    let results: BatchResults = [];
    let batchIds = new BatchIds(idMap);
    await ctx.store.write(async () => {
      // Runs again from the start when the transaction is retried: only locals change.
      batchIds = new BatchIds(idMap);
      // The batch's conflict checks are planned as one job (src/conflicts/batch_check.ts).
      const events = ctx.events.batch();
      results = await applyBatch({ ...ctx, events }, batch, batchIds, { ...options, prepared });
      await events.settleBatch(ctx.store);
    }, { durable: last });
    batchIds.commit();
    tally(batch, results);
  }
}

/** A unit that failed on `item`, as the report names it. */
function skippedAt(
  unit: ImportUnit,
  item: ImportItem,
  error: MemaError | AuthorizationRequired,
): SkippedSource {
  return { path: unit.path, line: errorLine(item, error), at: item.at, reason: describe(error) };
}

/**
 * Applies one batch inside the caller's transaction; `idMap` learns the ids it stores. Plain
 * new memories go through the bulk path (import_bulk.ts), the rest item by item.
 */
async function applyBatch(
  ctx: ServiceContext,
  batch: ImportUnit[],
  idMap: IdLookup,
  options: ImportOptions & { prepared?: Map<ImportItem, PreparedText> },
): Promise<BatchResults> {
  return await ctx.store.bulkWrites(async () => {
    // One unit after another: a later unit's links resolve through the ids the earlier set.
    const applied: BatchResults = [];
    const group = new PlainGroup();
    const storeGroup = async () => {
      for (const stored of await group.store(ctx, options.prepared)) {
        const item = stored.unit.items[0];
        if (item.memaId !== undefined) idMap.set(item.memaId, stored.memoryId);
        applied[stored.slot] = {
          unit: stored.unit,
          result: {
            outcomes: [stored.duplicate ? "duplicates" : "created"],
            versions: 0,
            lowered: stored.lowered ? 1 : 0,
            ids: item.memaId === undefined ? [] : [[item.memaId, stored.memoryId]],
          },
        };
      }
    };
    for (const unit of batch) {
      if (options.oneByOne !== true && hasPlainShape(unit)) {
        const item = unit.items[0];
        if (group.couldMatch(item)) await storeGroup();
        try {
          const plain = await preparePlain(ctx, item, { ids: idMap, policy: options });
          if (plain) {
            group.add(applied.length, unit, plain);
            applied.push({ unit });
            continue;
          }
        } catch (error) {
          if (!isUnitError(error)) throw error;
          applied.push({ unit, skipped: skippedAt(unit, item, error) });
          continue;
        }
      }
      await storeGroup();
      try {
        const result = needsSavepoint(unit)
          ? await ctx.store.withinUnit(async () => await applyUnit(ctx, unit, idMap, options))
          : await applyUnit(ctx, unit, idMap, options);
        for (const [from, to] of result.ids) idMap.set(from, to);
        applied.push({ unit, result });
      } catch (failure) {
        if (!(failure instanceof ItemFailure)) throw failure;
        applied.push({ unit, skipped: skippedAt(unit, failure.item, failure.error) });
      }
    }
    await storeGroup();
    return applied;
  });
}

async function applyUnit(
  ctx: ServiceContext,
  unit: ImportUnit,
  idMap: IdLookup,
  options: ImportOptions,
): Promise<UnitResult> {
  const result: UnitResult = { outcomes: [], versions: 0, lowered: 0, ids: [] };
  let previous: number | undefined;
  const own = new Set<number>();
  for (const item of unit.items) {
    let applied: Applied;
    try {
      applied = await applyItem(ctx, item, {
        previous: item.followsPrevious ? previous : undefined,
        idMap,
        options,
      });
    } catch (error) {
      if (isUnitError(error)) throw new ItemFailure(item, error);
      throw error;
    }
    result.outcomes.push(applied.outcome);
    result.versions += applied.versions;
    if (applied.lowered) result.lowered++;
    if (item.memaId !== undefined) {
      result.ids.push([item.memaId, applied.memoryId]);
      idMap.set(item.memaId, applied.memoryId);
    }
    // A duplicate stands for a memory of some other source (a bare "Thanks!" said in another
    // conversation): the next item follows this unit's own previous memory, never into another
    // note or conversation. A duplicate of this unit's own earlier item is its memory.
    if (applied.outcome !== "duplicates" || own.has(applied.memoryId)) {
      previous = applied.memoryId;
      own.add(applied.memoryId);
    }
  }
  return result;
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((tag) => b.includes(tag));
}

interface Applied {
  memoryId: number;
  outcome: Outcome;
  versions: number;
  lowered: boolean;
}

async function applyItem(
  ctx: ServiceContext,
  item: ImportItem,
  state: { previous?: number; idMap: IdLookup; options: ImportOptions },
): Promise<Applied> {
  const { options } = state;
  const workspace = item.workspace ?? options.defaultWorkspace ?? "default";
  const workspaceCanonical = canonicalWorkspace(workspace);
  const existing = await findExisting(ctx, item, workspaceCanonical);
  const trust = trustOf(item, options);
  if (existing) {
    const tags = item.tags === undefined ? undefined : normalizeTags(item.tags, "tags");
    const contentChanged = existing.contentSha !== contentSha(item.content);
    const subjectChanged = existing.subject !== item.subject;
    const tagsChanged = tags !== undefined && !sameTags(tags, existing.tags);
    if (!contentChanged && !subjectChanged && !tagsChanged) {
      return { memoryId: existing.id, outcome: "unchanged", versions: 0, lowered: false };
    }
    const edit: MemoryEdit = contentChanged
      ? { kind: "new_content", content: item.content }
      : { kind: "metadata_only" };
    await updateInTransaction(ctx, {
      memoryId: existing.id,
      edit,
      newSubject: subjectChanged ? item.subject : undefined,
      newTags: tagsChanged ? tags : undefined,
      reason: `mema import: the source changed${item.sourceRef ? ` (${item.sourceRef})` : ""}`,
      authorized: options.authorized,
    });
    return { memoryId: existing.id, outcome: "updated", versions: 0, lowered: false };
  }
  let follows = state.previous;
  if (follows === undefined && item.followsMemaId !== undefined) {
    const mapped = state.idMap.get(item.followsMemaId);
    // A predecessor that was not imported (or lives elsewhere) leaves the link out.
    if (
      mapped !== undefined &&
      (await ctx.store.getMemory(mapped))?.workspaceCanonical === workspaceCanonical
    ) {
      follows = mapped;
    }
  }
  const input = rememberInputOf(item, { workspace, trust, follows }, options);
  const origin = { ingestTime: item.origin?.ingestTime };
  const history = item.history ?? [];
  if (history.length > 0) {
    const replayed = await replayHistory(ctx, item, input, origin);
    if (replayed) return { ...replayed, lowered: trust.lowered };
  }
  const stored = await rememberInTransaction(callerFor(ctx, item.origin), input, origin);
  return {
    memoryId: stored.memoryId,
    outcome: stored.duplicateReplay ? "duplicates" : "created",
    versions: 0,
    lowered: trust.lowered && !stored.duplicateReplay,
  };
}

/**
 * Rebuilds a memory version by version from an export's history: the first version is
 * remembered as its author, each later one is an update by whoever made it, with their
 * reason. Undefined when the first version is already active in the workspace (then the
 * current content is simply remembered).
 */
async function replayHistory(
  ctx: ServiceContext,
  item: ImportItem,
  input: Parameters<typeof rememberInTransaction>[1],
  origin: { ingestTime?: string },
): Promise<Omit<Applied, "lowered"> | undefined> {
  const history = [...item.history!].sort((a, b) => a.version - b.version);
  if (
    await ctx.store.findActiveByContent(
      canonicalWorkspace(input.workspace),
      contentSha(item.content),
    )
  ) {
    return undefined;
  }
  const first = history[0];
  const stored = await rememberInTransaction(
    callerFor(ctx, item.origin),
    {
      ...input,
      subject: first.subject,
      content: first.content,
      tags: first.tags,
      validFrom: first.valid_from ?? null,
      validTo: first.valid_to ?? null,
    },
    origin,
  );
  if (stored.duplicateReplay) return undefined;
  const steps = [...history.slice(1), {
    subject: item.subject,
    content: item.content,
    tags: item.tags ?? [],
    valid_from: item.validFrom ?? null,
    valid_to: item.validTo ?? null,
  }];
  let before = first;
  let versions = 0;
  for (const step of steps) {
    const current = (await ctx.store.getMemory(stored.memoryId))!;
    const contentChanged = current.content !== step.content;
    await updateInTransaction(
      callerFor(ctx, { agentId: before.changed_by, client: before.changed_by_client }),
      {
        memoryId: stored.memoryId,
        edit: contentChanged
          ? { kind: "new_content", content: step.content }
          : { kind: "metadata_only" },
        newSubject: step.subject,
        newTags: step.tags,
        // Each version gets the window its source recorded; none is closed anew.
        validFrom: step.valid_from ?? null,
        validTo: step.valid_to ?? null,
        previousStillValid: true,
        reason: before.reason ?? undefined,
        // The guard protects facts from change; this one is still being built, in this
        // transaction, from versions its source already holds.
        authorized: true,
      },
    );
    versions++;
    if ("changed_by" in step) before = step;
  }
  return { memoryId: stored.memoryId, outcome: "created", versions };
}
