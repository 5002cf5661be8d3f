/**
 * The one way mema loads transformers.js: native files prepared first (a
 * compiled binary must put the addons' private libraries on real disk), then
 * the library imported lazily (it loads native code at import) and set to
 * offline, cache-less, quiet operation (it logs with console.log, and stdout
 * carries MCP frames).
 *
 * @example
 * Not run by `deno test --doc`: importing transformers.js loads onnxruntime's native library.
 * ```ts ignore
 * import { importTransformers } from "./transformers_runtime.ts";
 * const transformers = await importTransformers();
 * ```
 * @module
 */
import { cacheDir } from "../config/paths.ts";
import { MemaError } from "../errors/mod.ts";
import {
  ensureModelStackPart,
  importTransformersModule,
  type TransformersModule,
} from "./model_stack.ts";
import { prepareModelRuntime } from "./native_libs.ts";

/**
 * Imports transformers.js configured for local models only, installing the model runtime
 * first when it is missing (a model configured without `mema setup`; the message goes to
 * stderr).
 */
export async function importTransformers(): Promise<TransformersModule> {
  await ensureModelStackPart("transformers");
  try {
    prepareModelRuntime({ cacheDir: cacheDir() });
  } catch (error) {
    throw new MemaError("storage_error", "could not prepare the model runtime's native files", {
      hint: `check that ${cacheDir()}/native is writable (${error})`,
      cause: error,
    });
  }
  const transformers = await importTransformersModule();
  const env = transformers.env;
  // Before anything loads: raise the log level first so no info line reaches stdout.
  env.logLevel = transformers.LogLevel.ERROR;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.useFSCache = false;
  env.useBrowserCache = false;
  env.useWasmCache = false;
  return transformers;
}

/**
 * A model directory as transformers.js must be given it: absolute (a relative path would be
 * read as a Hugging Face repo id), without a trailing separator. `invalid_input` otherwise.
 */
export function transformersModelDir(path: string): string {
  if (!path.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(path)) {
    throw new MemaError("invalid_input", `modelDir must be an absolute path, got "${path}"`, {
      field: "modelDir",
      hint: "a relative path would be read as a Hugging Face repo id by transformers.js",
    });
  }
  return path.length > 1 ? path.replace(/[\\/]+$/, "") : path;
}
