/**
 * The todo list behind the MCP resource `memory://todos`: the open todos of a
 * workspace (active memories tagged `todo`) first, then the ones completed in the
 * last 7 days, within a token budget. A todo is completed when its `todo` tag is
 * removed (`update` with `tags_only`); that edit writes no history but an
 * `update_tags` audit row, which is what dates the completion.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { todoList } from "./todos.ts";
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
 * await rememberMemory(ctx, {
 *   content: "Rotate the staging keys.",
 *   subject: "key rotation",
 *   tags: ["todo"],
 *   workspace: "infra",
 * });
 * const list = await todoList(ctx, { workspace: "infra" });
 * assert.equal(list.pending.length, 1);
 * assert.match(list.text, /Rotate the staging keys\./);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import { TODO_TAG } from "../recall/constants.ts";
import { estimateTokens } from "../recall/size.ts";
import type { MemoryRecord } from "../store/mod.ts";
import { digestBudget, digestScope, factLine } from "./context_digest.ts";

/** Completed todos stay on the list this long (issue 39: "completed in the last 7 days"). */
export const TODO_DONE_WINDOW_MS = 7 * 24 * 3600 * 1000;
/** Open todos looked at; the budget usually stops earlier. */
const PENDING_FETCH = 100;
/**
 * Tag-edit audit rows looked at for completions, newest first: bounds the read when a
 * workspace retags a lot; completions past it are reported as possibly left out.
 */
const COMPLETION_AUDIT_FETCH = 500;
/** Tokens kept back for the closing "N more left out" line. */
const CLOSING_LINE_TOKENS = 40;

/** A completed todo and when its `todo` tag came off. */
export interface CompletedTodo {
  memory: MemoryRecord;
  completedAt: string;
}

/** The todo list of one workspace (or of the whole library, for a caller without one). */
export interface TodoList {
  workspace: string | null;
  pending: MemoryRecord[];
  completed: CompletedTodo[];
  text: string;
  tokensEstimate: number;
  budget: number;
  /** Todos left out for the budget. */
  omitted: number;
  memoryIds: number[];
}

/**
 * Open todos, then todos completed since `now` − 7 days, as markdown within `budget` tokens.
 * Scope and isolation as the context digest (`digestScope`).
 */
export async function todoList(
  ctx: ServiceContext,
  options: { workspace?: string; budget?: number; now?: Date } = {},
): Promise<TodoList> {
  const budget = digestBudget(options.budget);
  const { workspace, scope } = digestScope(ctx, options.workspace);
  const now = options.now ?? new Date();
  const since = new Date(now.getTime() - TODO_DONE_WINDOW_MS).toISOString();
  const excluded = new Set(scope.excludeWorkspaces ?? []);
  const { store } = ctx;
  const { pending, completed } = await store.read(async () => {
    const ids = await store.browse(
      { statuses: ["active"], tagsAll: [TODO_TAG], ...scope },
      { limit: PENDING_FETCH, offset: 0 },
    );
    const records = await store.getMemories(ids);
    const audit = await store.listAudit({
      action: "update_tags",
      after: since,
      workspace,
      limit: COMPLETION_AUDIT_FETCH,
      offset: 0,
    });
    // Newest first: the first row that took the tag off dates the completion.
    const doneAt = new Map<number, string>();
    for (const row of audit.rows) {
      if (row.memoryId === null || doneAt.has(row.memoryId)) continue;
      if (tookTodoOff(row.detail)) doneAt.set(row.memoryId, row.at);
    }
    const doneRecords = await store.getMemories([...doneAt.keys()]);
    const done: CompletedTodo[] = [];
    for (const [id, completedAt] of doneAt) {
      const memory = doneRecords.get(id);
      if (!memory || memory.status !== "active" || memory.tags.includes(TODO_TAG)) continue;
      if (workspace !== undefined && memory.workspaceCanonical !== workspace) continue;
      if (excluded.has(memory.workspaceCanonical)) continue;
      done.push({ memory, completedAt });
    }
    return { pending: ids.flatMap((id) => records.get(id) ?? []), completed: done };
  });

  const title = workspace === undefined ? "all workspaces" : `workspace "${workspace}"`;
  const lines: string[] = [`# Todos: ${title}`];
  let used = estimateTokens(lines[0]);
  let omitted = 0;
  const shown: number[] = [];
  const add = (line: string): boolean => {
    const cost = estimateTokens(line) + 1;
    if (used + cost > budget - CLOSING_LINE_TOKENS) return false;
    lines.push(line);
    used += cost;
    return true;
  };
  const withWorkspace = workspace === undefined;
  if (pending.length > 0 && add("\n## Open")) {
    for (const memory of pending) {
      if (add(factLine(memory, withWorkspace))) shown.push(memory.id);
      else omitted++;
    }
  } else omitted += pending.length;
  if (completed.length > 0 && add("\n## Completed in the last 7 days")) {
    for (const { memory, completedAt } of completed) {
      if (add(`${factLine(memory, withWorkspace)} (done ${completedAt.slice(0, 10)})`)) {
        shown.push(memory.id);
      } else omitted++;
    }
  } else omitted += completed.length;
  if (pending.length === 0 && completed.length === 0) {
    add(
      `\nNo todos here. Remember one with tags ["${TODO_TAG}"]; complete it by removing the tag (update with tags_only).`,
    );
  }
  if (omitted > 0) {
    lines.push(
      `\n(${omitted} more left out for the ${budget}-token budget: find with tags_filter ["${TODO_TAG}"].)`,
    );
  }
  const text = lines.join("\n");
  return {
    workspace: workspace ?? null,
    pending,
    completed,
    text,
    tokensEstimate: estimateTokens(text),
    budget,
    omitted,
    memoryIds: shown,
  };
}

/** Whether a tag-edit audit detail took the `todo` tag off. */
function tookTodoOff(detail: Record<string, unknown>): boolean {
  const before = Array.isArray(detail.before) ? detail.before : [];
  const after = Array.isArray(detail.after) ? detail.after : [];
  return before.includes(TODO_TAG) && !after.includes(TODO_TAG);
}
