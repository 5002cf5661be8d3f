/**
 * The `memory_review` view `clusters` (issue 39): a bird's-eye view of a workspace (or the
 * library) as k topics, each labelled with its most telling words as the memories spell them,
 * with its size and a few sample memories. Offline and deterministic: clustered by
 * src/views/topic_clusters.ts on the built-in embedding model's vectors when it is set up and
 * ready (a downloaded model would take too long for thousands of texts), else on the words'
 * tf-idf weights; labels always come from the words. A large library is sampled: the
 * {@linkcode CLUSTER_SAMPLE} newest active memories, and the answer says so.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { clustersView } from "./clusters.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * for (const content of ["Deploys run on Fridays.", "Staging deploys run nightly."]) {
 *   await rememberMemory(ctx, { content, subject: "deploys", workspace: "infra" });
 * }
 * const view = await clustersView(ctx, { k: 2, workspace: "infra" });
 * assert.equal(view.memories, 2);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import type { ServiceContext } from "../core/context.ts";
import { prefixByUnits } from "../text/code_points.ts";
import { digestScope } from "./context_digest.ts";
import { SAMPLE_IDS, topicClusters } from "./topic_clusters.ts";

/** Topics asked for by default. */
export const CLUSTERS_K_DEFAULT = 6;
/** Most topics one answer holds (each is a few words and ids: the answer stays small). */
export const CLUSTERS_K_MAX = 20;
/**
 * Memories clustered at most: the newest active ones. 3,000 keeps the view far inside its
 * 5-second bound at 100k memories (docs/benchmarks.md "Topic clusters") and still has room for
 * 20 topics of a hundred memories each.
 */
export const CLUSTER_SAMPLE = 3_000;
/**
 * Memories clustered on the built-in model's vectors at most: embedding and clustering 100-dimension
 * vectors cost ~4 s for 3,000 on the loaded test machine (docs/benchmarks.md "Topic clusters"),
 * too close to the 5-second bound; half as many keep it well inside.
 */
export const CLUSTER_SAMPLE_VECTORS = 1_500;
/** Characters of a memory's text the words are taken from (the head says what it is about). */
const TEXT_CHARS = 2_000;
/** Characters of a sample memory's subject shown. */
const SUBJECT_PREVIEW = 80;

/** One topic of the view. */
export interface ClusterView {
  /** The most telling words, best first, joined: "deploy, staging, pipeline". */
  label: string;
  words: string[];
  /** Memories of the sample in it. */
  size: number;
  /** Its share of the clustered memories (0–1, two decimals). */
  share: number;
  samples: { id: number; subject: string }[];
}

/** The clusters view. */
export interface ClustersView {
  workspace: string | null;
  k: number;
  /** Active memories in scope. */
  memories: number;
  /** Memories clustered: all of them, or the newest {@linkcode CLUSTER_SAMPLE}. */
  clustered: number;
  sampled: boolean;
  /** What the topics were found on: the built-in model's vectors, or the words' weights. */
  basis: "vectors" | "words";
  clusters: ClusterView[];
  /** Memories without a word that tells topics apart (too short, or only common words). */
  unclustered: number;
}

/** `k` topics of the active memories of `workspace` (default: the caller's scope). */
export async function clustersView(
  ctx: ServiceContext,
  options: { k?: number; workspace?: string } = {},
): Promise<ClustersView> {
  const k = options.k ?? CLUSTERS_K_DEFAULT;
  if (!Number.isInteger(k) || k < 2 || k > CLUSTERS_K_MAX) {
    throw new MemaError("invalid_input", `k must be an integer from 2 to ${CLUSTERS_K_MAX}`, {
      field: "k",
    });
  }
  const { workspace, scope } = digestScope(ctx, options.workspace);
  const filters = { statuses: ["active" as const], ...scope };
  const { store } = ctx;
  const { total, records } = await store.read(async () => {
    const ids = await store.browse(filters, { limit: CLUSTER_SAMPLE, offset: 0 });
    const found = await store.getMemories(ids);
    const total = ids.length < CLUSTER_SAMPLE ? ids.length : await store.countFiltered(filters);
    return { total, records: ids.flatMap((id) => found.get(id) ?? []) };
  });
  // Id order, so the same library always clusters the same way.
  records.sort((a, b) => a.id - b.id);
  const subjects = new Map(records.map((m) => [m.id, m.subject]));
  let texts = records.map((m) => ({
    id: m.id,
    text: `${m.subject}\n${m.tags.join(" ")}\n${prefixByUnits(m.content, TEXT_CHARS)}`,
  }));
  // A built-in model's vectors when one is set up and ready (for the newest
  // CLUSTER_SAMPLE_VECTORS); the words' weights otherwise.
  let dense: Float32Array[] | undefined;
  if (ctx.semantic && texts.length > 0) {
    const newest = texts.slice(-CLUSTER_SAMPLE_VECTORS);
    dense = await ctx.semantic.embedForView(newest.map((t) => t.text));
    if (dense) texts = newest;
  }
  const result = topicClusters(texts, k, { dense });
  const clustered = texts.length;
  return {
    workspace: workspace ?? null,
    k,
    basis: dense ? "vectors" : "words",
    memories: total,
    clustered,
    sampled: clustered < total,
    unclustered: result.unclustered.length,
    clusters: result.clusters.map((cluster) => ({
      label: cluster.words.join(", "),
      words: cluster.words,
      size: cluster.ids.length,
      share: Math.round((cluster.ids.length / Math.max(1, clustered)) * 100) / 100,
      samples: cluster.ids.slice(0, SAMPLE_IDS).map((id) => {
        const subject = subjects.get(id) ?? "";
        return {
          id,
          subject: subject.length > SUBJECT_PREVIEW
            ? `${prefixByUnits(subject, SUBJECT_PREVIEW)}…`
            : subject,
        };
      }),
    })),
  };
}
