/**
 * `mema console [--port 8766] [--open]`: the local web console (src/console/). It serves
 * 127.0.0.1 only, prints its URL with a token (new each run), and acts as `console/<os user>`:
 * every change made there is the user's own, authorized at the keyboard.
 * @module
 */
import { type App, openApp, shutDown } from "../app/mod.ts";
import { listenForStop } from "../app/stop_signal.ts";
import { IDENTITY_PATTERN, loadConfig } from "../config/mod.ts";
import { CONSOLE_DEFAULT_PORT, DOCTOR_CACHE_MS } from "../console/constants.ts";
import type { ConsoleEnv } from "../console/scope.ts";
import { startConsole } from "../console/server.ts";
import type { CallerIdentity } from "../core/context.ts";
import { type DoctorReport, runDoctor } from "../doctor/mod.ts";
import { MemaError } from "../errors/mod.ts";
import { openInBrowser } from "../platform/browser.ts";
import { osUserName } from "../platform/env.ts";
import { logInfo, logWarn } from "../platform/log.ts";
import { type CommandSpec, parseCommandArgs, UsageError } from "./command.ts";
import { reportFailure } from "./output.ts";

/** The client name console changes are stored and audited under. */
export const CONSOLE_CLIENT = "console";

/** `console/<user>`: the OS user name, with characters outside the identity alphabet as `_`. */
export function consoleCaller(user = osUserName()): CallerIdentity {
  const agentId = user.replace(/[^A-Za-z0-9._:@-]/g, "_").slice(0, 128) || "user";
  return { client: CONSOLE_CLIENT, agentId: IDENTITY_PATTERN.test(agentId) ? agentId : "user" };
}

/** `mema console`: its help and flags. */
export const consoleSpec: CommandSpec = {
  name: "console",
  summary: "review memories, history, conflicts and health in a local web console",
  usage: [`console [--port ${CONSOLE_DEFAULT_PORT}] [--open] [--db PATH] [--config PATH]`],
  description: [
    "Serves a web console on 127.0.0.1 only and prints its URL, which holds a token (new each",
    "run); opening it starts a session at an address of its own (/s/…/), the key to the console",
    "until it stops. Changes made there are yours: they are stored and audited as",
    "console/<your user name>. Under strict workspace isolation it shows one workspace at a",
    "time. Ctrl-C stops it.",
  ].join("\n"),
  flags: {
    port: {
      type: "string",
      value: "PORT",
      help: `port on 127.0.0.1 (default ${CONSOLE_DEFAULT_PORT}; 0 picks a free one)`,
    },
    open: { type: "boolean", help: "open the console in the default browser" },
    db: { type: "string", value: "PATH", help: "database file (default MEMA_DB_PATH)" },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
  },
  exitCodes: { 0: "stopped cleanly", 1: "could not start or failed", 2: "bad command line" },
  run: consoleCommand,
};

function parsePort(text: string | undefined): number {
  if (text === undefined) return CONSOLE_DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new UsageError(`--port must be a port number 0-65535, not "${text}"`, "console");
  }
  return port;
}

/** Runs `mema console` until SIGINT/SIGTERM. */
export async function consoleCommand(args: string[]): Promise<number> {
  const parsed = parseCommandArgs(consoleSpec, args);
  const port = parsePort(parsed.string("port"));
  const stop = listenForStop();
  let app: App | undefined;
  try {
    const flags = { dbPath: parsed.string("db"), configPath: parsed.string("config") };
    const config = loadConfig({ flags });
    app = await openApp(config, { caller: consoleCaller(), serving: {} });
    const { ctx } = app;
    if (app.store.capabilities.readOnly === undefined) {
      // Changes made in the console queue evidence and conflict checks like any write.
      await app.startBackgroundJobs(stop);
    } else {
      logWarn(`the database ${app.store.path} is read-only: the console can show, not change`);
    }
    let doctor: { at: number; report: Promise<DoctorReport> } | undefined;
    const env: ConsoleEnv = {
      config,
      doctor() {
        if (!doctor || Date.now() - doctor.at > DOCTOR_CACHE_MS) {
          doctor = { at: Date.now(), report: runDoctor({ flags }) };
        }
        return doctor.report;
      },
    };
    let server;
    try {
      server = startConsole(ctx, env, { port });
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse)) throw error;
      throw new MemaError("invalid_input", `port ${port} on 127.0.0.1 is already in use`, {
        field: "--port",
        hint: "is a mema console already running? Otherwise pick another with --port (0: any free)",
      });
    }
    console.log(`mema console: ${server.url}`);
    logInfo(
      `console for ${app.store.path} as ${ctx.caller.client}/${ctx.caller.agentId}; Ctrl-C stops it`,
    );
    if (parsed.boolean("open")) {
      const failed = await openInBrowser(server.url);
      if (failed) logWarn(`could not open a browser (${failed}); open the URL above yourself`);
    }
    await Promise.race([stop.requested, server.finished]);
    await server.shutdown();
    return 0;
  } catch (error) {
    return reportFailure(error);
  } finally {
    await shutDown(stop, app);
  }
}
