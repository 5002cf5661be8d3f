/**
 * Reading facts back: whole content or an exact span, one or several.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readMemory } from "./read.ts";
 * import { rememberMemory } from "./remember.ts";
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
 * const { memoryId } = await rememberMemory(ctx, {
 *   content: "Deploys run on Fridays.",
 *   subject: "deploy day",
 *   workspace: "infra",
 * });
 * const read = await readMemory(ctx, { memoryId, span: { start: 0, end: 7 } });
 * assert.equal(read.content, "Deploys");
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { HistoryEntry, MemoryRecord } from "../store/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import { visible } from "../workspaces/access.ts";
import { widenToCodePoints } from "../text/code_points.ts";

/** A half-open UTF-16 range `[start, end)` into a memory's content. */
export interface Span {
  start: number;
  end: number;
}

/** What an agent passes to read. */
export interface ReadInput {
  memoryId: number;
  span?: Span;
  includeHistory?: boolean;
}

/** What read answers. */
export interface ReadResult {
  memory: MemoryRecord;
  content: string;
  /**
   * The span returned: the one asked for, widened to whole code points when an offset fell
   * inside a surrogate pair (then `requested` holds the offsets asked for).
   */
  span?: { start: number; end: number; totalChars: number; requested?: Span };
  history?: HistoryEntry[];
}

/** Validates a span against a content length; `field` names it in errors. */
export function checkSpan(span: Span, totalChars: number, field: string): void {
  if (span.start < 0 || span.end < 0) {
    throw new MemaError("invalid_input", `${field} offsets must not be negative`, { field });
  }
  if (span.start >= span.end) {
    throw new MemaError("invalid_input", `${field}.start must be less than ${field}.end`, {
      field,
    });
  }
  if (span.end > totalChars) {
    throw new MemaError(
      "invalid_input",
      `${field}.end is ${span.end} but the content has ${totalChars} characters (UTF-16 units)`,
      { field: `${field}.end`, details: { total_chars: totalChars } },
    );
  }
}

function project(memory: MemoryRecord, span: Span | undefined, field: string): ReadResult {
  if (!span) return { memory, content: memory.content };
  checkSpan(span, memory.content.length, field);
  // Half a surrogate pair is not text (the client would see U+FFFD): the span grows to the
  // whole character, and says so.
  const { start, end } = widenToCodePoints(memory.content, span.start, span.end);
  const widened = start !== span.start || end !== span.end;
  return {
    memory,
    content: memory.content.slice(start, end),
    span: {
      start,
      end,
      totalChars: memory.content.length,
      ...(widened ? { requested: { start: span.start, end: span.end } } : {}),
    },
  };
}

function notFound(id: number, field: string): MemaError {
  return new MemaError("not_found", `memory ${id} does not exist`, { field });
}

/** Reads one memory (soft-deleted ones do not exist for readers). */
export async function readMemory(ctx: ServiceContext, input: ReadInput): Promise<ReadResult> {
  const result = await ctx.store.read(async () => {
    const memory = visible(ctx, await ctx.store.getMemory(input.memoryId));
    if (!memory || memory.status === "deleted") throw notFound(input.memoryId, "memory_id");
    const result = project(memory, input.span, "span");
    if (input.includeHistory) result.history = await ctx.store.listHistory(memory.id);
    return result;
  });
  // A use the agent asked for by id (src/recall/usage.ts counts it, written later).
  ctx.usage?.record([result.memory.id]);
  return result;
}

/** One entry of a batch read: the result or why that id could not be read. */
export type BatchReadEntry =
  | { memoryId: number; ok: true; result: ReadResult }
  | { memoryId: number; ok: false; error: MemaError };

/**
 * Reads several memories in one snapshot. A bad span is an error for the whole
 * call (nothing partial on malformed input); a missing id is reported per entry.
 */
export async function readMemories(
  ctx: ServiceContext,
  input: { memoryIds: readonly number[]; spans?: Record<string, Span> },
): Promise<BatchReadEntry[]> {
  for (const key of Object.keys(input.spans ?? {})) {
    if (!input.memoryIds.includes(Number(key))) {
      throw new MemaError("invalid_input", `spans.${key} names an id that is not in memory_ids`, {
        field: `spans.${key}`,
      });
    }
  }
  const entries = await ctx.store.read(async () => {
    const found = await ctx.store.getMemories(input.memoryIds);
    return input.memoryIds.map((memoryId): BatchReadEntry => {
      const memory = visible(ctx, found.get(memoryId));
      if (!memory || memory.status === "deleted") {
        return { memoryId, ok: false, error: notFound(memoryId, "memory_ids") };
      }
      return {
        memoryId,
        ok: true,
        result: project(memory, input.spans?.[String(memoryId)], `spans.${memoryId}`),
      };
    });
  });
  ctx.usage?.record(entries.flatMap((entry) => entry.ok ? [entry.memoryId] : []));
  return entries;
}
