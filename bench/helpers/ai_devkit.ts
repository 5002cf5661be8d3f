/**
 * `@ai-devkit/memory` (an MCP memory server on SQLite FTS5) as a benchmark peer: installed
 * once from npm into a cache directory outside the repository, started with `node` over
 * stdio with its own `HOME`, so its database (`$HOME/.ai-devkit/memory.db`, the only place it
 * knows: it has no flag or variable for the path) lands in a temporary directory and never in
 * the user's.
 *
 * It runs in its default lexical mode: semantic search is opt-in through `.ai-devkit.json` in
 * the working directory, and the server starts in the temporary home, which has none.
 *
 * @example
 * ```ts
 * import { startAiDevkitServer } from "./bench/helpers/ai_devkit.ts";
 * const peer = await startAiDevkitServer({ home: "/tmp/peer" });
 * await peer.store({ title: "deploy schedule note", content: "…at least 50 characters…" });
 * await peer.search({ query: "deploy", limit: 10 });
 * await peer.close();
 * ```
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { peakRssBytes } from "./stats.ts";

/** The version the outside tester compared against (issue 11). */
export const AI_DEVKIT_VERSION = "0.20.1";

/** Its tool names (0.20.1). */
export const AI_DEVKIT_STORE_TOOL = "memory_storeKnowledge";
export const AI_DEVKIT_SEARCH_TOOL = "memory_searchKnowledge";

/** A running peer server and its client. */
export interface AiDevkitServer {
  pid: number | undefined;
  /** Where its database is (inside `home`). */
  dbPath: string;
  /** `memory_storeKnowledge`; throws on an error result. */
  store(args: { title: string; content: string; tags?: string[]; scope?: string }): Promise<
    { success: boolean; id: string }
  >;
  /** `memory_searchKnowledge`; throws on an error result (e.g. a query over 500 characters). */
  search(args: { query: string; limit?: number; scope?: string }): Promise<
    { results: { id: string; title: string }[]; totalMatches: number; strategy: string }
  >;
  peakRss(): number | undefined;
  close(): Promise<void>;
}

function tmpDir(): string {
  return Deno.env.get("TMPDIR") ?? "/tmp";
}

/** Where the peer is installed by default: one directory per version, reused across runs. */
export function defaultAiDevkitDir(version = AI_DEVKIT_VERSION): string {
  return `${tmpDir()}/mema-bench-ai-devkit-memory-${version}`;
}

/** The peer's entry point under `installDir`, installing it with npm first if missing. */
export async function ensureAiDevkit(
  installDir = defaultAiDevkitDir(),
  version = AI_DEVKIT_VERSION,
): Promise<string> {
  const entry = `${installDir}/node_modules/@ai-devkit/memory/dist/index.js`;
  try {
    Deno.statSync(entry);
    return entry;
  } catch {
    // Not installed yet.
  }
  console.error(
    `installing @ai-devkit/memory@${version} into ${installDir} (builds better-sqlite3)`,
  );
  Deno.mkdirSync(installDir, { recursive: true });
  const result = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefix",
      installDir,
      "--no-save",
      "--no-audit",
      "--no-fund",
      `@ai-devkit/memory@${version}`,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!result.success) throw new Error(`npm install @ai-devkit/memory@${version} failed`);
  Deno.statSync(entry);
  return entry;
}

/** Starts the peer over stdio with `home` as its HOME and working directory. */
export async function startAiDevkitServer(options: {
  home: string;
  installDir?: string;
  version?: string;
}): Promise<AiDevkitServer> {
  const entry = await ensureAiDevkit(options.installDir, options.version);
  Deno.mkdirSync(options.home, { recursive: true });
  const transport = new StdioClientTransport({
    command: "node",
    args: [entry],
    cwd: options.home,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: options.home },
    stderr: "ignore",
  });
  const client = new Client({ name: "mema-side-by-side", version: "0" });
  await client.connect(transport);
  // deno-lint-ignore no-explicit-any
  const call = async (name: string, args: Record<string, unknown>): Promise<any> => {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as { type: string; text?: string }[])[0]?.text ?? "null";
    if (result.isError) throw new Error(`${name} failed: ${text}`);
    return JSON.parse(text);
  };
  return {
    pid: transport.pid ?? undefined,
    dbPath: `${options.home}/.ai-devkit/memory.db`,
    store: (args) => call(AI_DEVKIT_STORE_TOOL, args),
    search: (args) => call(AI_DEVKIT_SEARCH_TOOL, args),
    peakRss: () => transport.pid ? peakRssBytes(transport.pid) : undefined,
    close: () => client.close(),
  };
}
