/**
 * `mema token add|list|revoke`: the per-caller HTTP tokens of `mema serve --http`. One table
 * entry (help, flags); each action lives in its own file (token_add.ts, token_list.ts,
 * token_revoke.ts). The file is `http_tokens.json` beside the database unless
 * `http_tokens_file` / `MEMA_HTTP_TOKENS_FILE` says otherwise; a running server re-reads it.
 * @module
 */
import { loadConfig } from "../config/mod.ts";
import { type CommandSpec, parseCommandArgs, type ParsedArgs, UsageError } from "./command.ts";
import { addToken } from "./token_add.ts";
import { listTokens } from "./token_list.ts";
import { revokeToken } from "./token_revoke.ts";

const ACTIONS = ["add", "list", "revoke"] as const;

/** Flags each action accepts (besides --db and --config, which all take). */
const ACTION_FLAGS: Record<(typeof ACTIONS)[number], readonly string[]> = {
  add: ["client", "agent-id", "workspace", "any-workspace", "name"],
  list: ["json"],
  revoke: [],
};

/** `mema token`: its help and flags. */
export const tokenSpec: CommandSpec = {
  name: "token",
  summary: "manage the HTTP server's per-caller tokens (add, list, revoke)",
  usage: [
    "token add --client NAME --agent-id ID --workspace NAME [--workspace NAME ...] [--name LABEL]",
    "token add --client NAME --agent-id ID --any-workspace [--name LABEL]",
    "token list [--json]",
    "token revoke LABEL",
  ],
  description: [
    "A token binds an HTTP caller to one identity and the workspaces it may use. While the",
    "token file exists, `mema serve --http` answers only requests with Authorization: Bearer",
    "<token>, acts as the token's client/agent id, and keeps a token limited to workspaces",
    "inside them (strict isolation for that caller). `add` prints the new token once, on",
    "stdout; only its SHA-256 is stored. A running server re-reads the file on its next",
    "request: an added token works at once, a revoked one stops working at once.",
  ].join("\n"),
  flags: {
    client: { type: "string", value: "NAME", help: "the client the token acts as (add)" },
    "agent-id": { type: "string", value: "ID", help: "the agent id the token acts as (add)" },
    workspace: {
      type: "string",
      value: "NAME",
      multiple: true,
      help: "a workspace the token may use; repeat for several (add)",
    },
    "any-workspace": {
      type: "boolean",
      help: "the token may use every workspace, under the server's isolation (add)",
    },
    name: { type: "string", value: "LABEL", help: "the token's label (add; default: agent id)" },
    json: { type: "boolean", help: "print the list as JSON (list)" },
    db: { type: "string", value: "PATH", help: "database file (default MEMA_DB_PATH)" },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
  },
  positionals: [
    { name: "ACTION", help: "what to do", choices: ACTIONS },
    { name: "LABEL", help: "the token to revoke (revoke)" },
  ],
  exitCodes: {
    0: "done",
    1: "failed (no such token, a label already taken, an unreadable token file)",
    2: "bad command line",
  },
  run: tokenCommand,
};

/** Refuses flags that belong to another action, so a typo never silently does nothing. */
function checkActionFlags(action: (typeof ACTIONS)[number], flags: ParsedArgs): void {
  for (const name of Object.keys(tokenSpec.flags)) {
    if (name === "db" || name === "config" || ACTION_FLAGS[action].includes(name)) continue;
    if (flags.boolean(name) || flags.strings(name).length > 0) {
      throw new UsageError(`--${name} does not go with "token ${action}"`, "token");
    }
  }
}

/** Runs `mema token`; returns the exit code. */
export function tokenCommand(args: string[]): number | Promise<number> {
  const flags = parseCommandArgs(tokenSpec, args);
  const [action, label] = flags.positionals as [(typeof ACTIONS)[number] | undefined, string?];
  if (action === undefined) throw new UsageError("name the action: add, list or revoke", "token");
  checkActionFlags(action, flags);
  if (action !== "revoke" && label !== undefined) {
    throw new UsageError(`unexpected argument "${label}"`, "token");
  }
  const config = loadConfig({
    flags: { dbPath: flags.string("db"), configPath: flags.string("config") },
  });
  const path = config.http.tokensFile;
  switch (action) {
    case "add":
      return addToken(path, {
        client: flags.string("client"),
        agentId: flags.string("agent-id"),
        workspaces: flags.strings("workspace"),
        anyWorkspace: flags.boolean("any-workspace"),
        name: flags.string("name"),
      });
    case "list":
      return listTokens(path, { json: flags.boolean("json") });
    case "revoke":
      if (label === undefined) throw new UsageError("name the token to revoke", "token");
      return revokeToken(path, label);
  }
}
