/**
 * Conflict neighbours by meaning: the semantic index answers "which active memories are near
 * this text" for detection, with the same filters and relevance floor as `find`.
 *
 * @example
 * ```ts
 * import { semanticNeighbours } from "./src/conflicts/neighbours.ts";
 * // const vectors = semanticNeighbours(store, semantic);
 * // await vectors.near("The cache TTL is 5 minutes.", ["atlas", "default"]);
 * ```
 * @module
 */
import type { SemanticIndex } from "../evidence/semantic.ts";
import { DEFAULT_SIMILARITY_FLOOR } from "../recall/constants.ts";
import { vectorCandidates } from "../recall/vector.ts";
import type { Store } from "../store/mod.ts";
import type { VectorNeighbours } from "./detect.ts";

/** Vector neighbours from the semantic index; answers [] while the index is not searchable. */
export function semanticNeighbours(store: Store, semantic: SemanticIndex): VectorNeighbours {
  return {
    async near(text, workspaces) {
      const vector = await semantic.embedQuery(text);
      if (!vector) return [];
      const floor = semantic.similarityFloor ?? DEFAULT_SIMILARITY_FLOOR;
      const hits = store.read(() =>
        vectorCandidates(store, vector, {
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
