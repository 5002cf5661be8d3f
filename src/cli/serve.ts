/**
 * `mema serve`: the MCP server over stdio. Identity comes from flags, the
 * environment or the config file, and the server refuses to start without it.
 * `--http` (or `transport: "http"`) serves streamable HTTP instead, where each
 * request names its own identity in headers (src/mcp/http.ts).
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { loadConfig, requireIdentity } from "../config/mod.ts";
import { createMcpServer } from "../mcp/server.ts";
import { createRuntime } from "../mcp/runtime.ts";
import { HTTP_SERVER_CALLER, resolveHttpOptions, serveHttpUntilSignal } from "../mcp/http.ts";
import { logInfo } from "../platform/mod.ts";
import { startEvidenceWorker } from "../evidence/worker.ts";
import { DETECT_JOB_KIND } from "../conflicts/constants_pipeline.ts";
import { detectConflicts } from "../conflicts/detect.ts";
import { scanLogPath } from "../conflicts/scan_log.ts";
import { defaultStages, openJudge } from "../conflicts/stages.ts";
import { SemanticIndex } from "../evidence/semantic.ts";
import type { JobWorker } from "../jobs/worker.ts";
import { openStore } from "../store/mod.ts";
import { reportFailure } from "./output.ts";

/** Runs `mema serve`; resolves with the exit code when the client disconnects. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      client: { type: "string" },
      "agent-id": { type: "string" },
      db: { type: "string" },
      config: { type: "string" },
      http: { type: "boolean" },
      host: { type: "string" },
      port: { type: "string" },
      "allow-remote": { type: "boolean" },
    },
    strict: true,
  });
  let store;
  let worker: JobWorker | undefined;
  try {
    const config = loadConfig({
      flags: {
        client: values.client,
        agentId: values["agent-id"],
        dbPath: values.db,
        configPath: values.config,
        transport: values.http ? "http" : undefined,
        httpHost: values.host,
        httpPort: values.port,
      },
    });
    const http = resolveHttpOptions(config, {
      allowRemote: values["allow-remote"],
      hostOrPortFlag: values.host !== undefined || values.port !== undefined,
    });
    const caller = http ? HTTP_SERVER_CALLER : requireIdentity(config);
    store = await openStore(config.dbPath, {
      cacheDir: config.cacheDir,
      busyTimeoutMs: config.busyTimeoutMs,
    });
    const semantic = new SemanticIndex(store, {
      modelId: config.embeddingModel,
      modelsDir: config.modelsDir,
      manifestPath: config.manifestPath,
    });
    const runtime = createRuntime({
      store,
      semantic,
      caller,
      settings: {
        workspaceIsolation: config.workspaceIsolation,
        includeSize: config.includeSize,
        backupPath: config.backupPath,
      },
    }, {
      dbPath: config.dbPath,
      conflicts: {
        stages: defaultStages({ judge: openJudge(config) }),
        waitMs: config.noticeSyncWaitMs,
        scanLogPath: scanLogPath(config.dbPath),
      },
    });
    const conflictsSettings = runtime.conflicts!;
    worker = startEvidenceWorker(store, semantic, {
      [DETECT_JOB_KIND]: async (job) => {
        await detectConflicts(runtime.ctx, Number(job.payload.memory_id), conflictsSettings.stages);
      },
    });
    if (http) {
      await serveHttpUntilSignal(runtime, {
        ...http,
        describe: (url) =>
          `serving ${config.dbPath} over streamable HTTP at ${url} (${runtime.capabilities().mode})`,
      });
      return 0;
    }
    const server = createMcpServer(runtime);
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    // stdin closing (the client went away) ends the process cleanly.
    process.stdin.on("end", () => void server.close());
    await server.connect(transport);
    logInfo(
      `serving ${config.dbPath} over stdio as ${caller.client}/${caller.agentId} (${runtime.capabilities().mode})`,
    );
    await closed;
    return 0;
  } catch (error) {
    return reportFailure(error);
  } finally {
    await worker?.stop();
    store?.close();
  }
}
