/**
 * Which retrieval capability is in force and what is missing (docs/SPEC.md §7's
 * degradation chain), in words that say how to fix it. `degraded` is true only when something
 * the configuration asks for is unavailable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeCapabilities } from "./mod.ts";
 *
 * // FTS5 and no embedding model configured: lexical recall, a choice rather than a fault.
 * const state = describeCapabilities({ fts: true, vec: false });
 * assert.equal(state.mode, "lexical");
 * assert.equal(state.degraded, false);
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
  /**
   * The warnings among `warnings` that stand for the life of the process (a choice of
   * configuration, not a fault in progress): a connection is told them once, and `status`
   * always lists them.
   */
  standing?: string[];
}

/** Warning shown while no embedding model is part of the build. */
export const NO_EMBEDDING_WARNING =
  "semantic recall is off: no embedding model is configured, so find matches words, not meaning";

/** The vector side's state, as the semantic index reports it. */
export interface VectorCapability {
  state: "off" | "unavailable" | "mismatch" | "indexing" | "ready";
  /**
   * True when find uses the vector channel (ready, or filling but covering enough of the
   * library); a filling index below that leaves `mode` lexical.
   */
  searchable: boolean;
  /** The vector copy is still loading: the vector channel searches part of the vectors. */
  partial?: { loaded: number; total: number };
  warning?: string;
  fix?: string;
}

/** The conflict judge's state (src/conflicts/judge_state.ts `JudgeReport`). */
export interface JudgeCapability {
  state: "off" | "ready" | "unavailable";
  warning?: string;
  fix?: string;
}

/** Describes the capabilities of an open store, its vector index and the conflict judge. */
export function describeCapabilities(
  store: StoreCapabilities,
  vector?: VectorCapability,
  judge?: JudgeCapability,
): CapabilityState {
  const warnings: string[] = [];
  const standing: string[] = [];
  // A configured judge that cannot be used is said on every response, not only on stderr.
  if (judge?.state === "unavailable" && judge.warning) {
    warnings.push(judge.fix ? `${judge.warning} (fix: ${judge.fix})` : judge.warning);
  }
  if (store.readOnly) {
    warnings.push(
      `the database is read-only (${store.readOnly}): find and read work; remember and update are saved to the JSONL backup (mode "jsonl_backup") and other changes fail. Make it writable, restart mema, then run memory_repair {"task": "replay_backup"}`,
    );
  } else if (store.unreachable) {
    warnings.push(
      `the database cannot be reached (${store.unreachable}): find and read fail; remember and update are saved to the local JSONL backup (mode "jsonl_backup") and other changes fail. This server replays the saved writes by itself once the database answers again`,
    );
  } else if (store.unwritable) {
    warnings.push(
      `the database cannot be written (${store.unwritable}): find and read work; remember and update are saved to the JSONL backup (mode "jsonl_backup") and other changes fail, until a write succeeds again. Free disk space or make the file system writable, then run memory_repair {"task": "replay_backup"}`,
    );
  }
  if (!store.fts) {
    warnings.push(
      "the full-text index (FTS5) is unavailable in this SQLite build: recall uses slow LIKE matching",
    );
  }
  // Hybrid only once vectors cover the library: an index still filling searches a fraction
  // of it by meaning while claiming to search all of it.
  const hybrid = vector?.searchable === true &&
    (vector.state === "ready" || vector.state === "indexing");
  // The semantic index words its own sqlite-vec problem when a model is configured.
  if (!store.vec && (vector === undefined || vector.state === "off")) {
    const warning = `the sqlite-vec extension did not load (${
      store.vecError ?? "unknown error"
    }): vector recall is unavailable; run \`mema doctor\` for the cause`;
    warnings.push(warning);
    standing.push(warning);
  }
  if (vector === undefined) {
    warnings.push(NO_EMBEDDING_WARNING);
    standing.push(NO_EMBEDDING_WARNING);
  } else if (vector.warning) {
    const warning = vector.fix ? `${vector.warning} (fix: ${vector.fix})` : vector.warning;
    warnings.push(warning);
    // No model configured is a standing choice; the other vector states change as it works.
    if (vector.state === "off") standing.push(warning);
  }
  // docs/SPEC.md §7: the last step of the chain shows in `mode` on every answer while writes go to
  // the backup; the warnings still say how recall works.
  const mode: RetrievalCapability = unwritableReason(store) !== undefined
    ? "jsonl_backup"
    : hybrid
    ? "hybrid"
    : store.fts
    ? "lexical"
    : "like";
  // `degraded` means something the configuration asks for is unavailable. Lexical recall with
  // no embedding model configured is a choice the user made (`mode` says "lexical" and the
  // standing warning how to turn meaning on), not a fault; a configured model that cannot
  // search (missing, mismatched, sqlite-vec absent, still filling or loading), no FTS, an
  // unwritable database or a configured judge that cannot run are.
  const vectorsWanted = vector !== undefined && vector.state !== "off";
  const degraded =
    (vectorsWanted && (!hybrid || vector.state === "indexing" || vector.partial !== undefined)) ||
    !store.fts ||
    unwritableReason(store) !== undefined || judge?.state === "unavailable";
  return { mode, degraded, warnings, standing };
}

/**
 * Why the database cannot take writes now (opened read-only, a database server that cannot be
 * reached, or the last write failed for a storage reason), or undefined when it can.
 */
export function unwritableReason(store: StoreCapabilities): string | undefined {
  return store.readOnly ?? store.unreachable ?? store.unwritable;
}
