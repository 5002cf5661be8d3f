/**
 * The audit trail of refused HTTP requests: an unknown bearer token, a workspace the token may
 * not use, an identity header that contradicts the token. Each refusal is one `audit` row with
 * action `http_access_refused` (memory id none), coalesced per minute so a flood cannot fill
 * the disk (src/http/access_token_constants.ts). The token itself is never written: a known token is
 * named by its label, an unknown one not at all.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { refusalReason } from "./access_refusals.ts";
 *
 * assert.equal(
 *   refusalReason({ kind: "unknown_token", peer: "127.0.0.1" }),
 *   "unknown or missing bearer token",
 * );
 * ```
 * @module
 */
import { nowIso } from "../platform/clock.ts";
import { logWarn } from "../platform/log.ts";
import type { Store } from "../store/mod.ts";
import type { AuditEntry } from "../store/types.ts";
import {
  REFUSAL_AUDIT_ROWS_PER_WINDOW,
  REFUSAL_AUDIT_WINDOW_MS,
} from "./access_token_constants.ts";

/** The audit action of a refused HTTP request (filter `memory_review {view:"audit"}` on it). */
export const ACCESS_REFUSED_ACTION = "http_access_refused";

/** Why a request was refused. */
export type AccessRefusalKind = "unknown_token" | "workspace_not_allowed" | "identity_mismatch";

/** One refused request, as far as it can be told without the token. */
export interface AccessRefusal {
  kind: AccessRefusalKind;
  /** The peer's address. */
  peer: string;
  /** The token the request presented, when it is a known one (by label and identity). */
  token?: { name: string; client: string; agentId: string };
  /** The workspace the request asked for (canonical), when it named one. */
  workspace?: string;
  /** Identity headers the request sent (only well-formed ones; bounded by their syntax). */
  claimed?: { client?: string; agentId?: string };
}

/** Who a refusal row is filed under when no known token says who called. */
const UNKNOWN_CALLER = "unknown";

/** The sentence a refusal row carries as its reason. */
export function refusalReason(refusal: AccessRefusal): string {
  const token = refusal.token === undefined ? "" : `token "${refusal.token.name}"`;
  switch (refusal.kind) {
    case "unknown_token":
      return "unknown or missing bearer token";
    case "workspace_not_allowed":
      return `${token} may not use workspace "${refusal.workspace}"`;
    case "identity_mismatch":
      return `${token} acts as ${refusal.token?.client}/${refusal.token?.agentId}; the request claimed ${
        refusal.claimed?.client ?? refusal.token?.client
      }/${refusal.claimed?.agentId ?? refusal.token?.agentId}`;
  }
}

function windowStart(at: string): string {
  const ms = Date.parse(at);
  return new Date(ms - (ms % REFUSAL_AUDIT_WINDOW_MS)).toISOString();
}

let warnedUnwritable = false;

/**
 * Writes (or counts) one refusal in the audit trail. Never throws: a database that cannot be
 * written (read-only, busy past its timeout) loses the row with one warning on stderr, and the
 * request is refused all the same.
 */
export async function auditAccessRefusal(
  store: Store,
  refusal: AccessRefusal,
  options: { now?: string } = {},
): Promise<void> {
  const at = options.now ?? nowIso();
  const detail: Record<string, unknown> = { kind: refusal.kind, peer: refusal.peer };
  if (refusal.token) detail.token = refusal.token.name;
  if (refusal.workspace !== undefined) detail.workspace = refusal.workspace;
  if (refusal.claimed?.client !== undefined) detail.claimed_client = refusal.claimed.client;
  if (refusal.claimed?.agentId !== undefined) detail.claimed_agent_id = refusal.claimed.agentId;
  Object.assign(detail, { count: 1, first_at: at, last_at: at });
  const entry: AuditEntry = {
    at,
    action: ACCESS_REFUSED_ACTION,
    memoryId: null,
    client: refusal.token?.client ?? UNKNOWN_CALLER,
    agentId: refusal.token?.agentId ?? UNKNOWN_CALLER,
    reason: refusalReason(refusal),
    detail,
  };
  const overflow: AuditEntry = {
    at,
    action: ACCESS_REFUSED_ACTION,
    memoryId: null,
    client: UNKNOWN_CALLER,
    agentId: UNKNOWN_CALLER,
    reason: `more than ${REFUSAL_AUDIT_ROWS_PER_WINDOW} different refusals this minute`,
    detail: { kind: "overflow", count: 1, first_at: at, last_at: at },
  };
  try {
    // Not synced to disk: nobody was promised this row, and a flood must not cost an fsync each.
    await store.write(
      async () =>
        await store.recordCoalescedAudit(entry, {
          since: windowStart(at),
          maxRows: REFUSAL_AUDIT_ROWS_PER_WINDOW,
          overflow,
        }),
      { durable: false },
    );
  } catch (error) {
    if (!warnedUnwritable) {
      warnedUnwritable = true;
      logWarn(
        `refused HTTP requests cannot be audited (${
          error instanceof Error ? error.message : error
        }); they are still refused`,
      );
    }
  }
}
