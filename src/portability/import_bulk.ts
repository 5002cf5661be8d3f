/**
 * The bulk path of an import. Most items of a large import are plain new memories: alone in
 * their unit, no history to replay, no memory an earlier import stored for them, no `follows`
 * link to resolve. Such items are validated as they come and wait in a {@linkcode PlainGroup};
 * the group is stored together through the write path's bulk store (`storeStagedMany`: one
 * duplicate lookup, one insert, one set of evidence rows for the group, its facts announced into
 * the import's batch of events) when the batch ends, or before anything whose outcome the waiting
 * memories could change. Everything else is stored item by item (import.ts), so the library ends
 * up exactly as storing every item in turn leaves it (tests/portability/import_bulk_test.ts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PlainGroup } from "./import_bulk.ts";
 *
 * const group = new PlainGroup();
 * assert.equal(group.size, 0);
 * // An item that names a source no waiting memory has can be decided without storing them.
 * assert.equal(group.couldMatch({ subject: "s", content: "c", line: 1, sourceRef: "a.md" }), false);
 * ```
 * @module
 */
import type { CallerIdentity, ServiceContext } from "../core/context.ts";
import { canonicalWorkspace } from "../core/workspace_names.ts";
import { type StagedRemember, stageRemember } from "../memory/remember.ts";
import type { PreparedText } from "../memory/prepared_text.ts";
import { storeStagedMany } from "../memory/remember_many.ts";
import { admitWorkspace } from "../workspaces/registry.ts";
import {
  callerFor,
  findExisting,
  type ItemPolicy,
  rememberInputOf,
  trustOf,
} from "./import_match.ts";
import type { ImportItem, ImportUnit } from "./import_types.ts";

/** A plain new memory, validated and waiting to be stored with its group. */
export interface PlainMemory {
  item: ImportItem;
  staged: StagedRemember;
  author: CallerIdentity;
  /** Stored below the trust its source declared. */
  lowered: boolean;
}

/** What storing a waiting memory did, for the unit at `slot` of the batch. */
export interface PlainOutcome {
  slot: number;
  unit: ImportUnit;
  memoryId: number;
  duplicate: boolean;
  lowered: boolean;
}

/** The ids an import maps exported ids to, as far as the batch knows them. */
export interface MappedIds {
  get(oldId: number): number | undefined;
}

/** A unit the bulk path may take: one memory without history. */
export function hasPlainShape(unit: ImportUnit): boolean {
  return unit.items.length === 1 && (unit.items[0].history?.length ?? 0) === 0;
}

/**
 * Validates `item` as a new memory when it is plain (see the module documentation), admitting
 * its workspace as `remember` would; undefined when it must go item by item. Bad input throws
 * the write path's own error, before anything is written.
 */
export async function preparePlain(
  ctx: ServiceContext,
  item: ImportItem,
  state: { ids: MappedIds; policy: ItemPolicy & { defaultWorkspace?: string } },
): Promise<PlainMemory | undefined> {
  const { policy } = state;
  // A link to a memory this import stored is checked and written by the single-fact path.
  if (item.followsMemaId !== undefined && state.ids.get(item.followsMemaId) !== undefined) {
    return undefined;
  }
  const workspace = item.workspace ?? policy.defaultWorkspace ?? "default";
  if (await findExisting(ctx, item, canonicalWorkspace(workspace))) return undefined;
  const trust = trustOf(item, policy);
  const writer = callerFor(ctx, item.origin);
  const staged = stageRemember(
    writer,
    rememberInputOf(item, { workspace, trust }, policy),
    { ingestTime: item.origin?.ingestTime },
  );
  // Admitted as its own author would be (the registry names who created a workspace).
  await admitWorkspace(writer, staged.requestedCanonical, staged.requestedDisplay);
  return { item, staged, author: writer.caller, lowered: trust.lowered };
}

/** Plain new memories waiting to be stored together; see the module documentation. */
export class PlainGroup {
  #waiting: { slot: number; unit: ImportUnit; plain: PlainMemory }[] = [];
  readonly #sourceRefs = new Set<string>();
  readonly #ingestTimes = new Set<number>();
  readonly #memaIds = new Set<number>();
  /** A waiting memory takes the time it is stored as its ingest time. */
  #ingestedNow = false;

  /** Memories waiting. */
  get size(): number {
    return this.#waiting.length;
  }

  /**
   * True when deciding `item` could depend on a waiting memory (its source, its exported id
   * and ingest time, the memory it follows): store the group first. Conservative: workspaces
   * are not compared.
   */
  couldMatch(item: ImportItem): boolean {
    if (this.#waiting.length === 0) return false;
    if (item.sourceRef !== undefined && this.#sourceRefs.has(item.sourceRef)) return true;
    if (item.followsMemaId !== undefined && this.#memaIds.has(item.followsMemaId)) return true;
    if (item.memaId === undefined) return false;
    const ingest = item.origin?.ingestTime;
    // A hand-written id is matched by its source, which a waiting memory may share (none too).
    if (ingest === undefined) return true;
    return this.#ingestedNow || this.#ingestTimes.has(Date.parse(ingest));
  }

  /** Adds a validated memory, the unit at `slot` of the batch. */
  add(slot: number, unit: ImportUnit, plain: PlainMemory): void {
    this.#waiting.push({ slot, unit, plain });
    const { item } = plain;
    if (item.sourceRef !== undefined) this.#sourceRefs.add(item.sourceRef);
    if (item.memaId !== undefined) this.#memaIds.add(item.memaId);
    const ingest = plain.staged.ingestTime;
    if (ingest === undefined) this.#ingestedNow = true;
    else this.#ingestTimes.add(Date.parse(ingest));
  }

  /**
   * Stores the waiting memories in the caller's unit of work, announcing them into the
   * batch's events (`ctx.events`, settled by the import once per batch), and empties the group.
   * `prepared`: their text work done ahead (text_preparer.ts), by item.
   */
  async store(
    ctx: ServiceContext,
    prepared?: ReadonlyMap<ImportItem, PreparedText>,
  ): Promise<PlainOutcome[]> {
    const waiting = this.#waiting;
    if (waiting.length === 0) return [];
    this.#waiting = [];
    this.#sourceRefs.clear();
    this.#ingestTimes.clear();
    this.#memaIds.clear();
    this.#ingestedNow = false;
    const stored = await storeStagedMany(ctx, waiting.map((entry) => entry.plain.staged), {
      authorOf: (index) => waiting[index].plain.author,
      events: ctx.events,
      prepared: (index) => prepared?.get(waiting[index].plain.item),
    });
    return waiting.map(({ slot, unit, plain }, index) => ({
      slot,
      unit,
      memoryId: stored[index].memoryId,
      duplicate: stored[index].duplicateReplay,
      lowered: plain.lowered && !stored[index].duplicateReplay,
    }));
  }
}
