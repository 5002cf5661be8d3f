/**
 * Makes the model runtime's native libraries loadable inside a `deno compile` binary.
 *
 * onnxruntime-node's addon needs `libonnxruntime.so.1` and sharp's (transformers imports
 * sharp at load) needs `libvips-cpp.so.*`, each found beside the addon (`$ORIGIN`). Deno
 * 2.9's compiled runtime copies an addon *alone* out of its virtual file system into the
 * temp directory before dlopen, so the dynamic linker cannot find the library beside it and
 * importing transformers fails ("libonnxruntime.so.1: cannot open shared object file").
 * `--self-extracting` would fix that by unpacking everything, but it unpacks next to the
 * executable whenever that directory is writable, which docs/SPEC.md §2 rules out.
 *
 * So each such library is copied to `<cache>/native/<file>-<sha256-16>/` (as vec0.so is)
 * and loaded first; the linker then resolves the addon's DT_NEEDED entry by soname to the
 * copy already in memory. Under `deno run` the files are real and nothing is done.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { prepareModelRuntime } from "./native_libs.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * // Under `deno run` the libraries load from node_modules: nothing to copy out.
 * assert.deepEqual(prepareModelRuntime({ cacheDir: dir }), []);
 * // then import transformers.js (src/models/transformers_runtime.ts)
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import process from "node:process";
import { ensureDir, listDir } from "../platform/directories.ts";
import { readBytes, writeBytesAtomic } from "../platform/files.ts";
import { pathExists } from "../platform/paths.ts";
import { isCompiledBinary, preloadSharedLibrary } from "../platform/processes.ts";
import { modelStackFile } from "./model_stack.ts";

/** Real paths of the libraries loaded so far, by their path in the package tree. */
const prepared = new Map<string, string>();

/** The shared libraries the model runtime's addons link against, in the package tree. */
export function modelRuntimeLibraries(): string[] {
  const require = createRequire(modelStackFile("transformers"));
  const ortIndex = require.resolve("onnxruntime-node");
  const ortDist = ortIndex.slice(0, ortIndex.lastIndexOf("/"));
  const ortBin = `${ortDist}/../bin/napi-v6/${process.platform}/${process.arch}`;
  const libraries = listDir(ortBin)
    .filter((name) => /^(lib)?onnxruntime[.\d]*\.(so|dylib|dll)/.test(name))
    .map((name) => `${ortBin}/${name}`);
  // sharp-libvips exports its one library as "./binary"; on Linux the package name says
  // glibc ("linux") or musl ("linuxmusl"), and only the one for this machine is installed
  // in a compiled binary.
  const sharp = createRequire(require.resolve("sharp"));
  const variants = process.platform === "linux" ? ["linux", "linuxmusl"] : [process.platform];
  for (const variant of variants) {
    try {
      libraries.push(sharp.resolve(`@img/sharp-libvips-${variant}-${process.arch}/binary`));
      break;
    } catch {
      // Not this variant; with none, sharp reports the missing library itself on import.
    }
  }
  return libraries;
}

function copyAndLoad(source: string, cacheDir: string): string {
  const bytes = readBytes(source);
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
  const name = source.slice(source.lastIndexOf("/") + 1);
  const dir = `${cacheDir}/native/${name}-${hash}`;
  const target = `${dir}/${name}`;
  if (!pathExists(target)) {
    ensureDir(dir);
    writeBytesAtomic(target, bytes);
  }
  preloadSharedLibrary(target);
  return target;
}

/**
 * In a compiled binary, copies the runtime's shared libraries to the cache and loads them
 * (once per process); returns their real paths. Does nothing under `deno run` unless `force`.
 */
export function prepareModelRuntime(options: { cacheDir: string; force?: boolean }): string[] {
  if (!isCompiledBinary() && !options.force) return [];
  return modelRuntimeLibraries().map((library) => {
    let target = prepared.get(library);
    if (target === undefined) {
      target = copyAndLoad(library, options.cacheDir);
      prepared.set(library, target);
    }
    return target;
  });
}
