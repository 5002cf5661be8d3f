/**
 * `mema scan`: kicks the scheduled conflict scan until the round completes, for cron.
 * Prints one line per kick and a summary; `--quiet` prints nothing unless something
 * failed, `--json` one object for scripts.
 * @module
 */
import { SCAN_DEFAULT_MEMORIES } from "../conflicts/constants_pipeline.ts";
import { kickScan } from "../conflicts/scan.ts";
import { loadConfig } from "../config/mod.ts";
import { pathExists } from "../platform/paths.ts";
import { type CommandSpec, parseCommandArgs, UsageError } from "./command.ts";
import { EXIT_FAILURE, reportFailure } from "./output.ts";
import { scanLogPath } from "../conflicts/scan_log.ts";
import { type App, openApp } from "../app/mod.ts";

/**
 * Version of `mema scan --json`'s layout (documented in docs/conflicts.md). Bumped when a field is
 * removed or changes meaning; new fields may appear within a version.
 */
export const SCAN_JSON_SCHEMA_VERSION = 1;

/** `mema scan --json` (schema version 1). */
export interface ScanJson {
  schema_version: number;
  complete: boolean;
  round_id?: string;
  mode?: "full" | "incremental";
  kicks: number;
  memories_scanned: number;
  seconds: number;
  suspect_pairs_this_round: number;
  scan_queue_pending: number;
  open_conflicts: number;
  error?: { code: string; reason: string; hint?: string };
}

/** `mema scan`: its help and flags. */
export const scanSpec: CommandSpec = {
  name: "scan",
  summary: "run the scheduled conflict scan until its round completes (for cron)",
  usage: ["scan [--db PATH] [--config PATH] [--max-memories N] [--quiet | --json]"],
  description: [
    "Walks the library in bounded, resumable kicks (full the first time, then only changed",
    "memories) and queues suspect pairs for your agent (memory_repair scan_queue).",
    "--quiet prints nothing when the round completes and only the problem (on stderr) when",
    'it does not, so cron mails only failures. --json prints one object ("schema_version": 1).',
  ].join("\n"),
  flags: {
    db: { type: "string", value: "PATH", help: "database file (default MEMA_DB_PATH)" },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
    "max-memories": {
      type: "string",
      value: "N",
      help: `memories per kick (default ${SCAN_DEFAULT_MEMORIES})`,
    },
    quiet: { type: "boolean", short: "q", help: "print nothing on success (for cron)" },
    json: { type: "boolean", help: "print one JSON object (schema_version 1) on stdout" },
  },
  exitCodes: {
    0: "the round completed",
    1: "the scan failed or made no progress (the reason is on stderr)",
    2: "bad command line",
  },
  run: scanCommand,
};

function positiveInteger(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`--${flag} must be a whole number of at least 1, not "${text}"`, "scan");
  }
  return value;
}

/** Runs `mema scan`. */
export async function scanCommand(args: string[]): Promise<number> {
  const flags = parseCommandArgs(scanSpec, args);
  const quiet = flags.boolean("quiet");
  const json = flags.boolean("json");
  const maxMemories = positiveInteger(flags.string("max-memories"), "max-memories");
  const say = (line: string) => {
    if (!quiet && !json) console.log(line);
  };
  const started = Date.now();
  const summary: ScanJson = {
    schema_version: SCAN_JSON_SCHEMA_VERSION,
    complete: false,
    kicks: 0,
    memories_scanned: 0,
    seconds: 0,
    suspect_pairs_this_round: 0,
    scan_queue_pending: 0,
    open_conflicts: 0,
  };
  const finish = (code: number): number => {
    summary.seconds = Math.round((Date.now() - started) / 100) / 10;
    if (json) console.log(JSON.stringify(summary));
    return code;
  };
  let app: App | undefined;
  try {
    const config = loadConfig({
      flags: { dbPath: flags.string("db"), configPath: flags.string("config") },
    });
    // A scan only reads and queues what a database holds: with none yet there is nothing to
    // scan, and none is created (cron on a fresh install stays quiet and leaves no file).
    if (config.dbUrl === undefined && !pathExists(config.dbPath)) {
      summary.complete = true;
      say(`scan complete: no database at ${config.dbPath} yet, nothing to scan`);
      return finish(0);
    }
    app = await openApp(config, {
      caller: { client: config.client ?? "mema-cli", agentId: config.agentId ?? "mema-scan" },
      settings: { workspaceIsolation: config.workspaceIsolation, includeSize: config.includeSize },
    });
    const { ctx, stages, store } = app;
    for (;;) {
      const receipt = await kickScan(ctx, {
        assess: stages.assess,
        logPath: scanLogPath(config.dbPath),
        maxMemories,
      });
      summary.kicks++;
      summary.memories_scanned += receipt.processedThisKick;
      summary.round_id = receipt.roundId;
      summary.mode = receipt.mode;
      summary.suspect_pairs_this_round = receipt.queuedTotal;
      say(
        `kick ${summary.kicks}: ${receipt.mode} round ${receipt.roundId}, scanned ${receipt.processedThisKick}, queued ${receipt.queuedThisKick}, ${receipt.pendingMemories} left`,
      );
      if (receipt.complete) {
        const backlog = await store.read(async () => await store.conflicts.backlog());
        summary.complete = true;
        summary.scan_queue_pending = backlog.scanQueuePending;
        summary.open_conflicts = backlog.openConflicts;
        say(
          `scan complete: ${summary.memories_scanned} memories in ${summary.kicks} kick(s), ${
            ((Date.now() - started) / 1000).toFixed(1)
          } s; ${receipt.queuedTotal} suspect pair(s) this round; ${backlog.scanQueuePending} waiting in the scan queue, ${backlog.openConflicts} open conflict(s)`,
        );
        return finish(0);
      }
      if (receipt.processedThisKick === 0) {
        const reason = "the round made no progress; run `mema doctor`";
        console.error(`mema scan: ${reason}`);
        summary.error = { code: "no_progress", reason };
        return finish(EXIT_FAILURE);
      }
    }
  } catch (error) {
    const code = reportFailure(error);
    const known = error as { code?: string; reason?: string; hint?: string; message?: string };
    summary.error = {
      code: known.code ?? "internal_error",
      reason: known.reason ?? known.message ?? String(error),
      ...(known.hint ? { hint: known.hint } : {}),
    };
    return finish(code);
  } finally {
    await app?.close();
  }
}
