/**
 * What an import decides about one item before writing it, shared by the item-by-item path
 * (import.ts) and the bulk path (import_bulk.ts): the memory an earlier import stored for it,
 * the trust and author it is written with, and the `remember` input it becomes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trustOf } from "./import_match.ts";
 *
 * const item = { subject: "s", content: "c", line: 1, sourceType: "user_confirmed" as const };
 * assert.equal(trustOf(item, {}).sourceType, "document_extracted");
 * assert.equal(trustOf(item, { authorized: true }).sourceType, "user_confirmed");
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import type { RememberInput } from "../memory/remember.ts";
import type { MemoryRecord, ProtectionLevel, SourceType } from "../store/mod.ts";
import { IMPORT_DEFAULT_SOURCE_TYPE } from "./constants.ts";
import type { ImportItem } from "./import_types.ts";

/** The import's choices that decide how an item is written. */
export interface ItemPolicy {
  /** Trust of items that do not declare one (default document_extracted). */
  defaultSourceType?: SourceType;
  /** The user approved keeping user_confirmed / locked trust. */
  authorized?: boolean;
}

/** The trust an item is stored with, and whether that is below what its source declared. */
export interface ItemTrust {
  sourceType: SourceType;
  protectionLevel: ProtectionLevel | undefined;
  lowered: boolean;
}

/** The trust an item is stored with: its declared one only when the user authorized it. */
export function trustOf(item: ImportItem, policy: ItemPolicy): ItemTrust {
  const fallback = policy.defaultSourceType ?? IMPORT_DEFAULT_SOURCE_TYPE;
  const declared = item.sourceType ?? fallback;
  const keep = policy.authorized === true;
  const sourceType = declared === "user_confirmed" && !keep ? fallback : declared;
  const protectionLevel = item.protectionLevel === "locked" && !keep
    ? "normal"
    : item.protectionLevel;
  return {
    sourceType,
    protectionLevel,
    lowered: sourceType !== declared || protectionLevel !== item.protectionLevel,
  };
}

/** The memory an earlier import (or the export this came from) stored for this item. */
export async function findExisting(
  ctx: ServiceContext,
  item: ImportItem,
  workspaceCanonical: string,
): Promise<MemoryRecord | undefined> {
  if (item.memaId !== undefined) {
    const same = await ctx.store.getMemory(item.memaId);
    // The same id alone proves nothing (another database's ids overlap): the ingest time
    // too, or for a hand-written id, the same source.
    if (
      same && (same.status === "active" || same.status === "pending") &&
      same.workspaceCanonical === workspaceCanonical &&
      (item.origin?.ingestTime !== undefined
        ? Date.parse(same.ingestTime) === Date.parse(item.origin.ingestTime)
        : same.sourceRef === (item.sourceRef ?? null))
    ) {
      return same;
    }
  }
  if (item.sourceRef === undefined) return undefined;
  return await ctx.store.findActiveBySourceRef(workspaceCanonical, item.sourceRef);
}

/** The context an item is written under: its exported author when it has one. */
export function callerFor(
  ctx: ServiceContext,
  who?: { agentId?: string; client?: string },
): ServiceContext {
  if (!who?.agentId && !who?.client) return ctx;
  return {
    ...ctx,
    caller: { agentId: who.agentId || ctx.caller.agentId, client: who.client || ctx.caller.client },
  };
}

/** What `remember` is asked to store for a new item. */
export function rememberInputOf(
  item: ImportItem,
  place: { workspace: string; trust: ItemTrust; follows?: number },
  policy: ItemPolicy,
): RememberInput {
  return {
    subject: item.subject,
    content: item.content,
    workspace: place.workspace,
    tags: item.tags,
    sourceType: place.trust.sourceType,
    sourceRef: item.sourceRef,
    eventTime: item.eventTime,
    validFrom: item.validFrom,
    validTo: item.validTo,
    confidence: item.confidence,
    protectionLevel: place.trust.protectionLevel,
    status: item.status,
    metadata: item.metadata,
    follows: place.follows,
    authorized: policy.authorized,
  };
}
