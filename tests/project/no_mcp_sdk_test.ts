/**
 * The server speaks MCP itself (src/mcp/protocol.ts): nothing `main.ts` can load, statically
 * or through a dynamic import, reaches `@modelcontextprotocol/sdk`, whose ~90 dependencies
 * would otherwise be fetched before a first start could answer `initialize` (issue 37). The
 * SDK is a test tool (scripts/dev_tools.ts); the tests drive the server with its client.
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";

interface ModuleGraph {
  roots: string[];
  modules: {
    specifier: string;
    dependencies?: { code?: { specifier: string }; type?: { specifier: string } }[];
  }[];
}

async function moduleGraph(entry: string): Promise<ModuleGraph> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

/** Every module reachable from the roots, through static and dynamic imports alike. */
function reachable(graph: ModuleGraph): Set<string> {
  const modules = new Map(graph.modules.map((module) => [module.specifier, module]));
  const seen = new Set<string>();
  const pending = [...graph.roots];
  while (pending.length > 0) {
    const specifier = pending.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      if (dependency.code) pending.push(dependency.code.specifier);
      if (dependency.type) pending.push(dependency.type.specifier);
    }
  }
  return seen;
}

const SDK = /@modelcontextprotocol[/+]sdk/;

Deno.test("nothing main.ts can load reaches the MCP SDK", async () => {
  const loaded = reachable(await moduleGraph("main.ts"));
  assert.deepEqual([...loaded].filter((specifier) => SDK.test(specifier)), []);
  // The walk saw the server: the MCP layer and both transports are in the graph.
  for (const file of ["src/mcp/protocol.ts", "src/mcp/stdio.ts", "src/mcp/http_exchange.ts"]) {
    assert.ok([...loaded].some((specifier) => specifier.endsWith(file)), file);
  }
});

Deno.test("the walk would see the SDK: the tests' server helper reaches it", async () => {
  const loaded = reachable(await moduleGraph("tests/helpers/server.ts"));
  assert.ok([...loaded].some((specifier) => SDK.test(specifier)));
});
