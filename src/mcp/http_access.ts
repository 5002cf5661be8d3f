/**
 * Who an HTTP request is, when tokens say so. With a token file in use (`mema token`), every
 * request needs `Authorization: Bearer <token>`; the token names the caller (client, agent id)
 * and the workspaces it may use, and the identity headers can only agree with it. Without one,
 * identity comes from the headers as before, behind the optional shared `MEMA_HTTP_TOKEN`.
 *
 * The file is re-read when it changes (checked on every request: one `stat`), so tokens are
 * added and revoked without a restart. Once the server has seen a token file, a missing one
 * means "no tokens" (every request refused), never "back to trusting headers": deleting the
 * file while the server runs must not open it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TokenGate } from "./http_access.ts";
 *
 * const gate = new TokenGate({ tokensFile: "/nonexistent/http_tokens.json" });
 * // No token file and no shared token: identity comes from the headers, as before tokens.
 * const decision = await gate.check(null);
 * assert.ok(decision.ok && decision.kind === "headers");
 * ```
 * @module
 */
import { isMemaError } from "../errors/mod.ts";
import type { AccessRefusal } from "../http/access_refusals.ts";
import { sameSecret } from "../http/guards.ts";
import { readTokenFile } from "../http/access_token_file.ts";
import {
  emptyTokenFile,
  findToken,
  type HttpTokenFile,
  type HttpTokenRecord,
  tokenWorkspaces,
} from "../http/access_tokens.ts";
import type { CallerIdentity } from "../core/context.ts";
import { fileSignature } from "../platform/file_info.ts";
import { logInfo, logWarn } from "../platform/log.ts";
import { canonicalWorkspace, WORKSPACE_MAX_CHARS } from "../core/workspace_names.ts";
import { HTTP_AGENT_ID_MAX_CHARS, HTTP_CLIENT_MAX_CHARS } from "./http_constants.ts";
import { readIdentityHeader } from "./http_guards.ts";
import type { Refusal } from "../http/guards.ts";

/** A refusal, and what the audit trail should say about it (when it is one to audit). */
export type AccessVerdict<T> = T | (Refusal & { audit?: Omit<AccessRefusal, "peer"> });

/** What a request's bearer token decides. */
export type BearerDecision =
  | { kind: "headers"; ok: true }
  | { kind: "token"; ok: true; token: HttpTokenRecord };

/** The token file as last read. */
type TokenState =
  | { state: "off" }
  | { state: "on"; file: HttpTokenFile }
  | { state: "broken"; reason: string };

/** Reads the bearer out of an `Authorization` header; undefined when there is none. */
function bearerOf(authorization: string | null): string | undefined {
  const match = authorization === null ? null : /^Bearer ([^\s,]+)$/i.exec(authorization);
  return match?.[1];
}

const UNKNOWN_TOKEN = "a valid Authorization: Bearer <token> header is required";

/** The bearer-token check of every request: the token file and the shared token. */
export class TokenGate {
  readonly #path: string;
  readonly #shared: string | undefined;
  #signature: string | undefined;
  #state: TokenState = { state: "off" };
  /** Set once a token file has been seen: from then on, no file means no tokens. */
  #inUse = false;

  constructor(options: { tokensFile: string; sharedToken?: string }) {
    this.#path = options.tokensFile;
    this.#shared = options.sharedToken;
    this.#refresh();
  }

  /** True while a token file is in use (each request needs one of its tokens). */
  get inUse(): boolean {
    return this.#inUse;
  }

  /** Re-reads the file when its signature (inode, size, mtime) changed since the last read. */
  #refresh(): TokenState {
    let signature: string | undefined;
    try {
      signature = fileSignature(this.#path);
    } catch (error) {
      return this.#state = { state: "broken", reason: String(error) };
    }
    if (signature === this.#signature && this.#state.state !== "broken") return this.#state;
    this.#signature = signature;
    if (signature === undefined) {
      this.#state = this.#inUse ? { state: "on", file: emptyTokenFile() } : { state: "off" };
      if (this.#inUse) logWarn(`the token file ${this.#path} is gone: every request is refused`);
      return this.#state;
    }
    try {
      const file = readTokenFile(this.#path);
      if (file === undefined) return this.#refreshAfterRace();
      const first = !this.#inUse;
      this.#inUse = true;
      this.#state = { state: "on", file };
      logInfo(
        `${
          first ? "using" : "re-read"
        } the token file ${this.#path}: ${file.tokens.length} token(s)`,
      );
    } catch (error) {
      const reason = isMemaError(error) ? error.reason : String(error);
      if (this.#state.state !== "broken") {
        logWarn(`${reason}; every request is refused until it is fixed`);
      }
      this.#inUse = true;
      this.#state = { state: "broken", reason };
    }
    return this.#state;
  }

  /** The file vanished between stat and read: read the signature again next time. */
  #refreshAfterRace(): TokenState {
    this.#signature = "";
    return this.#refresh();
  }

  /**
   * Decides a request by its `Authorization` header: identity from the headers (no token
   * file, or the shared token), identity from a file token, or a refusal (401 for a missing or
   * unknown token, audited; 503 while the token file cannot be read, so no token is trusted).
   */
  async check(authorization: string | null): Promise<AccessVerdict<BearerDecision>> {
    const bearer = bearerOf(authorization);
    const tokens = this.#refresh();
    if (tokens.state === "broken") {
      return {
        ok: false,
        status: 503,
        message: "the server's token file cannot be read; ask its operator to fix it",
      };
    }
    // The shared token keeps meaning what it always did: identity from the headers.
    if (bearer !== undefined && this.#shared !== undefined && sameSecret(bearer, this.#shared)) {
      return { kind: "headers", ok: true };
    }
    if (tokens.state === "on") {
      const token = bearer === undefined ? undefined : await findToken(tokens.file, bearer);
      if (token !== undefined) return { kind: "token", ok: true, token };
    } else if (this.#shared === undefined) {
      return { kind: "headers", ok: true };
    }
    return { ok: false, status: 401, message: UNKNOWN_TOKEN, audit: { kind: "unknown_token" } };
  }
}

/** The caller a token grants, and whether it is limited to its workspaces. */
export interface TokenCaller {
  ok: true;
  caller: CallerIdentity;
  /** True when the token names workspaces: the request then runs under strict isolation. */
  limited: boolean;
}

/**
 * The caller of a request that presented `token`: the token's identity, and the workspace
 * from `X-Mema-Workspace` when the token allows it. Identity headers may be left out; when
 * sent they must be well-formed (400) and name the token's identity (403, audited). A
 * workspace the token does not list is 403 (audited). Without the header, a token with one
 * workspace uses it, one with several is 400 (which one is not guessed), one for any
 * workspace falls back to `serverWorkspace`.
 */
export function tokenCaller(
  headers: Headers,
  token: HttpTokenRecord,
  serverWorkspace: string | undefined,
): AccessVerdict<TokenCaller> {
  const named = { name: token.name, client: token.client, agentId: token.agent_id };
  const claimed: { client?: string; agentId?: string } = {};
  if (headers.get("X-Mema-Client") !== null) {
    const client = readIdentityHeader(headers, "X-Mema-Client", HTTP_CLIENT_MAX_CHARS);
    if (typeof client !== "string") return client;
    claimed.client = client;
  }
  if (headers.get("X-Mema-Agent-Id") !== null) {
    const agentId = readIdentityHeader(headers, "X-Mema-Agent-Id", HTTP_AGENT_ID_MAX_CHARS);
    if (typeof agentId !== "string") return agentId;
    claimed.agentId = agentId;
  }
  if (
    (claimed.client !== undefined && claimed.client !== token.client) ||
    (claimed.agentId !== undefined && claimed.agentId !== token.agent_id)
  ) {
    return {
      ok: false,
      status: 403,
      message:
        `this token acts as ${token.client}/${token.agent_id}; leave X-Mema-Client and X-Mema-Agent-Id out or send those values`,
      audit: { kind: "identity_mismatch", token: named, claimed },
    };
  }
  const allowed = tokenWorkspaces(token);
  let workspace: string | undefined;
  if (headers.get("X-Mema-Workspace") !== null) {
    const header = readIdentityHeader(headers, "X-Mema-Workspace", WORKSPACE_MAX_CHARS);
    if (typeof header !== "string") return header;
    workspace = canonicalWorkspace(header);
    if (allowed !== undefined && !allowed.includes(workspace)) {
      return {
        ok: false,
        status: 403,
        message: `this token may not use workspace "${workspace}" (it may use: ${
          allowed.join(", ")
        })`,
        audit: { kind: "workspace_not_allowed", token: named, workspace },
      };
    }
  } else if (allowed === undefined) {
    workspace = serverWorkspace;
  } else if (allowed.length === 1) {
    workspace = allowed[0];
  } else {
    return {
      ok: false,
      status: 400,
      message: `the X-Mema-Workspace header is required: this token may use several workspaces (${
        allowed.join(", ")
      })`,
    };
  }
  const caller: CallerIdentity = { client: token.client, agentId: token.agent_id };
  if (workspace !== undefined) caller.workspace = workspace;
  return { ok: true, caller, limited: allowed !== undefined };
}
