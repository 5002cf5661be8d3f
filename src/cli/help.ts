/**
 * `mema help` and `mema version`.
 * @module
 */
import { VERSION } from "../version.ts";

/** The usage text. */
export const USAGE = `mema ${VERSION} — a trusted local fact layer for AI agents (MCP)

Usage:
  mema serve [--client NAME] [--agent-id ID] [--db PATH] [--config PATH]
      Run the MCP server over stdio. Identity also comes from MEMA_CLIENT and
      MEMA_AGENT_ID (or "client"/"agent_id" in the config file).
  mema serve --http [--host 127.0.0.1] [--port 8000] [--allow-remote] [--db PATH]
      Serve streamable HTTP at http://HOST:PORT/mcp, one process for many
      clients; each request names itself in X-Mema-Client / X-Mema-Agent-Id.
      Loopback only, unless --allow-remote and MEMA_HTTP_TOKEN are both given.
  mema doctor [--json] [--deep] [--db PATH] [--config PATH] [--client NAME] [--agent-id ID]
      Check config, identity, database and capabilities. Exit 0 healthy,
      1 warnings, 2 critical problems. --client/--agent-id check one MCP
      client's identity as serve would take it.
  mema setup [--model ID] [--install] [--allow-unverified] [--config PATH]
      Check the environment and write the config file, without network.
      --model static-wink-100d builds the offline English model locally;
      --install downloads a model (default multilingual-e5-small).
  mema scan [--db PATH] [--config PATH] [--max-memories N] [--quiet]
      Run the scheduled conflict scan until its round completes (for cron).
  mema export DIR [--format md|jsonl] [--workspace W] [--include-history] [--db PATH]
      Write the facts in force to DIR: one Markdown file per memory (with
      frontmatter) or one JSONL file (--include-history adds every version).
  mema version
  mema help

Environment:
  MEMA_CONFIG     config file (default ~/.config/mema/config.json)
  MEMA_DB_PATH    database file (default ~/.local/share/mema/mema.sqlite3)
  MEMA_CLIENT     client name, e.g. cursor
  MEMA_AGENT_ID   agent id, e.g. cursor-main
  MEMA_TRANSPORT  stdio (default) or http
  MEMA_HTTP_TOKEN bearer token every HTTP request must carry (>= 32 characters)
  MEMA_EMBEDDING_MODEL  embedding model id ("none" turns it off)
  MEMA_MODELS_DIR       where models live (default ~/.cache/mema/models)
  (MEMORY_ARBITER_* names of the same meaning are accepted too)
`;

/** Prints the usage text. */
export function helpCommand(): number {
  console.log(USAGE);
  return 0;
}

/** Prints the version. */
export function versionCommand(): number {
  console.log(`mema ${VERSION}`);
  return 0;
}
