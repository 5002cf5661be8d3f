/**
 * Which retrieval capability is in force and what is missing (SPEC §7's
 * degradation chain), in words that say how to fix it.
 *
 * @example
 * ```ts
 * import { describeCapabilities } from "./src/capabilities/mod.ts";
 * // describeCapabilities(store.capabilities).mode === "lexical"
 * ```
 * @module
 */
import type { StoreCapabilities } from "../store/mod.ts";

/** The envelope's `mode` values. */
export type RetrievalCapability = "hybrid" | "lexical" | "like" | "jsonl_backup";

/** The state every response reports. */
export interface CapabilityState {
  mode: RetrievalCapability;
  degraded: boolean;
  warnings: string[];
}

/** Warning shown while no embedding model is part of the build. */
export const NO_EMBEDDING_WARNING =
  "semantic recall is off: no embedding model is configured, so find matches words, not meaning";

/** Describes the capabilities of an open store. */
export function describeCapabilities(store: StoreCapabilities): CapabilityState {
  const warnings: string[] = [];
  if (!store.fts) {
    warnings.push(
      "the full-text index (FTS5) is unavailable in this SQLite build: recall uses slow LIKE matching",
    );
  }
  if (!store.vec) {
    warnings.push(
      `the sqlite-vec extension did not load (${
        store.vecError ?? "unknown error"
      }): vector recall is unavailable; run \`mema doctor\` for the cause`,
    );
  }
  warnings.push(NO_EMBEDDING_WARNING);
  const mode: RetrievalCapability = store.fts ? "lexical" : "like";
  return { mode, degraded: true, warnings };
}
