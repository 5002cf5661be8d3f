/**
 * A corpus of real README files, written by the authors of the npm packages installed in
 * node_modules (nobody here wrote them), laid out as `node_modules/<package>/README.md` the
 * way a user would import a project's dependencies' docs.
 * @module
 */
import { ROOT } from "./server.ts";

/** One README of the corpus. */
export interface Readme {
  /** The package name (`qs`, `@types/node`). */
  name: string;
  /** Where the copy lies, relative to the corpus folder. */
  ref: string;
  text: string;
  /** How its title is written: an HTML heading or block first, a setext underline, badges. */
  style: "html" | "setext" | "badges" | "plain";
}

function styleOf(text: string): Readme["style"] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  if (lines[0]?.trimStart().startsWith("<")) return "html";
  if (/^[ ]{0,3}=+[ \t]*$/.test(lines[1] ?? "")) return "setext";
  if (lines.slice(0, 2).some((line) => line.includes("[!["))) return "badges";
  return "plain";
}

/** Every package README in node_modules, one per package name, in name order. */
export function installedReadmes(): Readme[] {
  const store = `${ROOT}/node_modules/.deno`;
  const byName = new Map<string, Readme>();
  for (const entry of [...Deno.readDirSync(store)].sort((a, b) => a.name.localeCompare(b.name))) {
    const at = entry.name.lastIndexOf("@");
    if (!entry.isDirectory || at <= 0) continue;
    const name = entry.name.slice(0, at).replace("+", "/");
    let text: string;
    try {
      text = Deno.readTextFileSync(`${store}/${entry.name}/node_modules/${name}/README.md`);
    } catch {
      continue;
    }
    if (byName.has(name) || text.trim() === "") continue;
    byName.set(name, { name, ref: `node_modules/${name}/README.md`, text, style: styleOf(text) });
  }
  return [...byName.values()];
}

/**
 * About `count` READMEs: every one whose title is written in HTML, as a setext heading or
 * with badges first (the hard cases), then plain ones up to the count.
 */
export function hardReadmes(count: number): Readme[] {
  const all = installedReadmes();
  const hard = all.filter((readme) => readme.style !== "plain");
  const plain = all.filter((readme) => readme.style === "plain");
  return [...hard, ...plain].slice(0, Math.max(count, 0));
}

/** Writes READMEs under `dir` at their `ref`. */
export function writeCorpus(dir: string, readmes: readonly Readme[]): void {
  for (const readme of readmes) {
    const path = `${dir}/${readme.ref}`;
    Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(path, readme.text);
  }
}
