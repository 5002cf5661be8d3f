/**
 * The built-in static embedding model for benchmarks that measure hybrid recall: built once
 * into a models directory the benchmark owns, then passed to servers as `MEMA_MODELS_DIR`.
 *
 * @example
 * ```ts
 * import { ensureStaticModel, STATIC_MODEL_ID } from "./bench/helpers/static_model.ts";
 * await ensureStaticModel("/tmp/models");
 * const env = { MEMA_EMBEDDING_MODEL: STATIC_MODEL_ID, MEMA_MODELS_DIR: "/tmp/models" };
 * ```
 * @module
 */
import { buildStaticModel } from "../../src/models/static_model.ts";

/** The model id hybrid benchmarks configure (`MEMA_EMBEDDING_MODEL`). */
export const STATIC_MODEL_ID = "static-wink-100d";

/** Builds the static model into `modelsDir` unless it is already there. */
export async function ensureStaticModel(modelsDir: string): Promise<void> {
  try {
    Deno.statSync(`${modelsDir}/${STATIC_MODEL_ID}/onnx/model.onnx`);
  } catch {
    console.error(`building ${STATIC_MODEL_ID} in ${modelsDir}`);
    await buildStaticModel(`${modelsDir}/${STATIC_MODEL_ID}`);
    // Its ~30 MB reach the disk now, not while the first server's writes are being timed (the
    // writeback competed with their syncs: the first system measured fewer memories/s).
    syncTree(`${modelsDir}/${STATIC_MODEL_ID}`);
  }
}

function syncTree(dir: string): void {
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) syncTree(path);
    else if (entry.isFile) {
      const file = Deno.openSync(path, { read: true, write: true });
      try {
        file.syncSync();
      } finally {
        file.close();
      }
    }
  }
}
