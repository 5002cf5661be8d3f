/**
 * `mema scan`: kicks the scheduled conflict scan until the round completes,
 * for cron. Prints one line per kick and a summary; exit 0 when complete.
 * @module
 */
import { parseArgs } from "node:util";
import { defaultStages } from "../conflicts/stages.ts";
import { kickScan } from "../conflicts/scan.ts";
import { loadConfig } from "../config/mod.ts";
import { openStore } from "../store/mod.ts";
import { reportFailure } from "./output.ts";
import { scanLogPath } from "../conflicts/scan_log.ts";

/** Runs `mema scan`. */
export async function scanCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      db: { type: "string" },
      config: { type: "string" },
      "max-memories": { type: "string" },
      quiet: { type: "boolean", default: false },
    },
    strict: true,
  });
  let store;
  try {
    const config = loadConfig({ flags: { dbPath: values.db, configPath: values.config } });
    store = await openStore(config.dbPath, {
      cacheDir: config.cacheDir,
      busyTimeoutMs: config.busyTimeoutMs,
    });
    const ctx = {
      store,
      caller: { client: config.client ?? "mema-cli", agentId: config.agentId ?? "mema-scan" },
      settings: { workspaceIsolation: config.workspaceIsolation, includeSize: config.includeSize },
    };
    const stages = defaultStages();
    const started = Date.now();
    let kicks = 0;
    let processed = 0;
    for (;;) {
      const receipt = await kickScan(ctx, {
        assess: stages.assess,
        logPath: scanLogPath(config.dbPath),
        maxMemories: values["max-memories"] ? Number(values["max-memories"]) : undefined,
      });
      kicks++;
      processed += receipt.processedThisKick;
      if (!values.quiet) {
        console.log(
          `kick ${kicks}: ${receipt.mode} round ${receipt.roundId}, scanned ${receipt.processedThisKick}, queued ${receipt.queuedThisKick}, ${receipt.pendingMemories} left`,
        );
      }
      if (receipt.complete) {
        const backlog = store.read(() => store!.conflicts.backlog());
        console.log(
          `scan complete: ${processed} memories in ${kicks} kick(s), ${
            ((Date.now() - started) / 1000).toFixed(1)
          } s; ${receipt.queuedTotal} suspect pair(s) this round; ${backlog.scanQueuePending} waiting in the scan queue, ${backlog.openConflicts} open conflict(s)`,
        );
        return 0;
      }
      if (receipt.processedThisKick === 0) {
        console.error("mema scan: the round made no progress; run `mema doctor`");
        return 1;
      }
    }
  } catch (error) {
    return reportFailure(error);
  } finally {
    store?.close();
  }
}
