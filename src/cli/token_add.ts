/**
 * `mema token add`: makes a token bound to one identity and its workspaces, stores its SHA-256
 * and prints the token once (stdout carries only the token, so it can be piped; what it is for
 * goes to stderr).
 * @module
 */
import { IDENTITY_PATTERN } from "../config/mod.ts";
import { MemaError } from "../errors/mod.ts";
import { HTTP_TOKEN_NAME_MAX_CHARS } from "../http/access_token_constants.ts";
import { updateTokenFile } from "../http/access_token_file.ts";
import {
  ANY_WORKSPACE,
  type HttpTokenRecord,
  newTokenSecret,
  sha256Hex,
} from "../http/access_tokens.ts";
import { nowIso } from "../platform/clock.ts";
import { canonicalWorkspace, WORKSPACE_MAX_CHARS } from "../core/workspace_names.ts";
import { HTTP_AGENT_ID_MAX_CHARS, HTTP_CLIENT_MAX_CHARS } from "../mcp/http_constants.ts";
import { UsageError } from "./command.ts";

/** What `token add` was asked for, flags as given. */
export interface TokenRequest {
  client?: string;
  agentId?: string;
  workspaces: string[];
  anyWorkspace: boolean;
  name?: string;
}

function checkName(flag: string, value: string | undefined, max: number): string {
  if (value === undefined) throw new UsageError(`--${flag} is required`, "token");
  if (value.length === 0 || value.length > max || !IDENTITY_PATTERN.test(value)) {
    throw new UsageError(
      `--${flag} must be 1-${max} characters of letters, digits and . _ : @ - (got "${value}")`,
      "token",
    );
  }
  return value;
}

/** The workspaces as given, checked, without repeats (by canonical name). */
function checkWorkspaces(request: TokenRequest): string[] | typeof ANY_WORKSPACE {
  if (request.anyWorkspace) {
    if (request.workspaces.length > 0) {
      throw new UsageError("--workspace and --any-workspace exclude each other", "token");
    }
    return ANY_WORKSPACE;
  }
  if (request.workspaces.length === 0) {
    throw new UsageError(
      "name the workspaces the token may use (--workspace NAME, repeatable), or pass --any-workspace",
      "token",
    );
  }
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const workspace of request.workspaces) {
    checkName("workspace", workspace, WORKSPACE_MAX_CHARS);
    const canonical = canonicalWorkspace(workspace);
    if (canonical === "") {
      throw new UsageError(`--workspace "${workspace}" names no workspace`, "token");
    }
    if (!seen.has(canonical)) kept.push(workspace);
    seen.add(canonical);
  }
  return kept;
}

/** Runs `mema token add` against the token file at `path`; returns the exit code. */
export async function addToken(path: string, request: TokenRequest): Promise<number> {
  const client = checkName("client", request.client, HTTP_CLIENT_MAX_CHARS);
  const agentId = checkName("agent-id", request.agentId, HTTP_AGENT_ID_MAX_CHARS);
  const workspaces = checkWorkspaces(request);
  const name = request.name === undefined
    ? undefined
    : checkName("name", request.name, HTTP_TOKEN_NAME_MAX_CHARS);
  const secret = newTokenSecret();
  const sha256 = await sha256Hex(secret);
  const record = updateTokenFile(path, (file) => {
    const taken = new Set(file.tokens.map((token) => token.name));
    if (name !== undefined && taken.has(name)) {
      throw new MemaError("invalid_input", `a token named "${name}" already exists`, {
        field: "name",
        hint: `choose another --name, or revoke it first: mema token revoke ${name}`,
      });
    }
    // The default label is the agent id, numbered when that one is taken.
    let label = name ?? agentId;
    for (let n = 2; taken.has(label); n++) label = `${agentId}-${n}`;
    const added: HttpTokenRecord = {
      name: label,
      sha256,
      client,
      agent_id: agentId,
      workspaces,
      created_at: nowIso(),
    };
    file.tokens.push(added);
    return added;
  });
  console.log(secret);
  console.error(
    `mema: token "${record.name}" acts as ${client}/${agentId} in ${
      workspaces === ANY_WORKSPACE ? "any workspace" : `workspace(s) ${workspaces.join(", ")}`
    }; saved (hashed) in ${path}. This is the only time it is shown.`,
  );
  console.error(
    "mema: the client sends it as the header `Authorization: Bearer <token>`; a running server accepts it from its next request",
  );
  return 0;
}
