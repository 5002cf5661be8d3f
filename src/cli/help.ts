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
  mema doctor [--json] [--deep] [--db PATH] [--config PATH]
      Check config, identity, database and capabilities. Exit 0 healthy,
      1 warnings, 2 critical problems.
  mema setup [--model ID] [--install] [--allow-unverified] [--config PATH]
      Check the environment and write the config file, without network.
      --model static-wink-100d builds the offline English model locally;
      --install downloads a model (default multilingual-e5-small).
  mema version
  mema help

Environment:
  MEMA_CONFIG     config file (default ~/.config/mema/config.json)
  MEMA_DB_PATH    database file (default ~/.local/share/mema/mema.sqlite3)
  MEMA_CLIENT     client name, e.g. cursor
  MEMA_AGENT_ID   agent id, e.g. cursor-main
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
