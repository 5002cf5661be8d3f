/**
 * Loading a serving process's copy of the vectors in the background (issue 38). The copy that
 * answers nearest-row lookups (src/store/vector_mirror.ts, src/store/postgres/vector_copy.ts)
 * costs ~2 µs a vector to load, ~2.5 s of CPU at a million memories: loaded at the first hybrid
 * `find`, that call paid all of it. A serving process loads it a page at a time instead, giving
 * requests a turn between pages; until the last page, `find` ranks by meaning among the vectors
 * loaded so far (and by words among every memory), and every answer says so
 * (`SemanticIndex.describe`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openStore } from "../store/mod.ts";
 * import { loadVectorCopyInPages } from "./vector_copy_load.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * // A library without vectors has nothing to load.
 * const load = await loadVectorCopyInPages(store, {
 *   between: () => Promise.resolve(),
 *   stopped: () => false,
 * });
 * assert.equal(load.complete, true);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { Store, VectorCopyLoad } from "../store/mod.ts";
import { servingRequests } from "../jobs/activity.ts";
import { VECTOR_COPY_PAGE_VECTORS, VECTOR_COPY_SLICE_MS } from "./constants.ts";

/** How the background load shares the thread. */
export interface VectorCopyLoadOptions {
  /** Gives requests a turn between two slices. */
  between: () => Promise<void>;
  stopped: () => boolean;
  /**
   * How long a slice of pages runs (0: one page); by default {@linkcode VECTOR_COPY_SLICE_MS},
   * or one page while requests come back to back.
   */
  sliceMs?: number;
}

/**
 * Loads the copy a page ({@linkcode VECTOR_COPY_PAGE_VECTORS} vectors) at a time, calling
 * `between` after each slice of pages, until it is complete or `stopped` says so; resolves with
 * how far it got.
 */
export async function loadVectorCopyInPages(
  store: Store,
  options: VectorCopyLoadOptions,
): Promise<VectorCopyLoad> {
  for (;;) {
    // While calls come back to back, one page between two of them (as the job worker runs one
    // job): each waits for at most one page, and the load still moves a page per call.
    const sliceMs = options.sliceMs ?? (servingRequests() ? 0 : VECTOR_COPY_SLICE_MS);
    const sliceStart = performance.now();
    let load: VectorCopyLoad;
    do {
      load = await store.loadVectorCopyPage(VECTOR_COPY_PAGE_VECTORS);
    } while (!load.complete && performance.now() - sliceStart < sliceMs);
    if (load.complete || options.stopped()) return load;
    await options.between();
  }
}

/** The words every answer carries while the copy loads (`loaded` of `total` vectors). */
export function copyLoadWarning(load: { loaded: number; total: number }): string {
  return `semantic recall is starting: ${load.loaded} of ${load.total} vectors loaded into ` +
    "memory; until all are, find ranks by meaning among those (words still search every memory)";
}
