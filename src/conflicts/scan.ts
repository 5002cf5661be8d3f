/**
 * The scheduled scan (docs/SPEC.md §8), no model needed: `kick` walks the library in
 * bounded rounds — full when no full round has completed with this detector,
 * incremental (only memories changed since their watermark) otherwise — and
 * queues suspect pairs; the calling agent confirms or dismisses them through
 * `scan_queue`. Progress (cursor and per-memory watermarks) is committed per
 * memory, so a crashed round resumes where it stopped. A completed full round
 * appends a line to `scan_log.jsonl` beside the database.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { assessPair } from "./rules.ts";
 * import { kickScan } from "./scan.ts";
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
 * const receipt = await kickScan(ctx, { assess: assessPair, logPath: `${dir}/scan_log.jsonl` });
 * assert.equal(receipt.complete, true); // an empty library is scanned in one kick
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { requireAuthorization } from "../core/authorization.ts";
import type { ServiceContext } from "../core/context.ts";
import { nowIso } from "../platform/clock.ts";
import { ensureDir } from "../platform/directories.ts";
import { appendLineDurable } from "../platform/durable_lines.ts";
import { dirName } from "../platform/paths.ts";
import type { MemoryRecord, ScanItem } from "../store/mod.ts";
import { bestPair, neighboursOf, pairKey, recordSuspectPair, rowsOf } from "./detect.ts";
import {
  DETECT_MAX_CONTENT_CHARS,
  DETECT_MAX_PAIRS,
  DETECT_NEIGHBOURS,
  DETECTOR_VERSION,
  DUPLICATES_MAX,
  SCAN_DEFAULT_MEMORIES,
  SCAN_DEFAULT_SECONDS,
  SCAN_QUEUE_PAGE_DEFAULT,
  STRICT_NOTICE_WINDOW,
} from "./constants_pipeline.ts";
import type { PairAssessor } from "./types.ts";
import { duplicateSimilarity, isNearDuplicate } from "./duplicates.ts";
import { canSeeWorkspace, isStrict, strictWorkspace, visible } from "../workspaces/access.ts";

interface RoundState {
  id: string;
  mode: "full" | "incremental";
  cursor: number;
  startedAt: string;
  processed: number;
  queued: number;
}

const ROUND_KEY = "scan_round";
const LAST_FULL_KEY = "scan_last_full_at";
const DETECTOR_KEY = "scan_detector";

/** What one kick did. */
export interface ScanReceipt {
  roundId: string;
  mode: "full" | "incremental";
  processedThisKick: number;
  queuedThisKick: number;
  queuedTotal: number;
  pendingMemories: number;
  complete: boolean;
  logged: boolean;
}

async function currentRound(ctx: ServiceContext): Promise<RoundState> {
  const saved = await ctx.store.getMeta(ROUND_KEY);
  if (saved) return JSON.parse(saved) as RoundState;
  const full = await ctx.store.getMeta(LAST_FULL_KEY) === undefined ||
    await ctx.store.getMeta(DETECTOR_KEY) !== DETECTOR_VERSION;
  const round: RoundState = {
    id: `${full ? "full" : "incr"}-${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 6)}`,
    mode: full ? "full" : "incremental",
    cursor: 0,
    startedAt: nowIso(),
    processed: 0,
    queued: 0,
  };
  await ctx.store.write(async () => await ctx.store.setMeta(ROUND_KEY, JSON.stringify(round)));
  return round;
}

/** Runs one bounded step of the current round (starting one when none is open). */
export async function kickScan(
  ctx: ServiceContext,
  options: { assess: PairAssessor; logPath: string; maxMemories?: number; timeBudgetS?: number },
): Promise<ScanReceipt> {
  const { store } = ctx;
  const round = await currentRound(ctx);
  const full = round.mode === "full";
  const deadline = Date.now() + (options.timeBudgetS ?? SCAN_DEFAULT_SECONDS) * 1000;
  const limit = options.maxMemories ?? SCAN_DEFAULT_MEMORIES;
  let processed = 0;
  let queued = 0;
  while (processed < limit && Date.now() < deadline) {
    const [next] = await store.read(async () =>
      await store.conflicts.memoriesToScan({
        afterId: round.cursor,
        full,
        round: round.id,
        limit: 1,
      })
    );
    if (!next) break;
    // The closure may run again after SQLITE_BUSY, so it only computes; state changes after commit.
    const advanced = await store.write(async () => {
      const memory = await store.getMemory(next.id);
      const added = memory && memory.status === "active" &&
          memory.content.length <= DETECT_MAX_CONTENT_CHARS
        ? await queueSuspects(ctx, memory, round, options.assess)
        : 0;
      await store.conflicts.markScanned({
        memoryId: next.id,
        version: next.version,
        round: round.id,
        now: nowIso(),
      });
      const state: RoundState = {
        ...round,
        cursor: next.id,
        processed: round.processed + 1,
        queued: round.queued + added,
      };
      await store.setMeta(ROUND_KEY, JSON.stringify(state));
      return { state, added };
    });
    Object.assign(round, advanced.state);
    queued += advanced.added;
    processed++;
  }
  const pending = await store.read(async () =>
    await store.conflicts.countToScan({ afterId: round.cursor, full, round: round.id })
  );
  let logged = false;
  if (pending === 0) {
    const finishedAt = nowIso();
    await store.write(async () => {
      await store.setMeta(ROUND_KEY, "");
      if (full) {
        await store.setMeta(LAST_FULL_KEY, finishedAt);
        await store.setMeta(DETECTOR_KEY, DETECTOR_VERSION);
      }
    });
    if (full) {
      // On PostgreSQL no database file makes the log's directory (it lives where db_path would).
      ensureDir(dirName(options.logPath));
      appendLineDurable(
        options.logPath,
        JSON.stringify({
          scan_time: finishedAt,
          started_at: round.startedAt,
          duration_sec: (Date.parse(finishedAt) - Date.parse(round.startedAt)) / 1000,
          status: "complete",
          mode: round.mode,
          round_id: round.id,
          processed: round.processed,
          queued: round.queued,
          detector: DETECTOR_VERSION,
          client: ctx.caller.client,
          agent_id: ctx.caller.agentId,
          models: { judge: null },
        }),
      );
      logged = true;
    }
  }
  return {
    roundId: round.id,
    mode: round.mode,
    processedThisKick: processed,
    queuedThisKick: queued,
    queuedTotal: round.queued,
    pendingMemories: pending,
    complete: pending === 0,
    logged,
  };
}

async function queueSuspects(
  ctx: ServiceContext,
  memory: MemoryRecord,
  round: RoundState,
  assess: PairAssessor,
): Promise<number> {
  const budget = { pairs: DETECT_MAX_PAIRS };
  let queued = 0;
  for (const neighbour of await neighboursOf(ctx.store, memory, DETECT_NEIGHBOURS)) {
    // Each pair is visited from both sides; the lower id queues it.
    if (neighbour.id < memory.id && round.mode === "full") continue;
    const pair = await bestPair(ctx.store, memory, neighbour, { assess, budget });
    if (!pair) continue;
    const key = pairKey(pair);
    // Recorded before: as its own group, or as a pair that joined an event.
    if (await ctx.store.conflicts.byKey(key) !== undefined) continue;
    const [a, b] = pair.a.id < pair.b.id ? [pair.a, pair.b] : [pair.b, pair.a];
    const [rowA, rowB] = pair.a.id < pair.b.id ? [pair.rowA, pair.rowB] : [pair.rowB, pair.rowA];
    const added = await ctx.store.conflicts.queueItem({
      candidateKey: key,
      memoryA: a.id,
      memoryB: b.id,
      versionA: a.version,
      versionB: b.version,
      rowA: rowA.text,
      rowB: rowB.text,
      assessment: { ...pair.assessment },
      score: pair.assessment.score,
      roundId: round.id,
      now: nowIso(),
    });
    if (added) queued++;
    if (budget.pairs <= 0) break;
  }
  return queued;
}

function presentItem(item: ScanItem, memories: Map<number, MemoryRecord>): Record<string, unknown> {
  const side = (id: number, version: number, row: string) => {
    const memory = memories.get(id);
    return {
      memory_id: id,
      version,
      current_version: memory?.version ?? null,
      subject: memory?.subject ?? null,
      source_type: memory?.sourceType ?? null,
      event_time: memory?.eventTime ?? null,
      row_text: row,
    };
  };
  return {
    item_id: item.id,
    score: Math.round(item.score * 1000) / 1000,
    kind: item.assessment.kind ?? null,
    reasons: item.assessment.reasons ?? [],
    values: item.assessment.values ?? null,
    a: side(item.memoryA, item.versionA, item.rowA),
    b: side(item.memoryB, item.versionB, item.rowB),
  };
}

function decodeToken(token: string | undefined): { score: number; id: number } | undefined {
  if (token === undefined) return undefined;
  try {
    const parsed = JSON.parse(atob(token));
    if (typeof parsed.score === "number" && typeof parsed.id === "number") return parsed;
  } catch {
    // fall through
  }
  throw new MemaError("invalid_input", "page_token is not a token this server issued", {
    field: "page_token",
  });
}

/** True when the caller may see both memories of a queued pair. */
async function pairVisible(ctx: ServiceContext, a: number, b: number): Promise<boolean> {
  if (!isStrict(ctx)) return true;
  const memories = await ctx.store.getMemories([a, b]);
  return [a, b].every((id) => visible(ctx, memories.get(id)) !== undefined);
}

/** A page of the scan queue, best suspects first. */
export async function scanQueuePage(
  ctx: ServiceContext,
  input: { pageSize?: number; pageToken?: string },
): Promise<Record<string, unknown>> {
  const size = input.pageSize ?? SCAN_QUEUE_PAGE_DEFAULT;
  const after = decodeToken(input.pageToken);
  const { store } = ctx;
  return await store.read(async () => {
    // Strict isolation shows only pairs inside the caller's workspace: look further ahead.
    const items: ScanItem[] = [];
    for (
      const item of await store.conflicts.queueItems({
        limit: isStrict(ctx) ? STRICT_NOTICE_WINDOW : size + 1,
        after,
      })
    ) {
      if (items.length > size) break;
      if (await pairVisible(ctx, item.memoryA, item.memoryB)) items.push(item);
    }
    const page = items.slice(0, size);
    const memories = await store.getMemories(page.flatMap((i) => [i.memoryA, i.memoryB]));
    const last = page[page.length - 1];
    return {
      items: page.map((item) => presentItem(item, memories)),
      has_more: items.length > size,
      next_page_token: items.length > size && last
        ? btoa(JSON.stringify({ score: last.score, id: last.id }))
        : null,
      queue_backlog: (await store.conflicts.backlog()).scanQueuePending,
      instruction:
        'For each item decide whether the two rows state different values for the same fact. Submit {"decisions": [{"item_id": N, "status": "confirmed" | "dismissed"}]}; confirmed items become conflict groups to judge.',
    };
  });
}

/** Applies the agent's decisions on queue items. */
export async function scanQueueSubmit(
  ctx: ServiceContext,
  input: { decisions: { itemId: number; status: "confirmed" | "dismissed"; reason?: string }[] },
): Promise<Record<string, unknown>> {
  const { store } = ctx;
  const outcomes: Record<string, unknown>[] = [];
  for (const decision of input.decisions) {
    const outcome = await store.write(async (): Promise<Record<string, unknown>> => {
      const found = await store.conflicts.queueItemById(decision.itemId);
      const item = found && await pairVisible(ctx, found.memoryA, found.memoryB)
        ? found
        : undefined;
      if (!item) return { item_id: decision.itemId, outcome: "not_found" };
      if (item.status !== "pending") return { item_id: item.id, outcome: `already_${item.status}` };
      const now = nowIso();
      if (decision.status === "dismissed") {
        await store.conflicts.decideItem(item.id, {
          status: "dismissed",
          by: ctx.caller.agentId,
          now,
        });
        return { item_id: item.id, outcome: "dismissed" };
      }
      const a = await store.getMemory(item.memoryA);
      const b = await store.getMemory(item.memoryB);
      if (
        !a || !b || a.version !== item.versionA || b.version !== item.versionB ||
        a.status !== "active" || b.status !== "active"
      ) {
        await store.conflicts.decideItem(item.id, {
          status: "voided",
          by: ctx.caller.agentId,
          now,
        });
        return {
          item_id: item.id,
          outcome: "voided",
          reason: "a member changed since the scan; it will be rescanned",
        };
      }
      const rowA = (await rowsOf(store, a)).find((r) => r.text === item.rowA) ??
        { text: item.rowA, start: null, end: null };
      const rowB = (await rowsOf(store, b)).find((r) => r.text === item.rowB) ??
        { text: item.rowB, start: null, end: null };
      const conflictId = await recordSuspectPair(ctx, {
        a,
        b,
        rowA,
        rowB,
        assessment: {
          candidate: true,
          score: item.score,
          kind: item.assessment.kind as string | undefined,
          reasons: (item.assessment.reasons as string[] | undefined) ?? [],
          values: item.assessment.values as { a: string; b: string } | undefined,
        },
      }, { source: "scan" });
      await store.conflicts.decideItem(item.id, {
        status: "confirmed",
        by: ctx.caller.agentId,
        now,
        conflictId,
      });
      return { item_id: item.id, outcome: "confirmed", conflict_id: conflictId ?? null };
    });
    outcomes.push(outcome);
  }
  return {
    outcomes,
    queue_backlog: await store.read(async () => (await store.conflicts.backlog()).scanQueuePending),
  };
}

/**
 * Near-duplicate pairs of active memories in the same workspace, most similar first, by the
 * test `remember` uses for `write_hints.possible_duplicate` (src/conflicts/duplicates.ts).
 * Members of an unresolved conflict are never proposed for merging: the conflict decides
 * which of them stays, and a merge would hide it.
 */
export async function scanDuplicates(
  ctx: ServiceContext,
  input: { limit?: number },
): Promise<Record<string, unknown>> {
  const limit = Math.min(input.limit ?? DUPLICATES_MAX, DUPLICATES_MAX);
  const { store } = ctx;
  return await store.read(async () => {
    const pairs: { a: number; b: number; similarity: number }[] = [];
    const seen = new Set<string>();
    const own = isStrict(ctx) ? strictWorkspace(ctx) : undefined;
    const ids = await store.browse(
      own === undefined ? { statuses: ["active"] } : { statuses: ["active"], workspaces: [own] },
      { limit: 5000, offset: 0 },
    );
    const records = await store.getMemories(ids);
    const inConflict = await store.conflicts.openOf(ids);
    let skipped = 0;
    for (const memory of records.values()) {
      for (const other of await neighboursOf(store, memory, DETECT_NEIGHBOURS)) {
        if (other.workspaceCanonical !== memory.workspaceCanonical) continue;
        if (!canSeeWorkspace(ctx, other.workspaceCanonical)) continue;
        const key = memory.id < other.id ? `${memory.id}:${other.id}` : `${other.id}:${memory.id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const similarity = duplicateSimilarity(memory.content, other.content);
        if (!isNearDuplicate(similarity)) continue;
        if (inConflict.has(memory.id) || (await store.conflicts.openOf([other.id])).size > 0) {
          skipped++;
          continue;
        }
        pairs.push({
          a: Math.min(memory.id, other.id),
          b: Math.max(memory.id, other.id),
          similarity,
        });
      }
    }
    pairs.sort((x, y) => y.similarity - x.similarity || x.a - y.a);
    return {
      pairs: pairs.slice(0, limit).map((p) => ({
        memory_ids: [p.a, p.b],
        similarity: Math.round(p.similarity * 1000) / 1000,
        suggested_call: {
          tool: "memory_govern",
          action: "merge_memories",
          data: { survivor_id: p.b, loser_ids: [p.a] },
        },
      })),
      truncated: pairs.length > limit,
      ...(skipped > 0
        ? {
          skipped_in_open_conflict: skipped,
          hint:
            "near-duplicates that belong to an unresolved conflict are left out: judge it first",
        }
        : {}),
    };
  });
}

/** Records a conflict the agent found itself (or marks a set of memories as not conflicting). */
export async function recordConflict(
  ctx: ServiceContext,
  input: {
    memoryIds: number[];
    valueGroups?: { value: string; memory_ids: number[] }[];
    status: "open" | "not_a_conflict";
    reason?: string;
    authorized?: boolean;
  },
): Promise<Record<string, unknown>> {
  const ids = [...new Set(input.memoryIds)].sort((a, b) => a - b);
  if (ids.length < 2) {
    throw new MemaError("invalid_input", "a conflict needs at least two different memories", {
      field: "memory_ids",
    });
  }
  if (input.status === "not_a_conflict") {
    requireAuthorization(input.authorized, {
      action: "record_conflict",
      impact: `This records that memories ${
        ids.join(", ")
      } do not conflict; they will not be flagged for this again.`,
    });
  }
  const { store } = ctx;
  return await store.write(async () => {
    const members: MemoryRecord[] = [];
    for (const [index, id] of ids.entries()) {
      const memory = visible(ctx, await store.getMemory(id));
      if (!memory || memory.status === "deleted") {
        throw new MemaError("not_found", `memory ${id} does not exist`, {
          field: `memory_ids.${index}`,
        });
      }
      members.push(memory);
    }
    const groups = input.valueGroups ??
      members.map((m) => ({ value: m.subject, memory_ids: [m.id] }));
    for (const [index, group] of groups.entries()) {
      const stray = group.memory_ids.find((id) => !ids.includes(id));
      if (stray !== undefined) {
        throw new MemaError(
          "invalid_input",
          `value group ${index} names memory ${stray}, which is not a member`,
          {
            field: `value_groups.${index}.memory_ids`,
          },
        );
      }
    }
    const now = nowIso();
    const key = `agent:${ids.join(",")}:${JSON.stringify(groups.map((g) => g.value))}`;
    const conflictId = await store.conflicts.insert({
      workspaceCanonical: members[0].workspaceCanonical,
      status: input.status,
      source: "agent",
      candidateKey: key,
      members: members.map((m) => ({
        memory_id: m.id,
        version: m.version,
        row_text: groups.find((g) => g.memory_ids.includes(m.id))?.value ?? m.subject,
        start_offset: null,
        end_offset: null,
      })),
      valueGroups: groups,
      detection: {
        recorded_by: { agent_id: ctx.caller.agentId, client: ctx.caller.client },
        reason: input.reason ?? null,
      },
      createdAt: now,
    });
    if (conflictId === undefined) {
      throw new MemaError("invalid_input", "this conflict was already recorded", {
        field: "memory_ids",
      });
    }
    if (input.status === "open") {
      await store.conflicts.insertNotice({
        kind: "conflict",
        severity: "normal",
        conflictId,
        dedupeKey: `notice:${key}`,
        title: `Conflict recorded between memories ${ids.join(", ")}`,
        message: input.reason ?? "recorded by an agent",
        payload: { memory_ids: ids },
        createdAt: now,
      });
    }
    await store.appendAudit({
      at: now,
      action: "record_conflict",
      memoryId: null,
      agentId: ctx.caller.agentId,
      client: ctx.caller.client,
      reason: input.reason ?? null,
      detail: { conflict_id: conflictId, memory_ids: ids, status: input.status },
    });
    return { conflict_id: conflictId, status: input.status, revision: 1 };
  });
}
