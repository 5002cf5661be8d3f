/**
 * A real `mema serve` process driven through the MCP SDK client, for benchmarks that measure
 * what an agent sees.
 *
 * @example
 * ```ts
 * import { startMemaServer } from "./bench/helpers/mcp_server.ts";
 * const server = await startMemaServer({ dbPath: "/tmp/b/mema.sqlite3", home: "/tmp/b" });
 * const envelope = await server.call("memory", "find", { query: "deploy" });
 * await server.close();
 * ```
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { peakRssBytes, ROOT } from "./stats.ts";

/** A running server and its client. */
export interface MemaServer {
  client: Client;
  pid: number | undefined;
  /** Calls a verb tool and returns the envelope; throws when `ok` is false. */
  // deno-lint-ignore no-explicit-any
  call(tool: string, verb: string, data: unknown): Promise<any>;
  /** Waits until the vector index is no longer filling (or `timeoutMs` passes). */
  waitForIndex(timeoutMs?: number): Promise<string>;
  /** Waits until no background job is pending or running; "drained" or "timeout". */
  waitForJobs(timeoutMs?: number): Promise<string>;
  /** The server's peak RSS so far (Linux), read before closing. */
  peakRss(): number | undefined;
  /** The last lines the server wrote to stderr (only with `keepStderr`), to explain a crash. */
  stderrTail(): string;
  close(): Promise<void>;
}

const VERB_FIELD: Record<string, string> = {
  memory: "action",
  memory_review: "view",
  memory_govern: "action",
  memory_repair: "task",
};

/** Environment of a server with its own home; PATH and the runner's Deno cache come along. */
export function serverEnv(
  options: { home: string; dbPath: string; env?: Record<string, string> },
): Record<string, string> {
  const env: Record<string, string> = {
    HOME: options.home,
    XDG_CONFIG_HOME: `${options.home}/config`,
    XDG_CACHE_HOME: `${options.home}/cache`,
    XDG_DATA_HOME: `${options.home}/data`,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    MEMA_DB_PATH: options.dbPath,
    MEMA_CLIENT: "bench",
    MEMA_AGENT_ID: "bench-agent",
    ...options.env,
  };
  env.DENO_DIR = runnerDenoDir();
  return env;
}

let denoDirOfRunner: string | undefined;

/**
 * The Deno cache this benchmark runs with. Without DENO_DIR, Deno keeps it under HOME, which
 * each server gets its own of: every first start of a benchmark then compiled mema into an
 * empty cache (~2 s of the 2.3 s `initialize` once reported for a 1M library), which measures
 * a fresh install (`bench:first-start --cold`), not the library.
 */
export function runnerDenoDir(): string {
  if (denoDirOfRunner !== undefined) return denoDirOfRunner;
  const named = Deno.env.get("DENO_DIR");
  if (named) return denoDirOfRunner = named;
  const info = new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .outputSync();
  return denoDirOfRunner = String(JSON.parse(new TextDecoder().decode(info.stdout)).denoDir);
}

/**
 * The command line that starts `mema serve` from this checkout; `denoFlags` go before the
 * script (e.g. `--cpu-prof` to profile the server).
 */
export function serveCommand(
  denoFlags: readonly string[] = [],
): { command: string; args: string[] } {
  return {
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", ...denoFlags, `${ROOT}/main.ts`, "serve"],
  };
}

/** Starts `mema serve` over stdio and connects a client. */
export async function startMemaServer(options: {
  home: string;
  dbPath: string;
  env?: Record<string, string>;
  /** Keep the server's stderr (its last 8 KiB) for `stderrTail`. */
  keepStderr?: boolean;
  /** Flags for `deno run` (e.g. `--cpu-prof`, `--cpu-prof-dir=DIR`). */
  denoFlags?: readonly string[];
}): Promise<MemaServer> {
  const { command, args } = serveCommand(options.denoFlags);
  const transport = new StdioClientTransport({
    command,
    args,
    env: serverEnv(options),
    stderr: options.keepStderr ? "pipe" : "ignore",
  });
  let stderrTail = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    stderrTail = (stderrTail + String(chunk)).slice(-8_192);
  });
  const client = new Client({ name: "mema-bench", version: "0" });
  await client.connect(transport);
  // deno-lint-ignore no-explicit-any
  const call = async (tool: string, verb: string, data: unknown): Promise<any> => {
    const result = await client.callTool({
      name: tool,
      arguments: { [VERB_FIELD[tool] ?? "action"]: verb, data },
    });
    // deno-lint-ignore no-explicit-any
    const envelope = result.structuredContent as any;
    if (!envelope?.ok) throw new Error(`${tool}.${verb} failed: ${JSON.stringify(envelope?.data)}`);
    return envelope;
  };
  return {
    client,
    pid: transport.pid ?? undefined,
    call,
    async waitForIndex(timeoutMs = 600_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = await call("memory_repair", "semantic_control", { action: "status" });
        const state = status.data?.state ?? "unknown";
        if (state !== "indexing" || Date.now() > deadline) return state;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async waitForJobs(timeoutMs = 1_800_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = await call("memory", "status", {});
        const jobs = (status.data?.jobs ?? {}) as Record<string, Record<string, number>>;
        const open = Object.values(jobs).reduce(
          (sum, byStatus) => sum + (byStatus.pending ?? 0) + (byStatus.running ?? 0),
          0,
        );
        if (open === 0) return "drained";
        if (Date.now() > deadline) return "timeout";
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    },
    peakRss: () => transport.pid ? peakRssBytes(transport.pid) : undefined,
    stderrTail: () => stderrTail,
    close: () => client.close(),
  };
}

/**
 * `--env KEY=VALUE` arguments as an environment: each split at its first "=", so a value may
 * hold one. Throws on an argument without a key.
 */
export function envArguments(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new Error(`--env wants KEY=VALUE, got "${pair}"`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}
