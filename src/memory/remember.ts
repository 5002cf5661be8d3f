/**
 * The write path for new facts: `remember`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/mod.ts";
 * import { rememberMemory } from "./remember.ts";
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
 * const { memoryId, version } = await rememberMemory(ctx, {
 *   content: "Deploys run on Fridays",
 *   subject: "deploy day",
 *   workspace: "infra",
 * });
 * assert.ok(memoryId > 0);
 * assert.equal(version, 1);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { refreshEvidence } from "../evidence/rows.ts";
import { requireAuthorization } from "../core/authorization.ts";
import { nowIso, systemTimeZone } from "../platform/clock.ts";
import type { NewMemory, ProtectionLevel, SourceType } from "../store/mod.ts";
import { canonicalWorkspace, WORKSPACE_MAX_CHARS } from "../core/workspace_names.ts";
import { visible, writeWorkspace } from "../workspaces/access.ts";
import {
  admitWorkspace,
  NewWorkspacePending,
  registerPendingWorkspace,
  type WorkspaceArrival,
} from "../workspaces/registry.ts";
import { contentClaim } from "./claims.ts";
import { contentSha } from "./content_hash.ts";
import { checkNamedGraph, type NamedGraphInput } from "../entities/named.ts";
import { checkValidity, validityFromText, type ValidityRead } from "./validity.ts";
import type { ServiceContext } from "../core/context.ts";
import type { NamedGraph } from "../core/memory_events.ts";
import { METADATA_MAX_BYTES, SOURCE_REF_MAX_CHARS, SUBJECT_MAX_CHARS } from "./limits.ts";
import {
  checkContentSize,
  checkVerbatimText,
  checkVerbatimValue,
  normalizeTags,
  normalizeTime,
  utf8Bytes,
} from "./normalize.ts";

/** What an agent passes to remember. */
export interface RememberInput {
  content: string;
  subject: string;
  /** The project; the caller's own workspace when left out (required when there is none). */
  workspace?: string;
  tags?: string[];
  sourceType?: SourceType;
  sourceRef?: string;
  eventTime?: string;
  /** When the fact became true / stopped being true (ISO 8601); read from the text when both are absent. */
  validFrom?: string | null;
  validTo?: string | null;
  confidence?: number;
  protectionLevel?: ProtectionLevel;
  status?: "active" | "pending";
  metadata?: Record<string, unknown>;
  /**
   * The memory this one continues in the same workspace: the turn a reply answers, the
   * section before this one. Recall lets a strong hit lend relevance to what follows it.
   */
  follows?: number;
  /** The user approved (required to store a fact as user_confirmed). */
  authorized?: boolean;
  /** Entities the caller names for this fact (issue 35). */
  entities?: NamedGraphInput["entities"];
  /** Relations the caller states with this fact. */
  relations?: NamedGraphInput["relations"];
}

/** What remember answers. */
export interface RememberResult {
  memoryId: number;
  version: number;
  workspace: string;
  duplicateReplay: boolean;
  /** The window edges read from the fact's words (the caller gave none). */
  validityRead?: ValidityRead[];
  /** This write registered its workspace (mema had not seen the name). */
  newWorkspace?: boolean;
  /** An existing workspace the new name is a near miss of (`alpah` → `alpha`). */
  didYouMean?: string;
  /** The renamed or merged workspace name the write asked for; it landed in `workspace`. */
  redirectedFrom?: string;
}

/**
 * Checks the subject: not empty or only whitespace, within the limit. It is stored as sent,
 * spaces included: a subject comes back exactly as it was given.
 */
export function checkSubject(subject: string, field: string): string {
  checkVerbatimText(subject, field);
  if (subject.trim() === "") {
    throw new MemaError(
      "invalid_input",
      `${field} must not be ${subject === "" ? "empty" : "only whitespace"}`,
      { field, hint: "give a short title such as 'deploy schedule'" },
    );
  }
  if (subject.length > SUBJECT_MAX_CHARS) {
    throw new MemaError(
      "resource_limit_exceeded",
      `${field} has ${subject.length} characters; the limit is ${SUBJECT_MAX_CHARS}`,
      { field, details: { actual_chars: subject.length, max_chars: SUBJECT_MAX_CHARS } },
    );
  }
  return subject;
}

function checkWorkspace(workspace: string): string {
  const canonical = canonicalWorkspace(workspace);
  if (workspace.length > WORKSPACE_MAX_CHARS || canonical.length > WORKSPACE_MAX_CHARS) {
    throw new MemaError(
      "invalid_input",
      `workspace is longer than ${WORKSPACE_MAX_CHARS} characters`,
      {
        field: "workspace",
      },
    );
  }
  return canonical;
}

/** A memory may only follow a stored, not deleted memory of its own workspace. */
async function checkFollows(
  ctx: ServiceContext,
  follows: number,
  workspaceCanonical: string,
): Promise<void> {
  const previous = visible(ctx, await ctx.store.getMemory(follows));
  if (!previous || previous.status === "deleted") {
    throw new MemaError("not_found", `follows names memory ${follows}, which does not exist`, {
      field: "follows",
      hint: "pass the memory_id that remember returned for the previous turn or section",
    });
  }
  if (previous.workspaceCanonical !== workspaceCanonical) {
    throw new MemaError(
      "invalid_input",
      `follows names memory ${follows} of workspace "${previous.workspaceCanonical}"; a sequence stays in one workspace`,
      { field: "follows" },
    );
  }
}

/**
 * Stores a new fact verbatim with its provenance. Byte-identical content that
 * is already active in the same workspace is not stored twice: the existing id
 * comes back with `duplicateReplay: true`.
 */
export async function rememberMemory(
  ctx: ServiceContext,
  input: RememberInput,
  options: {
    /** Work on the committed result while its disk sync runs (see `WriteOptions`). */
    whileSyncing?: (result: RememberResult) => void | Promise<void>;
  } = {},
): Promise<RememberResult> {
  const store = prepareRemember(ctx, input);
  try {
    // Concurrent: a remember claims what it reads before writing (prepareRemember), so remembers
    // of different texts run side by side on a database several servers share.
    return await ctx.store.write(store, { whileSyncing: options.whileSyncing, concurrent: true });
  } catch (error) {
    if (error instanceof NewWorkspacePending) await registerPendingWorkspace(ctx, error);
    throw error;
  }
}

/** How an import restores a fact written elsewhere (never reachable from MCP data). */
export interface RememberOrigin {
  /** When the fact first entered mema (ISO 8601); default now. */
  ingestTime?: string;
}

/**
 * {@linkcode rememberMemory} for a caller already inside a write transaction. `origin`
 * keeps the provenance of a fact brought back by `mema import`.
 */
export function rememberInTransaction(
  ctx: ServiceContext,
  input: RememberInput,
  origin: RememberOrigin = {},
): Promise<RememberResult> {
  return prepareRemember(ctx, input, origin)();
}

/** Validates and normalizes the input; returns the transaction body that stores it. */
export function prepareRemember(
  ctx: ServiceContext,
  input: RememberInput,
  origin: RememberOrigin = {},
): () => Promise<RememberResult> {
  const staged = stageRemember(ctx, input, origin);
  return () => storeStaged(ctx, staged);
}

/** A fact validated and normalized, ready to store (what {@linkcode stageRemember} makes). */
export interface StagedRemember {
  input: RememberInput;
  subject: string;
  requestedCanonical: string;
  requestedDisplay: string;
  tags: string[];
  named: NamedGraph | undefined;
  eventTime: string | null;
  metadata: Record<string, unknown>;
  sourceType: SourceType;
  protectionLevel: ProtectionLevel;
  sha: string;
  status: "active" | "pending";
  ingestTime: string | undefined;
  validityRead: ValidityRead[] | undefined;
  window: { validFrom: string | null; validTo: string | null };
}

/** Validates and normalizes one fact (bad input throws here, before any unit of work). */
export function stageRemember(
  ctx: ServiceContext,
  input: RememberInput,
  origin: RememberOrigin = {},
): StagedRemember {
  if (input.content.trim() === "") {
    throw new MemaError("invalid_input", "content must not be empty", { field: "content" });
  }
  checkContentSize(input.content, "content");
  const subject = checkSubject(input.subject, "subject");
  const requested = writeWorkspace(ctx, input.workspace).trim();
  const requestedCanonical = checkWorkspace(requested);
  const tags = normalizeTags(input.tags ?? [], "tags");
  const named = checkNamedGraph(input);
  const eventTime = input.eventTime === undefined
    ? null
    : normalizeTime(input.eventTime, "event_time");
  const given = checkValidity(input);
  const metadata = input.metadata ?? {};
  checkVerbatimValue(metadata, "metadata");
  const metadataBytes = utf8Bytes(JSON.stringify(metadata));
  if (metadataBytes > METADATA_MAX_BYTES) {
    throw new MemaError(
      "resource_limit_exceeded",
      `metadata is ${metadataBytes} bytes of JSON; the limit is ${METADATA_MAX_BYTES}`,
      {
        field: "metadata",
        details: { actual_bytes: metadataBytes, max_bytes: METADATA_MAX_BYTES },
      },
    );
  }
  if (input.sourceRef !== undefined && input.sourceRef.length > SOURCE_REF_MAX_CHARS) {
    throw new MemaError(
      "invalid_input",
      `source_ref is longer than ${SOURCE_REF_MAX_CHARS} characters`,
      {
        field: "source_ref",
      },
    );
  }
  const sourceType = input.sourceType ?? "agent_generated";
  if (sourceType === "user_confirmed") {
    // The highest trust level is the user's word, so the agent must say the user gave it.
    requireAuthorization(input.authorized, {
      action: "remember",
      impact:
        `This stores "${subject}" as user_confirmed: the most trusted level, locked against later changes without approval. Ask the user to confirm the fact, then repeat the call with authorized: true (or store it as agent_generated).`,
    });
  }
  // docs/SPEC.md §3: what the user confirmed is locked, whatever level the caller asked for.
  const protectionLevel = sourceType === "user_confirmed"
    ? "locked"
    : input.protectionLevel ?? "normal";
  const sha = contentSha(input.content);
  const status = input.status ?? "active";
  const ingestTime = origin.ingestTime === undefined
    ? undefined
    : normalizeTime(origin.ingestTime, "ingest_time");
  const requestedDisplay = requested === "" ? "default" : requested;
  // docs/SPEC.md §16: a window the caller did not give is read from the fact's own words.
  const fromText = input.validFrom === undefined && input.validTo === undefined
    ? validityFromText(input.content, {
      reference: eventTime ?? ingestTime ?? nowIso(),
      timeZone: ctx.settings.timeZone ?? systemTimeZone(),
    })
    : undefined;
  const window = fromText?.window ??
    { validFrom: given.validFrom ?? null, validTo: given.validTo ?? null };
  return {
    input,
    subject,
    requestedCanonical,
    requestedDisplay,
    tags,
    named,
    eventTime,
    metadata,
    sourceType,
    protectionLevel,
    sha,
    status,
    ingestTime,
    validityRead: fromText?.read,
    window,
  };
}

/** The unit-of-work body that stores a staged fact (a duplicate answers with the existing one). */
export async function storeStaged(
  ctx: ServiceContext,
  staged: StagedRemember,
): Promise<RememberResult> {
  const { input, subject, named, sha, status } = staged;
  const arrival = await admitWorkspace(ctx, staged.requestedCanonical, staged.requestedDisplay);
  const { workspaceCanonical, workspace, hints } = placeOf(staged, arrival);
  if (input.follows !== undefined) await checkFollows(ctx, input.follows, workspaceCanonical);
  // Another unit storing the same text in this workspace waits here until this one ends, and
  // then finds this one's memory: the text is stored once.
  await ctx.store.claimKeys([contentClaim(workspaceCanonical, sha)]);
  const existing = await ctx.store.findActiveByContent(workspaceCanonical, sha);
  if (existing) {
    return {
      memoryId: existing.id,
      version: existing.version,
      workspace: existing.workspaceCanonical,
      duplicateReplay: true,
      ...hints,
    };
  }
  const memoryId = await ctx.store.insertMemory(
    newMemoryRow(ctx, staged, { workspace, workspaceCanonical }, nowIso()),
  );
  await refreshEvidence(ctx.store, { id: memoryId, version: 1, subject, content: input.content });
  if (status === "active") {
    // A new memory stated no names before: with none given now, say so (an edit rereads them).
    await ctx.events.announceWritten(ctx.store, {
      memoryId,
      version: 1,
      named: named ?? { entities: [], relations: [] },
    });
  }
  return {
    memoryId,
    version: 1,
    workspace: workspaceCanonical,
    duplicateReplay: false,
    ...readHint(staged),
    ...hints,
  };
}

/** Where a staged fact lands, by its workspace's arrival, and the hints the arrival gives. */
export function placeOf(staged: StagedRemember, arrival: WorkspaceArrival): {
  workspaceCanonical: string;
  workspace: string;
  hints: Pick<RememberResult, "newWorkspace" | "didYouMean" | "redirectedFrom">;
} {
  return {
    workspaceCanonical: arrival.canonical,
    workspace: arrival.redirectedFrom === undefined ? staged.requestedDisplay : arrival.display,
    hints: {
      ...(arrival.isNew ? { newWorkspace: true } : {}),
      ...(arrival.didYouMean !== undefined ? { didYouMean: arrival.didYouMean } : {}),
      ...(arrival.redirectedFrom !== undefined ? { redirectedFrom: arrival.redirectedFrom } : {}),
    },
  };
}

/** The window edges read from the fact's words, as a result field (none when none were read). */
export function readHint(staged: StagedRemember): Pick<RememberResult, "validityRead"> {
  return staged.validityRead && staged.validityRead.length > 0
    ? { validityRead: staged.validityRead }
    : {};
}

/** The row a staged fact becomes where it lands, written at `now`. */
export function newMemoryRow(
  ctx: ServiceContext,
  staged: StagedRemember,
  place: { workspace: string; workspaceCanonical: string },
  now: string,
): NewMemory {
  const { input } = staged;
  return {
    subject: staged.subject,
    content: input.content,
    contentSha: staged.sha,
    tags: staged.tags,
    workspace: place.workspace,
    workspaceCanonical: place.workspaceCanonical,
    sourceType: staged.sourceType,
    sourceRef: input.sourceRef ?? null,
    eventTime: staged.eventTime,
    ingestTime: staged.ingestTime ?? now,
    validFrom: staged.window.validFrom,
    validTo: staged.window.validTo,
    confidence: input.confidence ?? 0.5,
    protectionLevel: staged.protectionLevel,
    status: staged.status,
    agentId: ctx.caller.agentId,
    client: ctx.caller.client,
    metadata: staged.metadata,
    follows: input.follows ?? null,
    createdAt: now,
    updatedAt: now,
  };
}
