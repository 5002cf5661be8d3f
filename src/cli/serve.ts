/**
 * `mema serve`: the MCP server over stdio. Identity comes from flags, the
 * environment or the config file, and the server refuses to start without it.
 * `--http` (or `transport: "http"`) serves streamable HTTP instead, where each
 * request names its own identity in headers, or carries a token that does
 * (src/mcp/http.ts, src/mcp/http_access.ts).
 * @module
 */
import process from "node:process";
import { type App, openApp, shutDown } from "../app/mod.ts";
import { listenForStop } from "../app/stop_signal.ts";
import { loadConfig, requireIdentity, requireStrictWorkspace } from "../config/mod.ts";
import { scanLogPath } from "../conflicts/scan_log.ts";
import type { CallerIdentity } from "../core/context.ts";
import { HTTP_SERVER_CALLER, resolveHttpOptions, serveHttpUntil } from "../mcp/http.ts";
import { createRuntime } from "../mcp/runtime.ts";
import { createMcpServer } from "../mcp/server.ts";
import { LineStdioTransport } from "../mcp/stdio.ts";
import { backupRefusal } from "../memory/backup.ts";
import { logInfo, logWarn } from "../platform/log.ts";
import type { Store } from "../store/mod.ts";
import { type CommandSpec, parseCommandArgs } from "./command.ts";
import { reportFailure } from "./output.ts";

/** `mema serve`: its help and flags. */
export const serveSpec: CommandSpec = {
  name: "serve",
  summary: "run the MCP server (stdio, or streamable HTTP with --http)",
  usage: [
    "serve [--client NAME] [--agent-id ID] [--workspace NAME] [--db PATH] [--config PATH]",
    "serve --http [--host 127.0.0.1] [--port 8000] [--allow-remote] [--db PATH]",
  ],
  description: [
    "Over stdio, one process serves one client; identity comes from --client/--agent-id,",
    "MEMA_CLIENT/MEMA_AGENT_ID or the config file. `mema client NAME` prints the entry.",
    "With --http, one process serves many clients at http://HOST:PORT/mcp; each request",
    "names itself in X-Mema-Client / X-Mema-Agent-Id (and X-Mema-Workspace). Loopback only, unless --allow-remote",
    "and a token (MEMA_HTTP_TOKEN, or `mema token add`) are both given. While a token file",
    "exists (`mema token`), every request needs Authorization: Bearer <token>, and the token,",
    "not the headers, says who calls and which workspaces it may use.",
  ].join("\n"),
  flags: {
    client: { type: "string", value: "NAME", help: "client name, e.g. cursor (stdio)" },
    "agent-id": { type: "string", value: "ID", help: "agent id, e.g. cursor-main (stdio)" },
    workspace: {
      type: "string",
      value: "NAME",
      help: "the caller's own workspace (default MEMA_WORKSPACE; stdio)",
    },
    db: { type: "string", value: "PATH", help: "database file (default MEMA_DB_PATH)" },
    "db-url": {
      type: "string",
      value: "URL",
      help: "a postgres:// database instead of the file (default MEMA_DB_URL)",
    },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
    http: { type: "boolean", help: "serve streamable HTTP instead of stdio" },
    host: { type: "string", value: "HOST", help: "HTTP address (default 127.0.0.1)" },
    port: { type: "string", value: "PORT", help: "HTTP port (default 8000)" },
    "allow-remote": {
      type: "boolean",
      help: "listen beyond loopback (needs MEMA_HTTP_TOKEN or `mema token add`)",
    },
  },
  exitCodes: { 0: "stopped cleanly", 1: "could not start or failed", 2: "bad command line" },
  run: serveCommand,
};

/**
 * Runs `mema serve`; resolves with the exit code when the client disconnects
 * or on SIGINT/SIGTERM, after stopping the transport, the job worker and the
 * store, each within a bound (src/app/shutdown_constants.ts).
 */
export async function serveCommand(args: string[]): Promise<number> {
  const flags = parseCommandArgs(serveSpec, args);
  const stop = listenForStop();
  let app: App | undefined;
  try {
    const config = loadConfig({
      flags: {
        client: flags.string("client"),
        agentId: flags.string("agent-id"),
        workspace: flags.string("workspace"),
        dbPath: flags.string("db"),
        dbUrl: flags.string("db-url"),
        configPath: flags.string("config"),
        transport: flags.boolean("http") ? "http" : undefined,
        httpHost: flags.string("host"),
        httpPort: flags.string("port"),
      },
    });
    const http = resolveHttpOptions(config, {
      allowRemote: flags.boolean("allow-remote"),
      hostOrPortFlag: flags.string("host") !== undefined || flags.string("port") !== undefined,
    });
    const identity = http ? HTTP_SERVER_CALLER : requireIdentity(config);
    const caller: CallerIdentity = config.workspace === undefined
      ? identity
      : { ...identity, workspace: config.workspace };
    // Over HTTP each request may name its workspace (X-Mema-Workspace) instead.
    if (!http) requireStrictWorkspace(config);
    app = await openApp(config, {
      caller,
      serving: { recountAfterCalls: true, recordUsage: true, waitForDatabase: true },
    });
    const runtime = createRuntime(app.ctx, {
      dbPath: config.dbPath,
      conflicts: {
        stages: app.stages,
        waitMs: config.noticeSyncWaitMs,
        scanLogPath: scanLogPath(config.dbPath),
      },
    });
    const readOnly = app.store.capabilities.readOnly;
    if (readOnly !== undefined) {
      // Background jobs only write; a read-only database serves reads and saves writes.
      warnReadOnly(config.dbPath, readOnly, config.backupPath);
    } else {
      await app.startBackgroundJobs(stop);
    }
    const { mode } = await runtime.capabilities();
    const served = describeServedDatabase(app.store);
    if (http) {
      await serveHttpUntil(runtime, {
        ...http,
        describe: (url) => `serving ${served} over streamable HTTP at ${url} (${mode})`,
      }, stop.requested);
      return 0;
    }
    const server = createMcpServer(runtime);
    const transport = new LineStdioTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    // stdin closing (the client went away) ends the process cleanly.
    process.stdin.on("end", () => void server.close());
    await server.connect(transport);
    logInfo(
      `serving ${served} over stdio as ${caller.client}/${caller.agentId}${
        caller.workspace === undefined ? "" : ` in workspace ${caller.workspace}`
      } (${config.workspaceIsolation} isolation, ${mode})`,
    );
    void stop.requested.then(() => server.close());
    await closed;
    return 0;
  } catch (error) {
    return reportFailure(error);
  } finally {
    await shutDown(stop, app);
  }
}

/**
 * The database a server serves, for its start-up line: the SQLite file, or the PostgreSQL
 * database (password redacted), its schema version and the vector path in use.
 */
function describeServedDatabase(store: Store): string {
  const backend = store.backend;
  if (backend === undefined) return store.path;
  return `postgresql ${backend.database} (PostgreSQL ${backend.serverVersion}, schema version ${backend.schemaVersion}; vectors: ${backend.vectorPath})`;
}

/** Says at start-up that the database is read-only and where writes will go. */
function warnReadOnly(dbPath: string, reason: string, backupPath: string): void {
  const refusal = backupRefusal(backupPath);
  logWarn(
    refusal === undefined
      ? `the database ${dbPath} is read-only (${reason}): serving reads; remember and update are saved to ${backupPath} for replay_backup`
      : `the database ${dbPath} is read-only (${reason}) and the backup ${backupPath} cannot be written either (${refusal}): writes will fail; set backup_jsonl in the config file or MEMA_BACKUP_JSONL to a writable place`,
  );
}
