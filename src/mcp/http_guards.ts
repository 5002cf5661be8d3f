/**
 * The checks every HTTP request passes before it reaches the MCP server
 * (docs/SPEC.md §10): loopback peers and hosts, DNS-rebinding protection on `Host`
 * and `Origin`, the bearer token, the identity headers and the body limit.
 * Each check returns a verdict instead of throwing, so the transport turns a
 * refusal into exactly one HTTP status.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readCallerHeaders } from "./http_guards.ts";
 *
 * const headers = new Headers({ "X-Mema-Client": "cursor", "X-Mema-Agent-Id": "cursor-main" });
 * assert.deepEqual(readCallerHeaders(headers), {
 *   ok: true,
 *   caller: { client: "cursor", agentId: "cursor-main" },
 * });
 * ```
 * @module
 */
import { IDENTITY_PATTERN } from "../config/mod.ts";
import type { CallerIdentity } from "../core/context.ts";
import { HTTP_AGENT_ID_MAX_CHARS, HTTP_CLIENT_MAX_CHARS, HTTP_MCP_PATH } from "./http_constants.ts";
import { canonicalWorkspace, WORKSPACE_MAX_CHARS } from "../core/workspace_names.ts";
import {
  checkHostHeader as checkHost,
  PASS,
  type Refusal,
  refuse,
  sameSecret,
  type Verdict,
} from "../http/guards.ts";

export {
  type BodyReadOptions,
  type BodyVerdict,
  checkOriginHeader,
  isLoopbackHost,
  readBodyWithin,
  type Refusal,
  type Verdict,
} from "../http/guards.ts";

/**
 * DNS-rebinding protection for the MCP endpoint: the `Host` header must name a loopback host and
 * the port the server listens on (421 otherwise, naming the endpoint's URL).
 */
export function checkHostHeader(host: string | null, port: number): Verdict {
  return checkHost(host, port, { path: HTTP_MCP_PATH });
}

/** The identity a request acts under, or why it has none. */
export type CallerVerdict = { ok: true; caller: CallerIdentity } | Refusal;

/** One identity header, exactly once, in the identity alphabet and within `max`; else a 400. */
export function readIdentityHeader(headers: Headers, name: string, max: number): string | Refusal {
  const value = headers.get(name);
  if (value === null || value === "") return refuse(400, `the ${name} header is required`);
  // The Fetch Headers API joins repeated headers with ", "; no valid name holds a comma.
  if (value.includes(",")) return refuse(400, `the ${name} header must be sent exactly once`);
  if (value.length > max || !IDENTITY_PATTERN.test(value)) {
    return refuse(
      400,
      `the ${name} header must be 1-${max} characters of letters, digits and . _ : @ -`,
    );
  }
  return value;
}

/**
 * Reads the caller's identity from `X-Mema-Client` and `X-Mema-Agent-Id`
 * (docs/SPEC.md §10): each exactly once, in the identity alphabet, within its length
 * bound. Anything else fails closed with 400; identity is never guessed.
 */
export function readCallerHeaders(headers: Headers): CallerVerdict {
  const client = readIdentityHeader(headers, "X-Mema-Client", HTTP_CLIENT_MAX_CHARS);
  if (typeof client !== "string") return client;
  const agentId = readIdentityHeader(headers, "X-Mema-Agent-Id", HTTP_AGENT_ID_MAX_CHARS);
  if (typeof agentId !== "string") return agentId;
  if (headers.get("X-Mema-Workspace") === null) return { ok: true, caller: { client, agentId } };
  // Optional, but when sent it follows the identity headers' rules, then is canonicalized.
  const workspace = readIdentityHeader(headers, "X-Mema-Workspace", WORKSPACE_MAX_CHARS);
  if (typeof workspace !== "string") return workspace;
  return { ok: true, caller: { client, agentId, workspace: canonicalWorkspace(workspace) } };
}

/** With a token configured, every request must carry `Authorization: Bearer <token>`. */
export function checkBearerToken(authorization: string | null, token: string | undefined): Verdict {
  if (token === undefined) return PASS;
  const match = authorization === null ? null : /^Bearer ([^\s,]+)$/i.exec(authorization);
  if (!match || !sameSecret(match[1], token)) {
    return refuse(401, "a valid Authorization: Bearer <token> header is required");
  }
  return PASS;
}
