/**
 * The keys write units claim (`claimKeys`) before they read what they then write, so that units
 * running beside each other on a database several servers share (PostgreSQL's concurrent units)
 * never act on a read another unit is about to make stale. Every unit claims in the same order
 * (a workspace, then memories, then texts, then the evidence rewrite key of src/evidence/rows.ts,
 * then entity names), so none waits in a circle.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentClaim, memoryClaim } from "./claims.ts";
 *
 * assert.equal(memoryClaim(7), '["memory",7]');
 * assert.notEqual(contentClaim("infra", "ab12"), contentClaim("ops", "ab12"));
 * ```
 * @module
 */

/**
 * One memory's key: an update or a retire holds it from before it reads the memory (its
 * version, its status) until it commits, so no other writer of that memory comes between.
 */
export function memoryClaim(memoryId: number): string {
  return JSON.stringify(["memory", memoryId]);
}

/**
 * One text's key in one workspace: a `remember` of the text or an update to it holds it across
 * its duplicate check, so the text is stored once.
 */
export function contentClaim(workspaceCanonical: string, contentSha: string): string {
  return JSON.stringify(["content", workspaceCanonical, contentSha]);
}
