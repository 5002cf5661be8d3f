/**
 * `mema help [COMMAND]` and `mema version`. The overview lists every command from its
 * `CommandSpec`; `mema help COMMAND` prints that command's own page.
 * @module
 */
import { VERSION } from "../version.ts";
import {
  closestCommand,
  type CommandSpec,
  parseCommandArgs,
  renderCommandHelp,
  UsageError,
} from "./command.ts";

const ENVIRONMENT = `Environment:
  MEMA_CONFIG     config file (default ~/.config/mema/config.json)
  MEMA_DB_PATH    database file (default ~/.local/share/mema/mema.sqlite3)
  MEMA_CLIENT     client name, e.g. cursor
  MEMA_AGENT_ID   agent id, e.g. cursor-main
  MEMA_TRANSPORT  stdio (default) or http
  MEMA_HTTP_TOKEN bearer token every HTTP request must carry (>= 32 characters)
  MEMA_EMBEDDING_MODEL  embedding model id ("none" turns it off)
  MEMA_MODELS_DIR       where models live (default ~/.cache/mema/models)
  (MEMORY_ARBITER_* names of the same meaning are accepted too)`;

/** The overview `mema help` prints: every command's usage lines and summary. */
export function renderOverview(commands: readonly CommandSpec[]): string {
  const lines = [`mema ${VERSION} — a trusted local fact layer for AI agents (MCP)`, "", "Usage:"];
  for (const spec of commands) {
    if (spec.hidden) continue;
    for (const usage of spec.usage) lines.push(`  mema ${usage}`);
    lines.push(`      ${spec.summary}`);
  }
  lines.push("", "`mema help COMMAND` (or `mema COMMAND --help`) explains one command.", "");
  lines.push(ENVIRONMENT);
  return lines.join("\n");
}

/** `mema help`, over the command list it is given (src/cli/mod.ts). */
export function helpSpec(commands: () => readonly CommandSpec[]): CommandSpec {
  const spec: CommandSpec = {
    name: "help",
    summary: "list the commands, or explain one",
    usage: ["help [COMMAND]"],
    flags: {},
    positionals: [{ name: "COMMAND", help: "the command to explain" }],
    run(args) {
      const [name] = parseCommandArgs(spec, args).positionals;
      if (name === undefined) {
        console.log(renderOverview(commands()));
        return 0;
      }
      const found = commands().find((command) => command.name === name);
      if (!found) {
        const near = closestCommand(name, commands());
        throw new UsageError(
          `no command "${name}"${near ? ` (did you mean ${near}?)` : ""}`,
          "help",
        );
      }
      console.log(renderCommandHelp(found));
      return 0;
    },
  };
  return spec;
}

/** `mema version`. */
export const versionSpec: CommandSpec = {
  name: "version",
  summary: "print the version",
  usage: ["version"],
  flags: {},
  run(args) {
    parseCommandArgs(versionSpec, args);
    console.log(`mema ${VERSION}`);
    return 0;
  },
};
