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
/**
 * A third set, for tuning only: Markdown files of packages that are in neither half of the
 * selection, found outside this project's `node_modules` (Deno's npm cache, the system npm and
 * its dependencies, npx caches). Absolute paths, `~` for the home folder; a file that is gone
 * is skipped. Its conflicts are always printed: the held half's figure stays the report.
 */
export const EXTRA_SELECTION_FILE = `${ROOT}/bench/document_corpus_extra.json`;
/** Where the extra set is looked for (`--select-extra`). */
const EXTRA_ROOTS = [
  "~/.cache/deno/npm/registry.npmjs.org",
  "/usr/lib/node_modules",
  "~/.npm/_npx",
  "/tmp/mema-bench-ai-devkit-memory-0.20.1",
  // Node.js's own Markdown documentation as Debian ships it (API reference, guides); not an npm
  // package of either half. Its changelogs are commit logs, megabytes each: left out.
  "/usr/share/doc/nodejs",
];
/** Documentation a distribution installs: `/usr/share/doc/<package>/…`. */
const SHARED_DOC = "/usr/share/doc/";

/** One document of the corpus. */
export interface CorpusDocument {
  /** Relative to {@linkcode PACKAGES_DIR}: `qs@6.17.1/node_modules/qs/README.md`. */
  path: string;
  /** The package it ships with (`qs`, `@scope/name`). */
  packageName: string;
  /** As `mema import DIR` would name it: the package folder and the file. */
  ref: string;
  half: "tune" | "held" | "extra";
  text: string;
}

/**
 * The half of a package: the first byte of sha256(name), even → tune, odd → held (as the
 * fact-pair corpus splits by pair id: stable, blind to the content).
 */
export function packageHalf(name: string): "tune" | "held" {
  return createHash("sha256").update(name).digest()[0] % 2 === 0 ? "tune" : "held";
}

/**
 * The package a selected path belongs to: the part after the last `node_modules/` (in Deno's
 * npm cache, the folder under `registry.npmjs.org/`).
 */
export function packageOf(path: string): string {
  if (path.startsWith(SHARED_DOC)) return path.slice(SHARED_DOC.length).split("/")[0];
  const marker = path.includes("node_modules/") ? "node_modules/" : "registry.npmjs.org/";
  const inner = path.slice(path.lastIndexOf(marker) + marker.length);
  const parts = inner.split("/");
  return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** The path inside its package, as `mema import DIR` of the package folder would name it. */
function refOf(path: string, packageName: string): string {
  if (path.startsWith(SHARED_DOC)) return path.slice(`${SHARED_DOC}${packageName}/`.length);
  const inNodeModules = path.lastIndexOf(`node_modules/${packageName}/`);
  if (inNodeModules >= 0) return path.slice(inNodeModules + `node_modules/${packageName}/`.length);
  // Deno's cache: registry.npmjs.org/<name>/<version>/<file>.
  const inCache = path.slice(path.lastIndexOf(`registry.npmjs.org/${packageName}/`));
  return inCache.split("/").slice(2 + packageName.split("/").length).join("/");
}

const home = () => Deno.env.get("HOME") ?? "";
const expandHome = (path: string) => path.startsWith("~/") ? home() + path.slice(1) : path;

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

/**
 * Every Markdown file (licences left out) under the extra roots whose package is in neither half
 * of the committed selection; one copy per package and path inside it (the same package in two
 * caches is read once). Sorted, with `~` for the home folder.
 */
export function selectExtraDocuments(): string[] {
  const known = new Set(
    (JSON.parse(Deno.readTextFileSync(SELECTION_FILE)) as string[]).map(packageOf),
  );
  const seen = new Set<string>();
  const chosen: string[] = [];
  for (const root of EXTRA_ROOTS) {
    const found: string[] = [];
    try {
      walk(expandHome(root), "", found);
    } catch {
      continue; // a root that is not on this machine
    }
    for (const relative of found.sort()) {
      const path = `${root}/${relative}`;
      if (path.startsWith(SHARED_DOC) && relative.startsWith("changelogs/")) continue;
      const packageName = packageOf(path);
      const key = `${packageName}:${refOf(path, packageName)}`;
      if (known.has(packageName) || seen.has(key)) continue;
      seen.add(key);
      chosen.push(path);
    }
  }
  return chosen.sort();
}

/** The extra set (tuning only), read from disk; paths no longer there are `missing`. */
export function loadExtraDocuments(): { documents: CorpusDocument[]; missing: string[] } {
  const paths = JSON.parse(Deno.readTextFileSync(EXTRA_SELECTION_FILE)) as string[];
  const documents: CorpusDocument[] = [];
  const missing: string[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = Deno.readTextFileSync(expandHome(path));
    } catch {
      missing.push(path);
      continue;
    }
    const packageName = packageOf(path);
    documents.push({ path, packageName, ref: refOf(path, packageName), half: "extra", text });
  }
  return { documents, missing };
}
