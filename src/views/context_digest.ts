/**
 * The context digest behind the MCP resources `memory://current-context` and
 * `memory://workspace/{name}`: what an agent should know when it starts work in
 * a workspace, within a token budget — pinned and locked facts first, then the
 * most recent facts, open todos and unresolved conflicts. Each fact is one line
 * (a preview when long) with its id, so the agent can `read` the whole of it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { contextDigest } from "./context_digest.ts";
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
 * const digest = await contextDigest(ctx, { workspace: "infra" });
 * assert.match(digest.text, /Deploys run on Fridays\./);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import { TODO_TAG } from "../recall/constants.ts";
import { estimateTokens } from "../recall/size.ts";
import type { MemoryRecord, RecallFilters } from "../store/mod.ts";
import { isStrict, outsideOwnWorkspace, strictWorkspace } from "../workspaces/access.ts";
import { recallBlacklist } from "../workspaces/blacklist.ts";
import { canonicalWorkspace } from "../core/workspace_names.ts";
import { prefixByUnits } from "../text/code_points.ts";

/**
 * The digest's default budget: issue 13 asks for ≤ 2,000 tokens, a tenth of the 20K-token
 * MEMORY.md files agents re-read today.
 */
export const CONTEXT_BUDGET_DEFAULT = 2_000;
/** The largest budget a reader may ask for (`?tokens=`). */
export const CONTEXT_BUDGET_MAX = 20_000;
/** Longest line for one fact, in characters: a preview; `read` gives the rest. */
const FACT_PREVIEW_CHARS = 240;
/** Tokens kept back for the closing "N more left out" line, so the whole stays in budget. */
const CLOSING_LINE_TOKENS = 40;
/** How many facts of each section are looked at (the budget usually stops earlier). */
const SECTION_FETCH = 50;

/** The digest of one workspace (or of the whole library, for a caller without one). */
export interface ContextDigest {
  /** Canonical workspace, or null for the whole library. */
  workspace: string | null;
  text: string;
  tokensEstimate: number;
  budget: number;
  /** Facts left out for the budget. */
  omitted: number;
  memoryIds: number[];
}

/**
 * The digest for `workspace` (canonical or not), or for the caller's own when it is left out
 * (the whole library minus the recall blacklist when the caller has none). Under strict
 * isolation only the caller's own workspace can be read.
 */
export async function contextDigest(
  ctx: ServiceContext,
  options: { workspace?: string; budget?: number } = {},
): Promise<ContextDigest> {
  const budget = digestBudget(options.budget);
  const { workspace, scope } = digestScope(ctx, options.workspace);
  const { store } = ctx;
  const sections = await store.read(async () => {
    const page = async (filters: Omit<RecallFilters, "workspaces" | "excludeWorkspaces">) => {
      const ids = await store.browse({ ...filters, ...scope }, { limit: SECTION_FETCH, offset: 0 });
      const records = await store.getMemories(ids);
      return ids.flatMap((id) => records.get(id) ?? []);
    };
    const conflicts = (await store.conflicts.list({
      statuses: ["open", "applying"],
      limit: SECTION_FETCH,
      offset: 0,
      workspace,
    })).rows;
    return {
      pinned: await page({ statuses: ["active"], protectionLevels: ["locked", "protected"] }),
      pinnedByTag: await page({ statuses: ["active"], tagsAll: ["pinned"] }),
      todos: await page({ statuses: ["active"], tagsAll: [TODO_TAG] }),
      recent: await page({ statuses: ["active"] }),
      conflicts,
    };
  });
  const title = workspace === undefined ? "all workspaces" : `workspace "${workspace}"`;
  const lines: string[] = [`# Current context: ${title}`];
  let used = estimateTokens(lines[0]);
  let omitted = 0;
  const shown = new Set<number>();
  const add = (line: string): boolean => {
    const cost = estimateTokens(line) + 1;
    if (used + cost > budget - CLOSING_LINE_TOKENS) return false;
    lines.push(line);
    used += cost;
    return true;
  };
  const section = (heading: string, memories: readonly MemoryRecord[]) => {
    const fresh = memories.filter((m) => !shown.has(m.id));
    if (fresh.length === 0) return;
    if (!add(`\n## ${heading}`)) {
      omitted += fresh.length;
      return;
    }
    for (const memory of fresh) {
      if (add(factLine(memory, workspace === undefined))) shown.add(memory.id);
      else omitted++;
    }
  };
  section("Pinned and locked facts", [...sections.pinned, ...sections.pinnedByTag]);
  section("Open todos", sections.todos);
  section("Recent facts", sections.recent);
  if (sections.conflicts.length > 0 && add("\n## Unresolved conflicts")) {
    for (const group of sections.conflicts) {
      const ids = group.members.map((m) => m.memory_id).join(", ");
      if (
        !add(
          `- conflict ${group.id} (${group.status}): memories ${ids} disagree; review with memory_review conflict_detail {"conflict_id": ${group.id}}`,
        )
      ) omitted++;
    }
  }
  if (shown.size === 0 && sections.conflicts.length === 0) {
    add("\nNo facts stored here yet.");
  }
  if (omitted > 0) {
    lines.push(`\n(${omitted} more left out for the ${budget}-token budget: use memory find.)`);
  }
  const text = lines.join("\n");
  return {
    workspace: workspace ?? null,
    text,
    tokensEstimate: estimateTokens(text),
    budget,
    omitted,
    memoryIds: [...shown],
  };
}

/** The workspace a digest reads and the recall filters that keep it there. */
export interface DigestScope {
  /** Canonical workspace, or undefined for the whole library minus the recall blacklist. */
  workspace: string | undefined;
  scope: Pick<RecallFilters, "workspaces" | "excludeWorkspaces">;
}

/**
 * The scope of a digest for `requested` (canonical or not), or for the caller's own workspace
 * when it is left out. Under strict isolation only the caller's own workspace can be read.
 */
export function digestScope(ctx: ServiceContext, requested: string | undefined): DigestScope {
  let workspace = requested === undefined ? ctx.caller.workspace : canonicalWorkspace(requested);
  if (isStrict(ctx)) {
    const own = strictWorkspace(ctx);
    if (workspace !== undefined && workspace !== own) throw outsideOwnWorkspace(own, "workspace");
    workspace = own;
  }
  return {
    workspace,
    scope: workspace === undefined
      ? { excludeWorkspaces: recallBlacklist(ctx.settings.recallBlacklistPath) }
      : { workspaces: [workspace] },
  };
}

/** The digest budget from a `?tokens=` value; a clear error outside 100..20000. */
export function digestBudget(requested: number | undefined): number {
  const budget = Math.min(requested ?? CONTEXT_BUDGET_DEFAULT, CONTEXT_BUDGET_MAX);
  if (!Number.isInteger(budget) || budget < 100) {
    throw new MemaError("invalid_input", "tokens must be an integer from 100 to 20000", {
      field: "tokens",
    });
  }
  return budget;
}

/** One fact as a line (shared with the todo list): id, subject, a preview of the content, trust when raised. */
export function factLine(memory: MemoryRecord, withWorkspace: boolean): string {
  const flat = memory.content.replace(/\s+/g, " ").trim();
  const preview = flat.length > FACT_PREVIEW_CHARS
    ? `${
      prefixByUnits(flat, FACT_PREVIEW_CHARS)
    }… (read memory ${memory.id} for all ${flat.length} characters)`
    : flat;
  const marks = [
    memory.protectionLevel !== "normal" ? memory.protectionLevel : undefined,
    memory.sourceType === "user_confirmed" ? "user-confirmed" : undefined,
    withWorkspace ? memory.workspaceCanonical : undefined,
  ].filter((mark) => mark !== undefined);
  return `- [${memory.id}] ${memory.subject}${
    marks.length ? ` (${marks.join(", ")})` : ""
  }: ${preview}`;
}
