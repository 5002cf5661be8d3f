/**
 * Many facts in one call (`batch_remember`, the bulk path): validated first, then stored in
 * one unit of work with a fixed number of statements per call rather than per fact (one lookup
 * of the texts already stored, one insert of the memories, one of their evidence rows, one
 * announcement to the listeners), each fact answering as {@linkcode rememberMemory} would.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 * import { openStore } from "../store/mod.ts";
 * import { rememberMany } from "./remember_many.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * const [first, again] = await rememberMany(ctx, [
 *   { content: "Deploys run on Fridays", subject: "deploys", workspace: "infra" },
 *   { content: "Deploys run on Fridays", subject: "deploys", workspace: "infra" },
 * ]);
 * assert.equal(again.memoryId, first.memoryId);
 * assert.equal(again.duplicateReplay, true);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import type { MemoryEvents } from "../core/memory_events.ts";
import { MemaError } from "../errors/mod.ts";
import { refreshEvidenceOfMany } from "../evidence/rows.ts";
import { nowIso } from "../platform/clock.ts";
import {
  admitWorkspace,
  NewWorkspacePending,
  registerPendingWorkspace,
  type WorkspaceArrival,
} from "../workspaces/registry.ts";
import { contentClaim } from "./claims.ts";
import { BATCH_REMEMBER_MAX } from "./limits.ts";
import { preparedFor, type PreparedText } from "./prepared_text.ts";
import {
  newMemoryRow,
  placeOf,
  prepareRemember,
  readHint,
  type RememberInput,
  type RememberResult,
  type StagedRemember,
  stageRemember,
  storeStaged,
} from "./remember.ts";

/** One fact of a {@linkcode rememberMany} call. */
export interface BatchRememberInput extends RememberInput {
  /** The index of an earlier fact of the same call that this one continues. */
  followsItem?: number;
}

/**
 * Stores many facts in one transaction (the bulk path: `batch_remember`, imports). Every
 * fact is validated first; one bad fact fails the call, naming it (`items.3.content`), and
 * nothing is stored. Each fact answers as {@linkcode rememberMemory} would, duplicates
 * included.
 */
export async function rememberMany(
  ctx: ServiceContext,
  inputs: readonly BatchRememberInput[],
): Promise<RememberResult[]> {
  if (inputs.length > BATCH_REMEMBER_MAX) {
    throw new MemaError(
      "resource_limit_exceeded",
      `${inputs.length} facts in one call; the limit is ${BATCH_REMEMBER_MAX}`,
      { field: "items", details: { actual: inputs.length, max: BATCH_REMEMBER_MAX } },
    );
  }
  inputs.forEach((input, index) => {
    if (input.followsItem === undefined) return;
    if (input.follows !== undefined || input.followsItem < 0 || input.followsItem >= index) {
      throw new MemaError(
        "invalid_input",
        `items.${index}.follows_item must name an earlier item of this call (0..${
          index - 1
        }), without follows`,
        { field: `items.${index}.follows_item` },
      );
    }
  });
  // Validate every fact before the transaction; the bodies run inside it.
  const staged = inputs.map((input, index) => itemError(index, () => stageRemember(ctx, input)));
  const chained = inputs.some((input) =>
    input.follows !== undefined || input.followsItem !== undefined
  );
  // A fact that follows another needs it stored (and checked) first: such a call stores its
  // facts one by one. Any other call stores them together (storeStagedMany).
  const run = chained
    ? async () => {
      const results: RememberResult[] = [];
      for (const [index, input] of inputs.entries()) {
        const follows = input.followsItem === undefined
          ? undefined
          : results[input.followsItem].memoryId;
        const store = follows === undefined
          ? () => storeStaged(ctx, staged[index])
          : prepareRemember(ctx, { ...input, follows });
        results.push(await itemErrorAsync(index, store));
      }
      return results;
    }
    : () => storeStagedMany(ctx, staged);
  try {
    return await ctx.store.write(run);
  } catch (error) {
    if (error instanceof NewWorkspacePending) await registerPendingWorkspace(ctx, error);
    throw error;
  }
}

/** Runs `fn`; a MemaError it throws names the batch item (`items.3.content`). */
function itemError<T>(index: number, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw itemFailure(index, error);
  }
}

/** {@linkcode itemError} for a fact's store body. */
async function itemErrorAsync<T>(index: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw itemFailure(index, error);
  }
}

/** A fact's bad input, named by its place in the batch; other errors as they are. */
function itemFailure(index: number, error: unknown): unknown {
  if (!(error instanceof MemaError)) return error;
  return new MemaError(error.code, `items.${index}: ${error.reason}`, {
    field: `items.${index}${error.field ? `.${error.field}` : ""}`,
    hint: error.hint,
    didYouMean: error.didYouMean,
    details: error.details,
    cause: error,
  });
}

/** How a bulk writer other than `batch_remember` (an import) stores its facts together. */
export interface StoreManyOptions {
  /** Who wrote each fact (an import keeps each memory's exported author); default the caller. */
  authorOf?: (index: number) => ServiceContext["caller"];
  /**
   * The bulk writer's own batch of events ({@linkcode MemoryEvents.batch}): the facts are
   * announced into it and the writer settles it once for its whole unit of work.
   */
  events?: MemoryEvents;
  /**
   * The text work of fact `index` when the writer prepared it ahead (used only when computed
   * from the fact's own subject and content).
   */
  prepared?: (index: number) => PreparedText | undefined;
}

/**
 * Stores staged facts (none follows another) as storing each in turn would: a text already
 * active in its workspace, or stored by an earlier fact of the call, is a duplicate replay; a
 * workspace is admitted once, its later facts landing as in a workspace already known. Runs
 * inside the caller's unit of work.
 */
export async function storeStagedMany(
  ctx: ServiceContext,
  staged: readonly StagedRemember[],
  options: StoreManyOptions = {},
): Promise<RememberResult[]> {
  const admitted = new Map<string, WorkspaceArrival>();
  const arrivals: WorkspaceArrival[] = [];
  for (const [index, item] of staged.entries()) {
    const first = admitted.get(item.requestedCanonical);
    if (first === undefined) {
      const arrival = await itemErrorAsync(
        index,
        () => admitWorkspace(ctx, item.requestedCanonical, item.requestedDisplay),
      );
      admitted.set(item.requestedCanonical, arrival);
      arrivals.push(arrival);
    } else if (first.redirectedFrom !== undefined) {
      arrivals.push(first);
    } else {
      // Admitted by an earlier fact of this call: known now, so no hints.
      arrivals.push({ canonical: first.canonical, display: item.requestedDisplay, isNew: false });
    }
  }
  const places = staged.map((item, index) => placeOf(item, arrivals[index]));
  const texts = staged.map((item, index) => ({
    workspaceCanonical: places[index].workspaceCanonical,
    contentSha: item.sha,
  }));
  const textKey = (text: { workspaceCanonical: string; contentSha: string }) =>
    contentClaim(text.workspaceCanonical, text.contentSha);
  await ctx.store.claimKeys(texts.map(textKey));
  const existing = await ctx.store.findActiveByContents(texts);
  // The facts to insert, and for each fact either its stored twin or its place among them.
  const fresh: number[] = [];
  const storedBy = new Map<string, number>();
  const twinOf: (number | undefined)[] = staged.map((item, index) => {
    if (existing[index] !== undefined) return undefined;
    const key = textKey(texts[index]);
    const earlier = storedBy.get(key);
    if (earlier !== undefined) return earlier;
    fresh.push(index);
    if (item.status === "active") storedBy.set(key, index);
    return undefined;
  });
  const now = nowIso();
  const preparedOf = (index: number) =>
    preparedFor(options.prepared?.(index), staged[index].subject, staged[index].input.content);
  const ids = await ctx.store.insertMemories(
    fresh.map((index) => {
      const author = options.authorOf?.(index);
      const writer = author === undefined ? ctx : { ...ctx, caller: author };
      const row = newMemoryRow(writer, staged[index], places[index], now);
      const tokens = preparedOf(index)?.tokens;
      return tokens === undefined ? row : { ...row, indexTokens: tokens };
    }),
  );
  const idOf = new Map(fresh.map((index, i) => [index, ids[i]]));
  await refreshEvidenceOfMany(
    ctx.store,
    fresh.map((index) => ({
      id: idOf.get(index)!,
      version: 1,
      subject: staged[index].subject,
      content: staged[index].input.content,
      rows: preparedOf(index)?.rows,
    })),
  );
  // A batch's events: listeners that react to many facts at once (the conflict check, the
  // entity graph) get them together at the end.
  const events = options.events ?? ctx.events.batch();
  for (const index of fresh) {
    if (staged[index].status !== "active") continue;
    await events.announceWritten(ctx.store, {
      memoryId: idOf.get(index)!,
      version: 1,
      // A new memory stated no names before: with none given now, say so.
      named: staged[index].named ?? { entities: [], relations: [] },
      reading: preparedOf(index)?.graph,
    });
  }
  if (options.events === undefined) await events.settleBatch(ctx.store);
  return staged.map((item, index) => {
    const { workspaceCanonical, hints } = places[index];
    const found = existing[index];
    if (found !== undefined) {
      return {
        memoryId: found.id,
        version: found.version,
        workspace: found.workspaceCanonical,
        duplicateReplay: true,
        ...hints,
      };
    }
    const twin = twinOf[index];
    if (twin !== undefined) {
      return {
        memoryId: idOf.get(twin)!,
        version: 1,
        workspace: workspaceCanonical,
        duplicateReplay: true,
        ...hints,
      };
    }
    return {
      memoryId: idOf.get(index)!,
      version: 1,
      workspace: workspaceCanonical,
      duplicateReplay: false,
      ...readHint(item),
      ...hints,
    };
  });
}
