/**
 * The keys concurrent write units claim (`claimKeys`, src/store/repositories.ts) before they
 * read what they are about to change, shared by every service that claims one: two units that
 * read and then change the same thing must name it by the same key. On a database several
 * servers share, a unit claiming a key waits until no other unit holds it; on a SQLite file
 * every write unit runs alone and claims nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentClaimKey, memoryClaimKey } from "./claim_keys.ts";
 *
 * assert.equal(memoryClaimKey(7), memoryClaimKey(7));
 * assert.notEqual(contentClaimKey("infra", "ab12"), contentClaimKey("ops", "ab12"));
 * ```
 * @module
 */

/** A memory's row: its version checked before an update, or a conflict recorded about it. */
export function memoryClaimKey(memoryId: number): string {
  return JSON.stringify(["memory", memoryId]);
}

/** A text in a workspace: checked for an active twin before it is stored or written in. */
export function contentClaimKey(workspaceCanonical: string, contentSha: string): string {
  return JSON.stringify(["content", workspaceCanonical, contentSha]);
}
