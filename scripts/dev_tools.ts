/**
 * Installs the tools only the tests and the build use into this checkout's node_modules:
 * playwright-core, which drives Chromium in the console's browser tests and `deno task
 * screenshots`, and the MCP TypeScript SDK, whose client the tests and benchmarks drive mema
 * with (the server speaks MCP itself, src/mcp/protocol.ts). `deno task test` and `deno task check` run it first; `deno task start` never
 * does, so a first start downloads only what `mema serve` runs.
 *
 * Deno 2.9 with `nodeModulesDir: "auto"` installs every package of deno.json's `imports` and of
 * `deno.lock` on any `deno run`, so a tool is in neither: like the model stack
 * (src/models/model_stack.ts) it has an install root (`scripts/dev_tools/<id>.js`, imported by
 * nothing) pinned by its own lockfile, installed with `deno install --entrypoint` against a copy
 * of that lockfile in `node_modules/.mema-stack/` (the checkout stays clean), and imported by
 * path (`devToolFile`).
 *
 * ```sh
 * deno run -A scripts/dev_tools.ts            # every tool
 * deno run -A scripts/dev_tools.ts mcp_sdk    # only the ones named
 * ```
 * @module
 */
import { fileURLToPath } from "node:url";

/** A tool: its npm package and the file code imports from it. */
interface DevTool {
  name: string;
  version: string;
  main: string;
}

/** The tools, by id. Versions match `scripts/dev_tools/<id>.js` and its lockfile. */
export const DEV_TOOLS = {
  playwright: { name: "playwright-core", version: "1.65.1", main: "index.mjs" },
  // deno.json maps `@modelcontextprotocol/sdk/` to this package's dist/esm/ folder.
  mcp_sdk: {
    name: "@modelcontextprotocol/sdk",
    version: "1.32.2",
    main: "dist/esm/client/index.js",
  },
  // PostgreSQL in WebAssembly with pgvector, for the pgvector path's tests
  // (scripts/pglite_server.ts). 0.5.15: the version pglite-pgvector 0.0.16 was built against
  // (0.6.1's PostgreSQL cannot load it: "imported function does not match the expected type").
  pglite: { name: "@electric-sql/pglite", version: "0.5.15", main: "dist/index.js" },
  pglite_vector: {
    name: "@electric-sql/pglite-pgvector",
    version: "0.0.16",
    main: "dist/index.js",
  },
} as const satisfies Record<string, DevTool>;

/** A tool's id. */
export type DevToolId = keyof typeof DEV_TOOLS;

const ROOT = fileURLToPath(new URL("../", import.meta.url)).replace(/\/$/, "");

/** The absolute path of the file code imports from an installed tool. */
export function devToolFile(id: DevToolId): string {
  const tool = DEV_TOOLS[id];
  return `${ROOT}/node_modules/.deno/${
    tool.name.replace("/", "+")
  }@${tool.version}/node_modules/${tool.name}/${tool.main}`;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Installs one tool (a no-op when it is there); throws with deno install's output on failure. */
export async function installDevTool(id: DevToolId): Promise<"installed" | "present"> {
  if (exists(devToolFile(id))) return "present";
  const tool = DEV_TOOLS[id];
  const copies = `${ROOT}/node_modules/.mema-stack`;
  Deno.mkdirSync(copies, { recursive: true });
  const lock = `${copies}/${id}.lock`;
  // Seeded from the committed lockfile: every pinned package is checked against its hash.
  if (!exists(lock)) Deno.copyFileSync(`${ROOT}/scripts/dev_tools/${id}.lock`, lock);
  console.error(`dev_tools: installing ${tool.name}@${tool.version} into ${ROOT}/node_modules…`);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["install", "--quiet", "--entrypoint", `scripts/dev_tools/${id}.js`, `--lock=${lock}`],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success || !exists(devToolFile(id))) {
    const said = new TextDecoder().decode(output.stderr).trim().slice(-600);
    throw new Error(
      `could not install ${tool.name}@${tool.version} (check the network and the npm registry, then retry): ${said}`,
    );
  }
  return "installed";
}

if (import.meta.main) {
  const unknown = Deno.args.filter((id) => !(id in DEV_TOOLS));
  if (unknown.length > 0) {
    console.error(
      `dev_tools: unknown tool ${unknown.join(", ")}; one of ${Object.keys(DEV_TOOLS).join(", ")}`,
    );
    Deno.exit(2);
  }
  const ids = (Deno.args.length > 0 ? Deno.args : Object.keys(DEV_TOOLS)) as DevToolId[];
  for (const id of ids) {
    try {
      await installDevTool(id);
    } catch (error) {
      console.error(`dev_tools: ${error instanceof Error ? error.message : error}`);
      Deno.exit(1);
    }
  }
}
