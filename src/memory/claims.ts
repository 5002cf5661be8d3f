/**
 * The keys write units claim (`claimKeys`) before they read what they then write, so that units
 * running beside each other on a database several servers share (PostgreSQL's concurrent units)
 * never act on a read another unit is about to make stale. Every unit claims in the same order
 * (a workspace, then memories, then texts, then {@linkcode EVIDENCE_REWRITE_CLAIM}, then entity
 * names), so none waits in a circle.
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

/**
 * Held by a unit that replaces a stored memory's evidence rows (an update), from before the
 * replacement until it commits, so such units run one at a time (beside remembers, whose new
 * memories have no rows to replace). Replacing rows deletes their vectors, and each PostgreSQL
 * server's vector copy follows the vector change log in sequence order, which is sound only while
 * the units that change vectors commit in the order they logged (docs/ARCHITECTURE.md, "Vectors
 * without pgvector").
 */
export const EVIDENCE_REWRITE_CLAIM = JSON.stringify(["evidence-rewrite"]);
