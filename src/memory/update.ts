/**
 * The write path for changing facts: `update`. Every change to content,
 * subject or tags appends the previous version to history and bumps the
 * version; `tags_only` edits are the one exception (no history, no bump, but
 * an audit row so the change stays accountable).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "./remember.ts";
 * import { updateMemory } from "./update.ts";
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
 * const updated = await updateMemory(ctx, {
 *   memoryId,
 *   edit: { kind: "replace_text", oldText: "Fridays", newText: "Mondays" },
 * });
 * assert.equal(updated.version, 2);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { checkNamedGraph, type NamedGraphInput } from "../entities/named.ts";
import { MemaError } from "../errors/mod.ts";
import { refreshEvidence } from "../evidence/rows.ts";
import { describeGuard, requireAuthorization } from "../core/authorization.ts";
import { nowIso, systemTimeZone } from "../platform/clock.ts";
import type { MemoryRecord } from "../store/mod.ts";
import { contentClaim, memoryClaim } from "./claims.ts";
import { contentSha } from "./content_hash.ts";
import type { ServiceContext } from "../core/context.ts";
import { REASON_MAX_CHARS } from "./limits.ts";
import { checkContentSize, normalizeTags } from "./normalize.ts";
import { checkValidity, closedWindow, validityFromText, type ValidityRead } from "./validity.ts";
import { checkSubject } from "./remember.ts";
import { visible } from "../workspaces/access.ts";

/** One text replacement. */
export interface TextPatch {
  oldText: string;
  newText: string;
}

/** The four update modes of docs/SPEC.md §5. */
export type MemoryEdit =
  | { kind: "new_content"; content: string }
  | { kind: "replace_text"; oldText: string; newText: string }
  | { kind: "patches"; patches: TextPatch[] }
  | { kind: "tags_only"; addTags: string[]; removeTags: string[] }
  | { kind: "metadata_only" };

/** What an agent passes to update. */
export interface UpdateInput {
  memoryId: number;
  edit: MemoryEdit;
  newSubject?: string;
  newTags?: string[];
  reason?: string;
  expectedVersion?: number;
  expectedContentHash?: string;
  /** The new version's window (ISO 8601); read from the new text when both are absent. */
  validFrom?: string | null;
  validTo?: string | null;
  /**
   * The version being replaced still holds: its window is not closed where the new one opens
   * (by default a new value ends the old one's validity).
   */
  previousStillValid?: boolean;
  /** The user approved this change (required for protected and locked memories). */
  authorized?: boolean;
  /** Entities the caller names for the fact (issue 35); they replace the ones named before. */
  entities?: NamedGraphInput["entities"];
  /** Relations the caller states with the fact. */
  relations?: NamedGraphInput["relations"];
}

/** What update answers. */
export interface UpdateResult {
  memoryId: number;
  version: number;
  contentSha: string;
  unchanged: boolean;
  tags: string[];
  /** The window edges read from the new text (the caller gave none). */
  validityRead?: ValidityRead[];
  /** The replaced version's window, when this update closed it. */
  closedPrevious?: { version: number; validTo: string };
}

const EDITABLE_STATUSES = new Set(["active", "pending"]);

function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    found.push(at);
    if (found.length > 1) break;
  }
  return found;
}

/**
 * Replaces the one occurrence of `oldText`. Zero or several occurrences are
 * errors: silently editing the first of several would change a fact the agent
 * did not look at.
 */
function replaceUnique(content: string, patch: TextPatch, field: string): string {
  if (patch.oldText === "") {
    throw new MemaError("invalid_input", `${field} must not be empty`, { field });
  }
  const found = occurrences(content, patch.oldText);
  if (found.length === 0) {
    throw new MemaError("invalid_input", `${field} does not occur in the current content`, {
      field,
      hint: "read the memory again and copy the exact text to replace",
    });
  }
  if (found.length > 1) {
    throw new MemaError("invalid_input", `${field} occurs more than once in the current content`, {
      field,
      hint: "include surrounding words so the text to replace is unique",
    });
  }
  const at = found[0];
  return content.slice(0, at) + patch.newText + content.slice(at + patch.oldText.length);
}

function applyEdit(current: MemoryRecord, edit: MemoryEdit): string {
  switch (edit.kind) {
    case "new_content":
      return edit.content;
    case "replace_text":
      return replaceUnique(current.content, edit, "old_text");
    case "patches":
      return edit.patches.reduce(
        (text, patch, index) => replaceUnique(text, patch, `patches.${index}.old_text`),
        current.content,
      );
    case "tags_only":
    case "metadata_only":
      return current.content;
  }
}

/** Throws `version_conflict` when the caller's expected version or content hash is stale. */
export function checkExpectations(current: MemoryRecord, input: UpdateInput): void {
  if (input.expectedVersion !== undefined && input.expectedVersion !== current.version) {
    throw new MemaError(
      "version_conflict",
      `memory ${current.id} is at version ${current.version}, not the expected ${input.expectedVersion}`,
      {
        field: "expected_version",
        details: { current_version: current.version, expected_version: input.expectedVersion },
        hint: "read the memory again, then retry the update against the current version",
      },
    );
  }
  if (
    input.expectedContentHash !== undefined &&
    input.expectedContentHash.toLowerCase() !== current.contentSha
  ) {
    throw new MemaError(
      "version_conflict",
      `memory ${current.id} content has changed (hash ${current.contentSha.slice(0, 12)}…)`,
      {
        field: "expected_content_hash",
        details: { current_content_hash: current.contentSha, current_version: current.version },
        hint: "read the memory again, then retry the update against the current content",
      },
    );
  }
}

/** The tags a `tags_only` edit leaves. */
function tagsAfter(current: MemoryRecord, edit: { addTags: string[]; removeTags: string[] }) {
  const removed = new Set(normalizeTags(edit.removeTags, "remove_tags"));
  const kept = current.tags.filter((tag) => !removed.has(tag));
  return normalizeTags([...kept, ...edit.addTags], "add_tags");
}

/**
 * The memory as `input` would leave it, computed without writing: the version, content,
 * subject and tags an update applied to `current` produces, by the same rules (a `tags_only`
 * edit or a change to nothing keeps the version). Throws as the update would on a stale
 * expectation or an edit that does not apply. Saved updates chain on it (backup.ts).
 */
export function projectUpdate(current: MemoryRecord, input: UpdateInput): MemoryRecord {
  checkExpectations(current, input);
  if (input.edit.kind === "tags_only") return { ...current, tags: tagsAfter(current, input.edit) };
  const content = applyEdit(current, input.edit);
  if (content.trim() === "") {
    throw new MemaError("invalid_input", "the update would leave the content empty", {
      field: input.edit.kind === "new_content" ? "new_content" : "new_text",
    });
  }
  const sha = contentSha(content);
  const subject = input.newSubject === undefined
    ? current.subject
    : checkSubject(input.newSubject, "new_subject");
  const tags = input.newTags === undefined
    ? current.tags
    : normalizeTags(input.newTags, "new_tags");
  if (sha === current.contentSha && subject === current.subject && sameTags(tags, current.tags)) {
    return current;
  }
  return { ...current, content, contentSha: sha, subject, tags, version: current.version + 1 };
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((tag, index) => tag === b[index]);
}

/**
 * Changes a memory atomically; a failed check writes nothing. The unit runs beside remembers and
 * other updates (`concurrent`): it claims the memory before reading its version, and the new
 * text before its duplicate check, so no other writer of either comes between its read and its
 * write.
 */
export async function updateMemory(ctx: ServiceContext, input: UpdateInput): Promise<UpdateResult> {
  const apply = prepareUpdate(ctx, input);
  return await ctx.store.write(apply, { concurrent: true });
}

/** {@linkcode updateMemory} for a caller already inside a write transaction. */
export function updateInTransaction(
  ctx: ServiceContext,
  input: UpdateInput,
): Promise<UpdateResult> {
  return prepareUpdate(ctx, input)();
}

/** Validates the input; returns the transaction body that applies it. */
function prepareUpdate(ctx: ServiceContext, input: UpdateInput): () => Promise<UpdateResult> {
  const named = checkNamedGraph(input);
  if (input.reason !== undefined && input.reason.length > REASON_MAX_CHARS) {
    throw new MemaError("invalid_input", `reason is longer than ${REASON_MAX_CHARS} characters`, {
      field: "reason",
    });
  }
  const newSubject = input.newSubject === undefined
    ? undefined
    : checkSubject(input.newSubject, "new_subject");
  const newTags = input.newTags === undefined
    ? undefined
    : normalizeTags(input.newTags, "new_tags");
  if (input.edit.kind === "new_content") checkContentSize(input.edit.content, "new_content");
  const given = checkValidity(input);
  const windowGiven = input.validFrom !== undefined || input.validTo !== undefined;

  return async () => {
    await ctx.store.claimKeys([memoryClaim(input.memoryId)]);
    const current = visible(ctx, await ctx.store.getMemory(input.memoryId));
    if (!current || current.status === "deleted") {
      throw new MemaError("not_found", `memory ${input.memoryId} does not exist`, {
        field: "memory_id",
      });
    }
    if (!EDITABLE_STATUSES.has(current.status)) {
      throw new MemaError(
        "invalid_input",
        `memory ${current.id} is ${current.status}; only active or pending memories can be updated`,
        {
          field: "memory_id",
          hint: "remember a new fact instead, or update the memory that replaced it",
        },
      );
    }
    checkExpectations(current, input);
    if (current.protectionLevel !== "normal") {
      requireAuthorization(input.authorized, {
        action: "update",
        memoryIds: [current.id],
        impact: `${describeGuard(current)}. This update would ${
          input.edit.kind === "tags_only"
            ? "change its tags"
            : `replace version ${current.version} with version ${
              current.version + 1
            } (the current text stays in history)`
        }. Ask the user to approve, then repeat the call with authorized: true.`,
      });
    }
    const now = nowIso();

    if (input.edit.kind === "tags_only") {
      const tags = tagsAfter(current, input.edit);
      if (sameTags(tags, current.tags)) {
        return {
          memoryId: current.id,
          version: current.version,
          contentSha: current.contentSha,
          unchanged: true,
          tags,
        };
      }
      await ctx.store.changeMemory(current.id, { tags, updatedAt: now });
      await ctx.store.appendAudit({
        at: now,
        action: "update_tags",
        memoryId: current.id,
        agentId: ctx.caller.agentId,
        client: ctx.caller.client,
        reason: input.reason ?? null,
        detail: { before: current.tags, after: tags, version: current.version },
      });
      return {
        memoryId: current.id,
        version: current.version,
        contentSha: current.contentSha,
        unchanged: false,
        tags,
      };
    }

    const content = applyEdit(current, input.edit);
    if (content.trim() === "") {
      throw new MemaError("invalid_input", "the update would leave the content empty", {
        field: input.edit.kind === "new_content" ? "new_content" : "new_text",
      });
    }
    checkContentSize(content, input.edit.kind === "new_content" ? "new_content" : "content");
    const sha = contentSha(content);
    const subject = newSubject ?? current.subject;
    const tags = newTags ?? current.tags;
    const newValue = sha !== current.contentSha;
    // A new value read its window from its own words when the caller gave none.
    const fromText = !windowGiven && newValue
      ? validityFromText(content, {
        reference: now,
        timeZone: ctx.settings.timeZone ?? systemTimeZone(),
      })
      : undefined;
    const opens = given.validFrom ?? fromText?.window.validFrom ?? null;
    // docs/SPEC.md §16: a new value ends the old one's window where the new one opens (now, when
    // it names no start), unless the caller says the old one still holds.
    const closing = newValue && current.status === "active" && !input.previousStillValid;
    const previousWindow = closing
      ? closedWindow(current, opens ?? now)
      : { validFrom: current.validFrom, validTo: current.validTo };
    const closedAt = previousWindow.validTo !== current.validTo ? previousWindow.validTo : null;
    const window = windowGiven || (fromText && fromText.read.length > 0)
      ? {
        validFrom: given.validFrom === null ? null : opens ?? closedAt,
        validTo: given.validTo ?? fromText?.window.validTo ?? null,
      }
      : closedAt !== null
      // A new value without a window of its own holds from where the old one closed.
      ? { validFrom: closedAt, validTo: null }
      : { validFrom: current.validFrom, validTo: current.validTo };
    const windowChanged = window.validFrom !== current.validFrom ||
      window.validTo !== current.validTo;
    if (
      sha === current.contentSha && subject === current.subject && sameTags(tags, current.tags) &&
      !windowChanged
    ) {
      if (named !== undefined && current.status === "active") {
        await ctx.events.announceWritten(ctx.store, {
          memoryId: current.id,
          version: current.version,
          named,
          sameText: true,
        });
      }
      return {
        memoryId: current.id,
        version: current.version,
        contentSha: sha,
        unchanged: true,
        tags,
      };
    }
    if (sha !== current.contentSha && current.status === "active") {
      await ctx.store.claimKeys([contentClaim(current.workspaceCanonical, sha)]);
      const twin = await ctx.store.findActiveByContent(current.workspaceCanonical, sha);
      if (twin && twin.id !== current.id) {
        throw new MemaError(
          "duplicate_content",
          `memory ${twin.id} already holds exactly this content in workspace ${current.workspaceCanonical}`,
          { field: "content", details: { existing_memory_id: twin.id } },
        );
      }
    }
    await ctx.store.appendHistory({
      memoryId: current.id,
      version: current.version,
      subject: current.subject,
      content: current.content,
      contentSha: current.contentSha,
      tags: current.tags,
      status: current.status,
      changedAt: now,
      changedBy: ctx.caller.agentId,
      changedByClient: ctx.caller.client,
      reason: input.reason ?? null,
      validFrom: previousWindow.validFrom,
      validTo: previousWindow.validTo,
    });
    const version = current.version + 1;
    await ctx.store.changeMemory(current.id, {
      subject,
      content,
      contentSha: sha,
      tags,
      version,
      validFrom: window.validFrom,
      validTo: window.validTo,
      updatedAt: now,
    });
    const closedPrevious = closedAt === null
      ? undefined
      : { version: current.version, validTo: closedAt };
    if (closedPrevious) {
      await ctx.store.appendAudit({
        at: now,
        action: "close_validity",
        memoryId: current.id,
        agentId: ctx.caller.agentId,
        client: ctx.caller.client,
        reason: input.reason ?? null,
        detail: {
          version: current.version,
          valid_from: previousWindow.validFrom,
          valid_to: previousWindow.validTo,
          closed_by_version: version,
        },
      });
    }
    // Rows belong to one version, so even a tag-list change re-labels them (stale rows never serve).
    await refreshEvidence(ctx.store, { id: current.id, version, subject, content }, {
      replacing: true,
    });
    if ((content !== current.content || named !== undefined) && current.status === "active") {
      await ctx.events.announceWritten(ctx.store, {
        memoryId: current.id,
        version,
        named,
        ...(content === current.content ? { sameText: true } : {}),
      });
    }
    return {
      memoryId: current.id,
      version,
      contentSha: sha,
      unchanged: false,
      tags,
      ...(fromText && fromText.read.length > 0 ? { validityRead: fromText.read } : {}),
      ...(closedPrevious ? { closedPrevious } : {}),
    };
  };
}
