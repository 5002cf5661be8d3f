/**
 * Test helpers: temporary homes and a real `mema serve` process driven through
 * the MCP SDK client, the way a user's agent talks to it.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { isDeepStrictEqual } from "node:util";
import { rowsToResults } from "../../src/mcp/envelope.ts";

/** The repository root. */
export const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
/** main.ts. */
export const MAIN = `${ROOT}/main.ts`;

/** A throwaway directory tree standing in for a user's home. */
export interface TempHome {
  dir: string;
  dbPath: string;
  env: Record<string, string>;
  cleanup(): void;
}

/** Creates a temporary home with XDG directories inside it. */
export function makeTempHome(): TempHome {
  const dir = Deno.makeTempDirSync({ prefix: "mema-test-" });
  const env: Record<string, string> = {
    HOME: dir,
    XDG_CONFIG_HOME: `${dir}/config`,
    XDG_DATA_HOME: `${dir}/data`,
    XDG_CACHE_HOME: `${dir}/cache`,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  return {
    dir,
    dbPath: `${dir}/data/mema/mema.sqlite3`,
    env,
    cleanup: () => Deno.removeSync(dir, { recursive: true }),
  };
}

/** The response envelope. */
export interface Envelope {
  ok: boolean;
  mode: string;
  degraded: boolean;
  warnings: string[];
  // deno-lint-ignore no-explicit-any
  data: any;
  notices?: unknown[];
}

/** A connected MCP client over a spawned server. */
export interface ServerSession {
  client: Client;
  call(action: string, data?: unknown, tool?: string): Promise<Envelope>;
  /** Calls a `memory_repair` task. */
  repair(task: string, data?: unknown): Promise<Envelope>;
  callRaw(args: Record<string, unknown>, tool?: string): Promise<Envelope & { isError?: boolean }>;
  stderr(): string;
  /** The server process's id (a test may kill it). */
  pid(): number | null;
  close(): Promise<void>;
}

/**
 * The envelope a text block stands for: a lean recall page writes its results as `fields` +
 * `rows` there (src/mcp/envelope.ts), `structuredContent` as `results` objects.
 */
export function textAsEnvelope(text: string): Envelope {
  const envelope = JSON.parse(text);
  const { fields, rows, ...rest } = envelope.data ?? {};
  if (!Array.isArray(fields) || !Array.isArray(rows)) return envelope;
  return { ...envelope, data: { results: rowsToResults(fields, rows), ...rest } };
}

/** Spawns `mema serve` over stdio and connects the SDK client to it. */
export async function startServer(
  home: TempHome,
  options: { env?: Record<string, string>; args?: string[] } = {},
): Promise<ServerSession> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", MAIN, "serve", ...(options.args ?? [])],
    env: {
      ...home.env,
      MEMA_CLIENT: "test-client",
      MEMA_AGENT_ID: "test-agent",
      ...options.env,
    },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
  });
  const client = new Client({ name: "mema-tests", version: "0" });
  await client.connect(transport);
  const callRaw = async (args: Record<string, unknown>, tool = "memory") => {
    const result = await client.callTool({ name: tool, arguments: args });
    const envelope = result.structuredContent as Envelope;
    const text = (result.content as { type: string; text: string }[])[0].text;
    if (!isDeepStrictEqual(textAsEnvelope(text), JSON.parse(JSON.stringify(envelope)))) {
      throw new Error("text content and structuredContent differ");
    }
    return { ...envelope, isError: result.isError as boolean | undefined };
  };
  return {
    client,
    callRaw,
    call: (action, data, tool) => callRaw({ action, data }, tool),
    repair: (task, data) => callRaw({ task, data }, "memory_repair"),
    stderr: () => stderr,
    pid: () => transport.pid,
    close: () => client.close(),
  };
}

/** Runs the CLI to completion and captures its output. */
export async function runCli(
  home: TempHome,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, ...args],
    env: { ...home.env, ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/** Polls `semantic_control status` until the vector state is `wanted` (60 s at most). */
export async function waitForVectorState(server: ServerSession, wanted: string): Promise<void> {
  // Background work on a runner whose two cores run the whole suite in parallel: up to 60 s
  // (a PostgreSQL rebuild once needed more than 15 there; it takes ~3 s alone).
  for (let attempt = 0; attempt < 600; attempt++) {
    const status = await server.repair("semantic_control", { action: "status" });
    if (!status.ok) throw new Error(JSON.stringify(status.data));
    if (status.data.state === wanted) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`vector state never became ${wanted}`);
}
