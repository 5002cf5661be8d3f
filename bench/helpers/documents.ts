/**
 * The real-document corpus: README, CHANGELOG, HISTORY and other Markdown files that npm
 * packages ship, read from the project's own `node_modules/.deno` (text nobody on this project
 * wrote). The selection is `bench/document_corpus.json`, a sorted list of paths relative to
 * `node_modules/.deno`; `deno run -A bench/document_conflicts.ts --select` rewrites it from what
 * is installed (every `.md`/`.markdown` file except licences, whose text is the same boilerplate
 * in every package). Each document belongs to the half of its package ({@link packageHalf}), so
 * two files of one package are never split between tuning and reporting.
 *
 * @example
 * ```ts
 * import { loadDocuments } from "./bench/helpers/documents.ts";
 * const { documents, missing } = loadDocuments();
 * documents.filter((d) => d.half === "held").length;
 * ```
 * @module
 */
import { createHash } from "node:crypto";
import { ROOT } from "./stats.ts";

/** Where the packages are. */
export const PACKAGES_DIR = `${ROOT}/node_modules/.deno`;
/** The committed selection. */
export const SELECTION_FILE = `${ROOT}/bench/document_corpus.json`;

/** One document of the corpus. */
export interface CorpusDocument {
  /** Relative to {@linkcode PACKAGES_DIR}: `qs@6.17.1/node_modules/qs/README.md`. */
  path: string;
  /** The package it ships with (`qs`, `@scope/name`). */
  packageName: string;
  /** As `mema import DIR` would name it: the package folder and the file. */
  ref: string;
  half: "tune" | "held";
  text: string;
}

/**
 * The half of a package: the first byte of sha256(name), even → tune, odd → held (as the
 * fact-pair corpus splits by pair id: stable, blind to the content).
 */
export function packageHalf(name: string): "tune" | "held" {
  return createHash("sha256").update(name).digest()[0] % 2 === 0 ? "tune" : "held";
}

/** The package a selected path belongs to: the part after the last `node_modules/`. */
export function packageOf(path: string): string {
  const inner = path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
  const parts = inner.split("/");
  return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

function walk(dir: string, prefix: string, found: string[]): void {
  for (const entry of Deno.readDirSync(dir)) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory) walk(`${dir}/${entry.name}`, path, found);
    else if (
      entry.isFile && /\.(md|markdown)$/i.test(entry.name) && !/^licen[cs]e/i.test(entry.name)
    ) {
      found.push(path);
    }
  }
}

/** Every Markdown file under the installed packages, sorted (the selection `--select` writes). */
export function selectDocuments(): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(PACKAGES_DIR)) {
    // `.deno` also holds Deno's own marker files; packages are folders named name@version.
    if (!entry.isDirectory || !entry.name.includes("@", 1)) continue;
    walk(`${PACKAGES_DIR}/${entry.name}`, entry.name, found);
  }
  return found.sort();
}

/** The committed selection, read from node_modules; paths not installed are `missing`. */
export function loadDocuments(): { documents: CorpusDocument[]; missing: string[] } {
  const paths = JSON.parse(Deno.readTextFileSync(SELECTION_FILE)) as string[];
  const documents: CorpusDocument[] = [];
  const missing: string[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = Deno.readTextFileSync(`${PACKAGES_DIR}/${path}`);
    } catch {
      missing.push(path);
      continue;
    }
    const packageName = packageOf(path);
    const inner = path.slice(path.lastIndexOf(`node_modules/${packageName}/`) + 13);
    documents.push({ path, packageName, ref: inner, half: packageHalf(packageName), text });
  }
  return { documents, missing };
}
