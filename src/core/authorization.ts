/**
 * The authorization gate (docs/SPEC.md §4): `authorized: true` is the caller's
 * assertion that the user approved. Without it, a guarded call changes
 * nothing and answers `action_required: "ask_user_for_authorization"` with a
 * plain statement of what would happen.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requireAuthorization } from "./authorization.ts";
 *
 * requireAuthorization(true, { action: "retire", impact: "…" }); // passes
 * assert.throws(() => requireAuthorization(undefined, { action: "retire", impact: "…" }));
 * ```
 * @module
 */

/** What a guarded call would do, for the user to approve. */
export interface AuthorizationRequest {
  action: string;
  impact: string;
  memoryIds?: number[];
}

/** Thrown by services when a guarded call lacks `authorized: true`; nothing was written. */
export class AuthorizationRequired extends Error {
  readonly request: AuthorizationRequest;

  constructor(request: AuthorizationRequest) {
    super(request.impact);
    this.name = "AuthorizationRequired";
    this.request = request;
  }
}

/** Passes when `authorized` is true; otherwise throws {@linkcode AuthorizationRequired}. */
export function requireAuthorization(
  authorized: boolean | undefined,
  request: AuthorizationRequest,
): void {
  if (authorized !== true) throw new AuthorizationRequired(request);
}

/** How a memory's guard reads in an impact statement. */
export function describeGuard(memory: {
  id: number;
  subject: string;
  protectionLevel: string;
  sourceType: string;
}): string {
  return `memory ${memory.id} ("${memory.subject}") is ${memory.protectionLevel} (${memory.sourceType})`;
}
