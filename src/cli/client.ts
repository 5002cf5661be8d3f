/**
 * `mema client claude-code|cursor|claude-desktop|codex [--http]`: prints the exact MCP entry
 * (or command) for one client, identity filled in, running the installed `mema` by its full
 * path. stdout carries only what to paste; where it goes and any caveat go to stderr.
 * @module
 */
import { loadConfig } from "../config/mod.ts";
import { homeDir } from "../platform/env.ts";
import {
  executablePath,
  findExecutable,
  isCompiledBinary,
  runtimeVersion,
} from "../platform/processes.ts";
import { type CommandSpec, parseCommandArgs, UsageError } from "./command.ts";

/** The clients `mema client` knows, and the agent id each gets unless `--agent-id` says. */
export const CLIENT_AGENT_IDS = {
  "claude-code": "claude-code-main",
  cursor: "cursor-main",
  "claude-desktop": "claude-desktop",
  codex: "codex-main",
} as const;

/** A client `mema client` writes entries for. */
export type ClientName = keyof typeof CLIENT_AGENT_IDS;

/** The bridge Claude Desktop uses to reach an HTTP server (it only starts stdio servers). */
const MCP_REMOTE = "mcp-remote@0.15.1";

/** How a client starts `mema serve`. */
export interface Launcher {
  command: string;
  args: string[];
  /** Why this is not the installed `mema` (printed to stderr), when it is not. */
  note?: string;
}

/** What one entry needs. */
export interface EntryRequest {
  client: ClientName;
  agentId: string;
  launcher: Launcher;
  /** Extra environment for a stdio entry (e.g. MEMA_DB_PATH). */
  env: Record<string, string>;
  /** Set for `--http`: the server's URL and whether it wants a bearer token. */
  http?: { url: string; token: boolean };
}

/** The entry to paste, and where it goes. */
export interface ClientEntry {
  text: string;
  where: string;
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

function tomlString(text: string): string {
  return JSON.stringify(text);
}

function tomlInline(record: Record<string, string>): string {
  return `{ ${
    Object.entries(record).map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`).join(", ")
  } }`;
}

/**
 * Finds how clients should start mema: the compiled binary itself, else an installed `mema`
 * (PATH, then `~/.local/bin`, where `task install` puts it), else this checkout through npx.
 */
export function findLauncher(): Launcher {
  if (isCompiledBinary()) return { command: executablePath(), args: ["serve"] };
  const installed = findExecutable("mema", [`${homeDir()}/.local/bin`]);
  if (installed) return { command: installed, args: ["serve"] };
  const main = decodeURIComponent(new URL("../../main.ts", import.meta.url).pathname);
  return {
    command: "npx",
    args: ["-y", `deno@${runtimeVersion()}`, "run", "--allow-all", main, "serve"],
    note: "mema is not installed, so this entry runs this checkout through npx (Node must be " +
      "on the client's PATH). `npx -y deno@" + runtimeVersion() +
      " task install` installs `mema`; run `mema client` again afterwards for a shorter entry.",
  };
}

function identityHeaders(request: EntryRequest): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Mema-Client": request.client,
    "X-Mema-Agent-Id": request.agentId,
  };
  if (request.http?.token) headers.Authorization = "Bearer <your MEMA_HTTP_TOKEN>";
  return headers;
}

function jsonServers(entry: unknown): string {
  return JSON.stringify({ mcpServers: { mema: entry } }, null, 2);
}

/** Renders the entry for one client. Pure: the launcher and identity are given. */
export function renderClientEntry(request: EntryRequest): ClientEntry {
  const env = {
    MEMA_CLIENT: request.client,
    MEMA_AGENT_ID: request.agentId,
    ...request.env,
  };
  const { command, args } = request.launcher;
  const http = request.http;
  switch (request.client) {
    case "claude-code": {
      if (http) {
        const words = ["claude", "mcp", "add", "--transport", "http", "mema", http.url];
        const headers = identityHeaders(request);
        if (http.token) headers.Authorization = "Bearer $MEMA_HTTP_TOKEN";
        const flags = Object.entries(headers).map(([name, value]) =>
          `--header "${name}: ${value}"`
        );
        return {
          text: [words.join(" "), ...flags].join(" \\\n  "),
          where: "run it in a shell (add `--scope project` for this project's .mcp.json)",
        };
      }
      const envFlags = Object.entries(env).map(([k, v]) => `--env ${shellWord(`${k}=${v}`)}`);
      return {
        text: `claude mcp add mema ${envFlags.join(" ")} \\\n  -- ${
          [command, ...args].map(shellWord).join(" ")
        }`,
        where: "run it in a shell (add `--scope project` for this project's .mcp.json)",
      };
    }
    case "cursor":
      return {
        text: jsonServers(
          http ? { url: http.url, headers: identityHeaders(request) } : { command, args, env },
        ),
        where:
          'merge it into ~/.cursor/mcp.json (or .cursor/mcp.json in a project) under "mcpServers"',
      };
    case "claude-desktop": {
      const where = 'merge it into claude_desktop_config.json under "mcpServers" (macOS: ' +
        "~/Library/Application Support/Claude/; Linux: ~/.config/Claude/) and restart Claude Desktop";
      if (!http) return { text: jsonServers({ command, args, env }), where };
      // Claude Desktop starts only stdio servers: mcp-remote bridges to HTTP.
      const bridge = ["-y", MCP_REMOTE, http.url, "--transport", "http-only"];
      for (const [name, value] of Object.entries(identityHeaders(request))) {
        bridge.push("--header", `${name}:${value}`);
      }
      return { text: jsonServers({ command: "npx", args: bridge }), where };
    }
    case "codex": {
      const lines = ["[mcp_servers.mema]"];
      if (http) {
        lines.push(`url = ${tomlString(http.url)}`);
        lines.push(
          `http_headers = ${
            tomlInline({ "X-Mema-Client": request.client, "X-Mema-Agent-Id": request.agentId })
          }`,
        );
        if (http.token) lines.push(`bearer_token_env_var = "MEMA_HTTP_TOKEN"`);
      } else {
        lines.push(`command = ${tomlString(command)}`);
        lines.push(`args = [${args.map(tomlString).join(", ")}]`);
        lines.push(`env = ${tomlInline(env)}`);
      }
      return { text: lines.join("\n"), where: "add it to ~/.codex/config.toml" };
    }
  }
}

const CLIENTS = Object.keys(CLIENT_AGENT_IDS) as ClientName[];

/** `mema client`: its help and flags. */
export const clientSpec: CommandSpec = {
  name: "client",
  summary: "print the MCP config entry (or command) for one client",
  usage: ["client claude-code|cursor|claude-desktop|codex [--http] [--agent-id ID] [--db PATH]"],
  description: [
    "Prints exactly what to paste (stdout) and where it goes (stderr), with MEMA_CLIENT and",
    "MEMA_AGENT_ID filled in and the full path of the installed `mema` (found on PATH or in",
    "~/.local/bin). Without an installed `mema` the entry runs this checkout through npx, and",
    "the command says so. --http points the client at a shared `mema serve --http` instead",
    "(host and port from --host/--port or the config file).",
  ].join("\n"),
  positionals: [{ name: "CLIENT", help: "the MCP client", choices: CLIENTS }],
  flags: {
    http: { type: "boolean", help: "an entry for a shared HTTP server" },
    "agent-id": { type: "string", value: "ID", help: "agent id (default CLIENT-main)" },
    db: { type: "string", value: "PATH", help: "a database other than the default (stdio)" },
    host: { type: "string", value: "HOST", help: "with --http: the server's host" },
    port: { type: "string", value: "PORT", help: "with --http: the server's port" },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
  },
  exitCodes: { 0: "printed", 1: "the config file is invalid", 2: "bad command line" },
  run: clientCommand,
};

/** Runs `mema client`. */
export function clientCommand(args: string[]): number {
  const flags = parseCommandArgs(clientSpec, args);
  const [client] = flags.positionals as ClientName[];
  if (client === undefined) {
    throw new UsageError(`name the client: one of ${CLIENTS.join(", ")}`, "client");
  }
  const agentId = flags.string("agent-id") ?? CLIENT_AGENT_IDS[client];
  if (!/^[A-Za-z0-9._:@-]{1,128}$/.test(agentId)) {
    throw new UsageError(
      "--agent-id takes letters, digits and . _ : @ - (at most 128 characters)",
      "client",
    );
  }
  const useHttp = flags.boolean("http");
  if (!useHttp && (flags.string("host") !== undefined || flags.string("port") !== undefined)) {
    throw new UsageError("--host and --port go with --http", "client");
  }
  if (useHttp && flags.string("db") !== undefined) {
    throw new UsageError("--db goes with stdio entries; the HTTP server has its own", "client");
  }
  const config = loadConfig({
    flags: {
      configPath: flags.string("config"),
      httpHost: flags.string("host"),
      httpPort: flags.string("port"),
    },
  });
  const launcher = findLauncher();
  const db = flags.string("db");
  const host = config.http.host.includes(":") ? `[${config.http.host}]` : config.http.host;
  const entry = renderClientEntry({
    client,
    agentId,
    launcher,
    env: db ? { MEMA_DB_PATH: db } : {},
    http: useHttp
      ? { url: `http://${host}:${config.http.port}/mcp`, token: config.http.token !== undefined }
      : undefined,
  });
  console.log(entry.text);
  console.error(`mema client: ${entry.where}`);
  if (!useHttp && launcher.note) console.error(`mema client: note: ${launcher.note}`);
  if (useHttp) {
    console.error(
      `mema client: the server must be running: mema serve --http --port ${config.http.port}`,
    );
    if (config.http.token !== undefined && client !== "claude-code" && client !== "codex") {
      console.error("mema client: replace <your MEMA_HTTP_TOKEN> with the server's token");
    }
  }
  return 0;
}
