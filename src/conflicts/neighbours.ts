/**
 * Conflict neighbours by meaning: the semantic index answers "which active memories are near
 * this text" for detection, with the same filters and relevance floor as `find`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SemanticIndex } from "../evidence/semantic.ts";
 * import { semanticNeighbours } from "./neighbours.ts";
 * import { openStore } from "../store/mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * // No embedding model configured: there are no neighbours by meaning, only by words.
 * const semantic = new SemanticIndex(store, { modelsDir: `${dir}/models` });
 * const vectors = semanticNeighbours(store, semantic);
 * assert.deepEqual(await vectors.near("The cache TTL is 5 minutes.", ["atlas", "default"]), []);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import type { SemanticIndex } from "../evidence/semantic.ts";
import { DEFAULT_SIMILARITY_FLOOR } from "../recall/constants.ts";
import { vectorCandidates } from "../recall/vector.ts";
import type { Store } from "../store/mod.ts";
import type { VectorNeighbours } from "./detect.ts";
import {
  DETECT_BACKLOG_RECOUNT_MS,
  DETECT_BATCH_JOB_KIND,
  DETECT_JOB_KIND,
  DETECT_PLAN_JOB_KIND,
  DETECT_UNPLANNED_JOB_KIND,
  DETECT_VECTOR_BACKLOG_MAX,
} from "./constants_pipeline.ts";

/**
 * Vector neighbours from the semantic index; answers [] while the index is not searchable, and
 * while a bulk import's checks wait ({@linkcode DETECT_VECTOR_BACKLOG_MAX}).
 */
export function semanticNeighbours(store: Store, semantic: SemanticIndex): VectorNeighbours {
  let counted = Number.NEGATIVE_INFINITY;
  let backlog = 0;
  const bulkBacklog = async () => {
    if (performance.now() - counted >= DETECT_BACKLOG_RECOUNT_MS) {
      counted = performance.now();
      const jobs = await store.read(async () => await store.countJobs());
      // A waiting batch check (an import's chunk) stands for a bulk import on its own.
      const batches = (jobs[DETECT_BATCH_JOB_KIND]?.pending ?? 0) +
        (jobs[DETECT_PLAN_JOB_KIND]?.pending ?? 0) + (jobs[DETECT_PLAN_JOB_KIND]?.running ?? 0) +
        (jobs[DETECT_UNPLANNED_JOB_KIND]?.pending ?? 0);
      backlog = (jobs[DETECT_JOB_KIND]?.pending ?? 0) +
        (batches > 0 ? DETECT_VECTOR_BACKLOG_MAX + 1 : 0);
    }
    return backlog > DETECT_VECTOR_BACKLOG_MAX;
  };
  return {
    searchable: () => semantic.searchable(),
    async near(text, workspaces) {
      if (await bulkBacklog()) return [];
      if ((await semantic.searchable())) await semantic.awaitQuietLoad();
      // A model server that is out leaves the check to its lexical neighbours, not to a retry.
      const vector = await semantic.embedQuery(text).catch((error) => {
        if (error?.code === "provider_unavailable") return undefined;
        throw error;
      });
      if (!vector) return [];
      // A check runs once per write: it waits for every vector, not the part loaded so far.
      await semantic.vectorCopyLoaded();
      const floor = semantic.similarityFloor ?? DEFAULT_SIMILARITY_FLOOR;
      const hits = await store.read(async () =>
        await vectorCandidates(store, vector, {
          filters: { statuses: ["active"], workspaces },
          floor,
        })
      );
      const span = Math.max(1e-6, 1 - floor);
      return hits.map((hit) => ({
        memoryId: hit.memoryId,
        similarity: Math.max(0, (hit.cosine - floor) / span),
      }));
    },
  };
}
