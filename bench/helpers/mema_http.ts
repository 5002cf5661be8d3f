/**
 * A real `mema serve --http` process and SDK clients that talk to it over the streamable HTTP
 * transport, for the benchmarks that measure what an HTTP-speaking agent sees.
 *
 * @example
 * ```ts ignore
 * import { connectHttp, startHttpServer } from "./mema_http.ts";
 * const server = await startHttpServer({});
 * const client = await connectHttp(server.url);
 * await client.callTool({ name: "memory", arguments: { action: "status" } });
 * await client.close();
 * await server.stop();
 * ```
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp.d.ts"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ROOT } from "./stats.ts";

/** Who the benchmark clients say they are. */
const HEADERS = { "X-Mema-Client": "bench", "X-Mema-Agent-Id": "http-load" };

/** A running HTTP server. */
export interface HttpServer {
  url: string;
  child: Deno.ChildProcess;
  /** The server's temporary home (removed by `stop` unless the caller passed its own). */
  home: string;
  /** The last 8 KiB the server wrote to stderr, to explain a failure. */
  stderrTail(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `mema serve --http --port 0` in `home` (a fresh temporary one when not given) with
 * `env` added, and resolves once it listens.
 */
export async function startHttpServer(
  env: Record<string, string>,
  options: { home?: string } = {},
): Promise<HttpServer> {
  const owned = options.home === undefined;
  const home = options.home ?? Deno.makeTempDirSync({ prefix: "mema-bench-http-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--quiet",
      // e.g. `--cpu-prof --cpu-prof-dir=DIR` to profile the servers under load.
      ...(Deno.env.get("MEMA_BENCH_SERVER_FLAGS")?.split(" ").filter(Boolean) ?? []),
      `${ROOT}/main.ts`,
      "serve",
      "--http",
      "--port",
      "0",
    ],
    env: {
      HOME: home,
      XDG_CONFIG_HOME: `${home}/config`,
      XDG_DATA_HOME: `${home}/data`,
      XDG_CACHE_HOME: `${home}/cache`,
      ...env,
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let log = "";
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await child.status;
    if (owned) Deno.removeSync(home, { recursive: true });
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      await stop();
      throw new Error(`server exited before listening: ${log}`);
    }
    log = (log + value).slice(-8_192);
    const url = / at (http:\/\/\S+\/mcp)/.exec(log)?.[1];
    if (url) {
      // Keep draining stderr so the server never blocks on a full pipe.
      (async () => {
        for (;;) {
          const next = await reader.read();
          if (next.done) break;
          log = (log + next.value).slice(-8_192);
        }
      })();
      return { url, child, home, stderrTail: () => log, stop };
    }
  }
}

/** An SDK client connected to the server at `url`. */
export async function connectHttp(url: string): Promise<Client> {
  const client = new Client({ name: "mema-http-bench", version: "0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: HEADERS } }),
  );
  return client;
}
