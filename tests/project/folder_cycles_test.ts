/**
 * The folders of `src/` import each other in one direction only: no folder reaches, through its
 * runtime imports, a folder that reaches it back. Type-only imports may cross (they vanish at
 * run time and load nothing). The layer order is written in docs/ARCHITECTURE.md ("Layers").
 * @module
 */
import assert from "node:assert/strict";
import { posix } from "node:path";
import { ROOT } from "../helpers/server.ts";

/** Every `.ts` file under `src/`, relative to the repository. */
function sources(dir = "src"): string[] {
  const files: string[] = [];
  for (const entry of Deno.readDirSync(`${ROOT}/${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) files.push(...sources(path));
    if (entry.isFile && entry.name.endsWith(".ts")) files.push(path);
  }
  return files;
}

/**
 * A static import or re-export at the start of a line: the clause (default, named, namespace)
 * and the specifier. JSDoc examples sit behind ` * ` and so never start a line with `import`.
 */
const STATIC_IMPORT =
  /^(import|export)\s+(type\s+)?(\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+\w+))?)\s*from\s*["']([^"']+)["']/gm;
const SIDE_EFFECT_IMPORT = /^import\s+["']([^"']+)["']/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** True when a named clause holds only `type X` specifiers (`import { type A, type B }`). */
function onlyTypes(clause: string): boolean {
  if (!clause.startsWith("{")) return false;
  const names = clause.slice(1, -1).split(",").map((name) => name.trim()).filter(Boolean);
  return names.length > 0 && names.every((name) => name.startsWith("type "));
}

/** The specifiers a source loads at run time. */
export function runtimeSpecifiers(source: string): string[] {
  const code = source.split("\n").filter((line) => !/^\s*(?:\*|\/\/|\/\*)/.test(line)).join(
    "\n",
  );
  const found: string[] = [];
  for (const [, , typeOnly, clause, specifier] of code.matchAll(STATIC_IMPORT)) {
    if (!typeOnly && !onlyTypes(clause)) found.push(specifier);
  }
  for (const [, specifier] of code.matchAll(SIDE_EFFECT_IMPORT)) found.push(specifier);
  for (const [, specifier] of code.matchAll(DYNAMIC_IMPORT)) found.push(specifier);
  return found;
}

/** The top-level folder of `src/` a path belongs to (a file directly in `src/` is its own). */
function folderOf(path: string): string {
  const parts = path.split("/");
  return parts.length > 2 ? parts[1] : parts[1].replace(/\.ts$/, "");
}

/** Folder → folder → the file edges that make the folder edge. */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const path of sources()) {
    const from = folderOf(path);
    if (!graph.has(from)) graph.set(from, new Map());
    for (const specifier of runtimeSpecifiers(Deno.readTextFileSync(`${ROOT}/${path}`))) {
      if (!specifier.startsWith(".")) continue;
      const target = posix.normalize(posix.join(posix.dirname(path), specifier));
      if (!target.startsWith("src/")) continue;
      const to = folderOf(target);
      if (to === from) continue;
      const edges = graph.get(from)!;
      edges.set(to, [...(edges.get(to) ?? []), `${path} → ${target}`]);
    }
  }
  return graph;
}

/** Strongly connected components with more than one folder (Tarjan). */
function cycles(graph: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** A readable account of one cycle: the folders, then each edge inside it with its files. */
function describe(component: string[], graph: Map<string, Map<string, string[]>>): string {
  const lines = [`cycle among: ${component.join(", ")}`];
  for (const from of component) {
    for (const [to, files] of graph.get(from) ?? []) {
      if (!component.includes(to)) continue;
      lines.push(`  ${from} → ${to}:`, ...files.map((file) => `    ${file}`));
    }
  }
  return lines.join("\n");
}

Deno.test("the folders of src/ import each other without a cycle", () => {
  const graph = folderGraph();
  const found = cycles(graph);
  assert.deepEqual(
    found,
    [],
    `runtime imports between src/ folders form cycles:\n${
      found.map((component) => describe(component, graph)).join("\n")
    }`,
  );
});

Deno.test("type-only imports do not count, runtime ones do", () => {
  const source = [
    'import type { A } from "../a/mod.ts";',
    'export type { B } from "../b/mod.ts";',
    'import { type C, type D } from "../c/mod.ts";',
    'import { type E, f } from "../e/mod.ts";',
    "import g, {",
    "  h,",
    '} from "../g/mod.ts";',
    'export { i } from "../i/mod.ts";',
    'import "../j/mod.ts";',
    'const k = await import("../k/mod.ts");',
    ' * import { example } from "../l/mod.ts";',
  ].join("\n");
  assert.deepEqual(runtimeSpecifiers(source), [
    "../e/mod.ts",
    "../g/mod.ts",
    "../i/mod.ts",
    "../j/mod.ts",
    "../k/mod.ts",
  ]);
});
