/**
 * The vector side of evidence: which embedding space the index holds, whether
 * it matches the configured model (docs/SPEC.md §7 `mismatch`), embedding rows that
 * lack vectors (a durable job), rebuilding after a model change, and query
 * embeddings for recall. The model loads lazily, never during the handshake. With an
 * `embedding_provider` the vectors come from the user's model server instead
 * (models/provider_embedder.ts); while it is out, the index says so and is not searched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SemanticIndex } from "./semantic.ts";
 * import { openStore } from "../store/mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const semantic = new SemanticIndex(store, { modelsDir: `${dir}/models` });
 * assert.equal((await semantic.describe()).state, "off"); // no embedding model configured
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { BoundedMap } from "../platform/bounded_map.ts";
import { logWarn } from "../platform/log.ts";
import { MemaError } from "../errors/mod.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { untilQuiet } from "../jobs/activity.ts";
import { yieldToRequests } from "../jobs/worker.ts";
import {
  type LocatedModel,
  locateEmbeddingModel,
  type OpenedModel,
  openEmbeddingModel,
} from "../models/embedding_model.ts";
import type { EvidenceRowRecord, Store, VectorCopyLoad } from "../store/mod.ts";
import type { EmbeddingProviderConfig } from "../config/embedding_provider.ts";
import { createProviderEmbedder, type ProviderEmbedder } from "../models/provider_embedder.ts";
import {
  openProviderModel,
  outageWarning,
  providerLocation,
  providerModelId,
  withinQueryTimeout,
} from "../models/provider_model.ts";
import { embeddingChunks } from "./chunks.ts";
import { hasDirection } from "../models/vectors.ts";
import {
  DESCRIBE_CACHE_MS,
  DESCRIBE_COST_FACTOR,
  EMBED_BATCH_ROWS,
  EMBED_JOB_KIND,
  HYBRID_MIN_COVERAGE,
  MODEL_LOAD_QUIET_MAX_MS,
  QUERY_WORD_ROWS_MAX,
  REBUILD_DEDUPE_KEY,
  REBUILD_JOB_KIND,
  VECTOR_COPY_PAGE_VECTORS,
} from "./constants.ts";
import { refreshEvidence } from "./rows.ts";
import {
  copyLoadWarning,
  loadVectorCopyInPages,
  type VectorCopyLoadOptions,
} from "./vector_copy_load.ts";

/** Vector recall's state, the last step of doctor's vector chain. */
export type VectorState = "off" | "unavailable" | "mismatch" | "indexing" | "ready";

/** What status, doctor and the envelope report. */
export interface SemanticReport {
  state: VectorState;
  modelId?: string;
  space?: string;
  indexedSpace?: string;
  rows: number;
  embeddedRows: number;
  /**
   * True when `find` uses the vector channel: the index is ready, or still filling but with at
   * least {@linkcode HYBRID_MIN_COVERAGE} of the rows embedded. `mode` is `hybrid` only then.
   */
  searchable: boolean;
  /**
   * A rebuild after a model change that has not finished: the space it replaces, and rows
   * embedded of rows in the new one (while `mismatch`, the switch itself is still to come).
   */
  rebuild?: { fromSpace: string; done: number; total: number };
  /**
   * The process's vector copy is still loading in the background: `find` ranks by meaning
   * among the `loaded` of `total` vectors (src/evidence/vector_copy_load.ts).
   */
  partial?: { loaded: number; total: number };
  warning?: string;
  fix?: string;
}

/** Settings for {@linkcode SemanticIndex}. */
export interface SemanticConfig {
  modelId?: string;
  modelsDir: string;
  manifestPath?: string;
  /** The user's model server; replaces `modelId` when set. */
  provider?: EmbeddingProviderConfig;
  /**
   * A serving process: a stale state is answered as it was and recounted on a timer after the
   * call, never on a request's own time (the counts grow with the rows: ~4–20 ms at 100k).
   */
  recountAfterCalls?: boolean;
  /**
   * A serving process: when the configured model's space is not the index's, queue the
   * background rebuild (src/evidence/worker.ts) instead of waiting for `rebuild_evidence`.
   */
  rebuildOnModelChange?: boolean;
}

const SPACE_KEY = "embedding_space";
/**
 * The space a rebuild replaces, kept until the new space is filled: meanwhile `find` stays
 * lexical (a half-filled index would rank only the rows it holds) and every answer says how
 * far the rebuild is. Empty once it is done (the store has no delete for meta keys).
 */
const REBUILD_FROM_KEY = "embedding_rebuild_from";

/** The embedding space id: model, dimension and a fingerprint of the weights. */
export function spaceId(
  model: { entry: { id: string }; dim: number; fingerprint: string },
): string {
  return `${model.entry.id}:${model.dim}:${model.fingerprint}`;
}

/** Owns the embedder and the vector index state of one store. */
export class SemanticIndex {
  readonly #store: Store;
  readonly #config: SemanticConfig;
  #located?: LocatedModel;
  #locateError?: string;
  /** The model id in force: the manifest's, or `provider:<model>` for a model server. */
  readonly #modelId?: string;
  readonly #provider?: ProviderEmbedder;
  #opened?: Promise<OpenedModel>;
  #space?: string;
  #described?: { at: number; report: SemanticReport };
  /** How long a counted state is answered before it is counted again (grows with its cost). */
  #describeEvery = DESCRIBE_CACHE_MS;
  #recount: ReturnType<typeof setTimeout> | undefined;
  /**
   * Every memory has rows of its current version. Every write path writes rows in the same
   * transaction, so once a scan finds none missing it stays true for this process; the scan
   * is O(memories) (40 ms at 100k) and rebuild_evidence used to run it three times a call.
   */
  #rowsComplete = false;
  /** This process queued the rebuild once already (the job itself dedupes while pending). */
  #rebuildQueued = false;
  /** How the copy's background load shares the thread, once started ({@link startVectorCopyLoad}). */
  #copyLoadOptions: VectorCopyLoadOptions | undefined;
  /** The background load's pages while they run. */
  #copyLoading: Promise<VectorCopyLoad> | undefined;

  constructor(store: Store, config: SemanticConfig) {
    this.#store = store;
    this.#config = config;
    if (config.provider) {
      this.#provider = createProviderEmbedder(config.provider);
      this.#located = providerLocation(config.provider);
      this.#modelId = providerModelId(config.provider);
    } else if (config.modelId) {
      this.#modelId = config.modelId;
      try {
        this.#located = locateEmbeddingModel({
          modelId: config.modelId,
          modelsDir: config.modelsDir,
          manifestPath: config.manifestPath,
        });
      } catch (error) {
        this.#locateError = error instanceof MemaError ? error.reason : String(error);
      }
    }
  }

  /** The configured model's similarity floor (cosine), if the manifest gives one. */
  get similarityFloor(): number | undefined {
    return this.#located?.entry.similarity_floor;
  }

  /**
   * Cheap state for every response; never loads the model. The row counts behind
   * it are kept {@linkcode DESCRIBE_CACHE_MS}, or {@linkcode DESCRIBE_COST_FACTOR} times what
   * counting took if longer; with `recountAfterCalls`, a stale state is answered and recounted
   * after the call.
   */
  async describe(): Promise<SemanticReport> {
    return await this.#withCopyLoad(this.#withOutage(await this.#describeCached()));
  }

  /**
   * Starts loading this process's vector copy in the background (a serving process, at its
   * start; src/evidence/vector_copy_load.ts): from the moment this resolves, lookups answer
   * from the vectors loaded so far instead of loading them all, and the pages follow between
   * requests, `between` after each slice. {@link describe} says how far it is.
   */
  async startVectorCopyLoad(options: VectorCopyLoadOptions): Promise<void> {
    if (this.#copyLoadOptions !== undefined || !(await this.usable())) return;
    this.#copyLoadOptions = options;
    // No page yet (a count and an allocation): the pages wait for the handshake's turn.
    const started = await this.#store.loadVectorCopyPage(0);
    if (!started.complete) this.#runCopyLoad();
  }

  /** Runs the background load's pages, unless they run already or the process stops. */
  #runCopyLoad(): void {
    const options = this.#copyLoadOptions;
    if (options === undefined || this.#copyLoading !== undefined || options.stopped()) return;
    const loading = (async () => {
      await options.between();
      return await loadVectorCopyInPages(this.#store, options);
    })();
    this.#copyLoading = loading;
    loading.catch((error) => {
      if (!options.stopped()) logWarn(`the vector copy did not load: ${error}`);
    }).finally(() => this.#copyLoading = undefined);
  }

  /** The background load's pages, while they run (a stopping process waits for them). */
  get vectorCopyLoading(): Promise<VectorCopyLoad> | undefined {
    return this.#copyLoading;
  }

  /**
   * Resolves once this process's copy holds every vector, when it loads in the background:
   * for background work whose lookups must see them all (a conflict check runs once a write).
   */
  async vectorCopyLoaded(): Promise<void> {
    await this.#copyLoading?.catch(() => {});
    if (this.#copyLoadOptions === undefined) return;
    if ((await this.#store.vectorCopyLoad()).complete) return;
    this.#runCopyLoad();
    await this.#copyLoading?.catch(() => {});
  }

  /**
   * How far this process's copy is loaded; a copy of one page at most (a small library) is
   * read now, in a few milliseconds, rather than answering from part of it until the background
   * load's turn comes.
   */
  async #smallCopyLoaded(): Promise<VectorCopyLoad> {
    const load = await this.#store.vectorCopyLoad();
    if (load.complete || this.#copyLoadOptions === undefined) return load;
    if (load.total > VECTOR_COPY_PAGE_VECTORS) return load;
    return await this.#store.loadVectorCopyPage(VECTOR_COPY_PAGE_VECTORS);
  }

  /**
   * While the copy loads in the background, the vector channel searches part of the vectors:
   * `partial`, and a warning with the progress. Not cached: the progress moves between calls.
   */
  async #withCopyLoad(report: SemanticReport): Promise<SemanticReport> {
    if (this.#copyLoadOptions === undefined || !report.searchable) return report;
    const load = await this.#smallCopyLoaded();
    if (load.complete) return report;
    // Pages that stopped short (an error) start again.
    this.#runCopyLoad();
    const progress = copyLoadWarning(load);
    const warning = report.warning ? `${report.warning}; ${progress}` : progress;
    return { ...report, partial: { loaded: load.loaded, total: load.total }, warning };
  }

  /**
   * While the model server is out, find cannot embed its query: the vector channel is off
   * (not `searchable`) and every answer says why, until a call succeeds again. Not cached: it
   * changes with the server, and reading it costs nothing.
   */
  #withOutage(report: SemanticReport): SemanticReport {
    const outage = this.#provider ? outageWarning(this.#provider) : undefined;
    if (!outage || (report.state !== "ready" && report.state !== "indexing")) return report;
    // A rebuild's progress stays in the warning: the outage is why it is not moving.
    const warning = report.rebuild ? `${outage.warning}; ${report.warning}` : outage.warning;
    return { ...report, searchable: false, ...outage, warning };
  }

  async #describeCached(): Promise<SemanticReport> {
    const described = this.#described;
    if (described && Date.now() - described.at < this.#describeEvery) return described.report;
    if (described && this.#config.recountAfterCalls) {
      this.#recount ??= setTimeout(() => {
        this.#recount = undefined;
        this.#countNow().catch(() => {
          // The store closed meanwhile; a later call counts again.
        });
      }, 0);
      return described.report;
    }
    return await this.#countNow();
  }

  /** Counts the state now and keeps it; an expensive count is kept longer. */
  async #countNow(): Promise<SemanticReport> {
    const started = performance.now();
    const report = await this.#describeNow();
    this.#describeEvery = Math.max(
      DESCRIBE_CACHE_MS,
      (performance.now() - started) * DESCRIBE_COST_FACTOR,
    );
    this.#described = { at: Date.now(), report };
    return report;
  }

  /** Forgets the cached state (after a rebuild or a change of space). */
  invalidate(): void {
    this.#described = undefined;
  }

  async #describeNow(): Promise<SemanticReport> {
    const store = this.#store;
    const indexedSpace = await store.getMeta(SPACE_KEY);
    if (!this.#modelId) {
      // No model: nothing to count (every response reads this state).
      return {
        rows: 0,
        embeddedRows: 0,
        indexedSpace,
        searchable: false,
        state: "off",
        warning:
          "semantic recall is off: no embedding model is configured, so find matches words, not meaning",
        fix:
          "run `mema setup --model static-wink-100d` (offline) or `mema setup --install` (multilingual-e5-small)",
      };
    }
    const modelId = this.#modelId;
    const toEmbed = await store.countRowsToEmbed(indexedSpace);
    const counts = { rows: toEmbed.rows, embedded: toEmbed.rows - toEmbed.pending };
    const base = {
      rows: counts.rows,
      embeddedRows: counts.embedded,
      indexedSpace,
      searchable: false,
    };
    if (this.#locateError || !this.#located?.available) {
      return {
        ...base,
        state: "unavailable",
        modelId,
        warning: `semantic recall is unavailable: ${
          this.#locateError ?? this.#located?.problem?.reason
        }`,
        fix: this.#located?.problem?.fix ??
          "check embedding_model or embedding_provider in the config file",
      };
    }
    if (!store.capabilities.vec) {
      return {
        ...base,
        state: "unavailable",
        modelId,
        warning:
          `semantic recall is unavailable: sqlite-vec did not load (${store.capabilities.vecError})`,
        fix: "run `mema doctor` for the cause",
      };
    }
    const expected = this.#space;
    // A model server's dimension may be known only from its first answer.
    const dim = this.#located.entry.dim;
    const prefix = dim === undefined ? `${modelId}:` : `${modelId}:${dim}:`;
    const matches = indexedSpace !== undefined &&
      (expected ? indexedSpace === expected : indexedSpace.startsWith(prefix));
    if (indexedSpace !== undefined && !matches) {
      return {
        ...base,
        state: "mismatch",
        modelId,
        space: expected,
        rebuild: { fromSpace: indexedSpace, done: 0, total: counts.rows },
        warning:
          `the vector index was built with ${indexedSpace}, not the configured ${modelId}: it is rebuilt in the background (0/${counts.rows} rows embedded); find matches words, not meaning, until it completes`,
        // A serving process has queued the rebuild: nothing for the user to do.
        fix: this.#config.rebuildOnModelChange
          ? undefined
          : 'start `mema serve` (it rebuilds by itself) or run memory_repair {"task": "rebuild_evidence"}',
      };
    }
    const rebuildFrom = counts.embedded < counts.rows
      ? await store.getMeta(REBUILD_FROM_KEY)
      : undefined;
    if (rebuildFrom) {
      const done = `${counts.embedded}/${counts.rows}`;
      return {
        ...base,
        state: "indexing",
        modelId,
        space: expected ?? indexedSpace,
        rebuild: { fromSpace: rebuildFrom, done: counts.embedded, total: counts.rows },
        warning:
          `the vector index is being rebuilt for ${modelId} after a model change (${done} rows embedded); find matches words, not meaning, until it completes`,
      };
    }
    if (indexedSpace === undefined || counts.embedded < counts.rows) {
      // An empty library is covered; an unclaimed index with rows has nothing embedded yet.
      const searchable = counts.rows === 0 ||
        (indexedSpace !== undefined && counts.embedded >= HYBRID_MIN_COVERAGE * counts.rows);
      const progress =
        `semantic index building: ${counts.embedded} of ${counts.rows} rows embedded`;
      return {
        ...base,
        state: "indexing",
        modelId,
        space: expected ?? indexedSpace,
        searchable,
        warning: counts.rows === 0
          ? undefined
          : searchable
          ? progress
          : `${progress}; find matches words, not meaning, until ${
            Math.round(HYBRID_MIN_COVERAGE * 100)
          }% are`,
      };
    }
    return { ...base, state: "ready", modelId, space: indexedSpace, searchable: true };
  }

  /** True when the model and index can be used: rows may be embedded (ready, or filling). */
  async usable(): Promise<boolean> {
    const state = (await this.describe()).state;
    return state === "ready" || state === "indexing";
  }

  /** True when find may use the vector channel (see {@linkcode SemanticReport.searchable}). */
  async searchable(): Promise<boolean> {
    return (await this.describe()).searchable;
  }

  /**
   * For background work about to use the model: when it is not loaded yet, waits for a pause in
   * requests first (at most {@linkcode MODEL_LOAD_QUIET_MAX_MS}), so the load does not hold calls
   * that arrive back to back. Never call it on a request's own path (it would wait for itself).
   */
  async awaitQuietLoad(): Promise<void> {
    if (this.#opened === undefined && this.#located) await untilQuiet(MODEL_LOAD_QUIET_MAX_MS);
  }

  /**
   * Opens the local model ahead of the first query (a serving process, once requests pause),
   * which would otherwise wait for it: ~0.34 s for the static model on a loaded machine. A
   * model server is not asked anything.
   */
  async openForQueries(): Promise<void> {
    if (this.#provider || !(await this.searchable())) return;
    await this.awaitQuietLoad();
    await this.#model();
  }

  /** Opens the local model, or asks the model server its dimension. */
  #open(): Promise<OpenedModel> {
    return this.#provider
      ? openProviderModel(this.#provider, this.#config.provider!)
      : openEmbeddingModel(this.#located!);
  }

  /** Loads the model once; the first load also claims an empty index for its space. */
  async #model(): Promise<OpenedModel> {
    if (!this.#located) throw new MemaError("not_found", "no embedding model is configured");
    this.#opened ??= this.#open().catch((error) => {
      this.#opened = undefined;
      throw error;
    });
    const model = await this.#opened;
    if (this.#space === undefined) {
      const space = spaceId(model);
      this.#space = space;
      // An empty index belongs to the first model that uses it; a different recorded space is
      // a mismatch that the background rebuild (serving) or rebuild_evidence resolves. A model
      // server's dimension may be learnt only now, so this is where that change is noticed.
      await this.#store.write(async () => {
        const recorded = await this.#store.getMeta(SPACE_KEY);
        if (recorded !== undefined) {
          if (recorded !== space) await this.#queueRebuild();
          return;
        }
        await this.#store.recreateVecTable(model.dim);
        await this.#store.setMeta(SPACE_KEY, space);
        await enqueueJob(this.#store, {
          kind: EMBED_JOB_KIND,
          dedupeKey: "pending-rows",
          payload: {},
        });
      });
      this.invalidate();
    }
    return model;
  }

  /**
   * Queues the background rebuild once per process (inside a write). Only a serving process
   * does: its worker runs the job; a command that merely reports the state writes nothing.
   */
  async #queueRebuild(): Promise<void> {
    if (!this.#config.rebuildOnModelChange || this.#rebuildQueued) return;
    await enqueueJob(this.#store, {
      kind: REBUILD_JOB_KIND,
      dedupeKey: REBUILD_DEDUPE_KEY,
      payload: {},
    });
    this.#rebuildQueued = true;
  }

  /** Queues the background rebuild (see {@linkcode SemanticConfig.rebuildOnModelChange}). */
  async queueRebuild(): Promise<void> {
    await this.#store.write(async () => await this.#queueRebuild(), { durable: false });
  }

  /**
   * The rebuild job's step: switches the index to the configured model's space when it holds
   * another one (a fresh vector table, the old space kept as the rebuild's origin) and queues
   * the embedding job that fills it in slices. The check and the switch are one transaction, so
   * of several servers sharing a database the first switches and the others find nothing to
   * do. Throws `ProviderUnavailable` while a model server that must be asked is away.
   * Returns whether it switched.
   */
  async switchToConfiguredSpace(): Promise<boolean> {
    const model = await this.#model();
    const switched = await this.#store.write(async () => await this.#switchTo(model));
    this.invalidate();
    return switched;
  }

  /** Inside a write: recreate the vector table for `model`'s space unless the index holds it. */
  async #switchTo(model: OpenedModel): Promise<boolean> {
    const space = spaceId(model);
    this.#space = space;
    const indexed = await this.#store.getMeta(SPACE_KEY);
    if (indexed === space && await this.#store.vecTableExists()) return false;
    await this.#store.recreateVecTable(model.dim);
    await this.#store.setMeta(SPACE_KEY, space);
    // Switching back before a rebuild finished starts over: the older vectors are gone.
    if (indexed !== undefined && indexed !== space) {
      await this.#store.setMeta(REBUILD_FROM_KEY, indexed);
    }
    await enqueueJob(this.#store, {
      kind: EMBED_JOB_KIND,
      dedupeKey: "pending-rows",
      payload: {},
    });
    return true;
  }

  /**
   * The query's vector, or undefined when find must not use the vector channel: the index is
   * not searchable yet, or the query has no direction (no word the model knows), so it
   * contributes nothing rather than matching everything.
   */
  async embedQuery(
    query: string,
    words?: readonly { word: string; weight: number }[],
  ): Promise<Float32Array | undefined> {
    if (!(await this.searchable())) return undefined;
    await this.#smallCopyLoaded();
    if (this.#provider) return await this.#providerQuery(query);
    const model = await this.#model();
    if (!(await this.searchable())) return undefined;
    if (words && words.length > 0 && model.entry.builtin) return await weightedQuery(model, words);
    const [vector] = await model.embedder.embed([query], "query");
    return hasDirection(vector) ? vector : undefined;
  }

  /**
   * Vectors of `texts` as documents, for a whole-library view (topic clusters); undefined when
   * the index is not searchable or the model is not built in: a downloaded transformer (or a
   * model server) would take tens of seconds for the thousands of texts such a view reads.
   */
  async embedForView(texts: readonly string[]): Promise<Float32Array[] | undefined> {
    // A model server would be asked for thousands of texts inside one answer: words instead.
    if (this.#provider) return undefined;
    if (!(await this.searchable())) return undefined;
    const model = await this.#model();
    if (!model.entry.builtin) return undefined;
    return await model.embedder.embed([...texts], "passage");
  }

  /**
   * A model server's query vector within its query timeout: a `find` never waits longer for a
   * server that is slow or away (what was asked still finishes, and its answer is dropped).
   */
  async #providerQuery(query: string): Promise<Float32Array | undefined> {
    const limitMs = this.#config.provider!.queryTimeoutMs;
    const work = (async () => {
      await this.#model();
      // The first answer may have named another space than the index's (the server's model
      // now gives another dimension): that is a mismatch, not a search.
      if (!(await this.searchable())) return undefined;
      const [vector] = await this.#provider!.embed([query], "query");
      return vector;
    })();
    const vector = await withinQueryTimeout(work, this.#provider!, { limitMs });
    return hasDirection(vector) ? vector : undefined;
  }

  /**
   * Embeds up to `maxRows` rows that lack a vector in the current space, in
   * batches each committed on its own (a crash keeps finished batches).
   * Returns how many rows were embedded.
   */
  async embedPendingRows(maxRows = Infinity): Promise<number> {
    if (!(await this.usable())) return 0;
    const model = await this.#model();
    const space = this.#space!;
    if (await this.#store.getMeta(SPACE_KEY) !== space) return 0;
    let done = 0;
    while (done < maxRows) {
      const limit = Math.min(EMBED_BATCH_ROWS, maxRows - done);
      const rows = await this.#store.rowsToEmbed(space, limit);
      if (rows.length === 0) break;
      const byMemory = new Map<number, EvidenceRowRecord[]>();
      for (const row of rows) {
        byMemory.set(row.memoryId, [...byMemory.get(row.memoryId) ?? [], row]);
      }
      // A full batch may end inside a memory: its rows wait for the next batch, whole.
      if (rows.length === limit && byMemory.size > 1) {
        byMemory.delete(rows[rows.length - 1].memoryId);
      }
      const chunks = [...byMemory.values()].flatMap(embeddingChunks);
      const vectors = await model.embedder.embed(chunks.map((chunk) => chunk.text), "passage");
      await this.#store.write(async () =>
        await this.#store.writeRowVectors(
          space,
          chunks.flatMap((chunk, i) =>
            chunk.rowIds.map((rowId) => ({
              rowId,
              // A chunk without a direction is marked embedded with no vector, never stored
              // as zero; so are the chunk's rows other than its head.
              vector: rowId === chunk.headRowId && hasDirection(vectors[i]) ? vectors[i] : null,
            }))
          ),
        ), { durable: false }); // rows a power cut un-embeds are embedded again at start
      done += chunks.reduce((sum, chunk) => sum + chunk.rowIds.length, 0);
      await yieldToRequests();
    }
    await this.#finishRebuild(space);
    if (done > 0) this.invalidate();
    return done;
  }

  /** Forgets a rebuild's origin once its space holds every row (hybrid recall resumes). */
  async #finishRebuild(space: string): Promise<void> {
    if (!await this.#store.getMeta(REBUILD_FROM_KEY)) return;
    if ((await this.#store.countRowsToEmbed(space)).pending > 0) return;
    await this.#store.write(async () => await this.#store.setMeta(REBUILD_FROM_KEY, ""));
    this.invalidate();
  }

  /**
   * Rebuilds the index for the configured model: a dry run reports the work;
   * otherwise the index is switched to the new space (vectors dropped, rows
   * kept) on the first call and filled in batches; call again until `complete`.
   */
  async rebuild(options: { dryRun: boolean; batchSize: number }): Promise<RebuildReport> {
    const before = await this.describe();
    if (before.state === "off" || before.state === "unavailable") {
      throw new MemaError("invalid_input", before.warning ?? "no usable embedding model", {
        hint: before.fix,
      });
    }
    const missingRows = this.#rowsComplete
      ? 0
      : (await this.#store.read(async () => await this.#store.memoriesMissingRows(1_000_000)))
        .length;
    if (missingRows === 0) this.#rowsComplete = true;
    if (options.dryRun) {
      return {
        dryRun: true,
        state: before.state,
        fromSpace: before.indexedSpace,
        toSpace: before.space,
        rows: before.rows,
        toEmbed: before.state === "mismatch" ? before.rows : before.rows - before.embeddedRows,
        memoriesMissingRows: missingRows,
        embeddedNow: 0,
        complete: before.state === "ready" && missingRows === 0,
      };
    }
    const model = await this.#opened ?? await this.#open();
    const space = spaceId(model);
    if (await this.#store.write(async () => await this.#switchTo(model))) this.invalidate();
    this.#opened ??= Promise.resolve(model);
    if (!this.#rowsComplete && await backfillRows(this.#store, options.batchSize) === 0) {
      this.#rowsComplete = true;
    }
    const embeddedNow = await this.embedPendingRows(options.batchSize);
    this.invalidate();
    const after = await this.describe();
    return {
      dryRun: false,
      state: after.state,
      fromSpace: before.indexedSpace,
      toSpace: space,
      rows: after.rows,
      toEmbed: after.rows - after.embeddedRows,
      memoriesMissingRows: missingRows,
      embeddedNow,
      complete: after.state === "ready" &&
        (this.#rowsComplete ||
          (await this.#store.read(async () => await this.#store.memoriesMissingRows(1))).length ===
            0),
    };
  }

  /** Releases the model (semantic_control unload). */
  async unload(): Promise<void> {
    clearTimeout(this.#recount);
    this.#recount = undefined;
    const opened = this.#opened;
    this.#opened = undefined;
    if (opened) await (await opened.catch(() => undefined))?.embedder.unload();
  }
}

/** Writes rows for memories that have none for their current version (older databases). */
export async function backfillRows(store: Store, limit: number): Promise<number> {
  const ids = await store.read(async () => await store.memoriesMissingRows(limit));
  for (const id of ids) {
    await store.write(async () => {
      const memory = await store.getMemory(id);
      if (memory) await refreshEvidence(store, memory);
    });
  }
  return ids.length;
}

/** What rebuild_evidence answers. */
export interface RebuildReport {
  dryRun: boolean;
  state: VectorState;
  fromSpace?: string;
  toSpace?: string;
  rows: number;
  toEmbed: number;
  memoriesMissingRows: number;
  embeddedNow: number;
  complete: boolean;
}

/**
 * Each opened model's unnormalized word rows, by word: a query's words recur from query to
 * query, and embedding them was most of a hybrid `find`'s query vector (~0.6 ms p50 at 1,000
 * memories). A word's row does not depend on the other words of the batch (the static model
 * pools each text alone), so a cached row is the row.
 */
const wordRows = new WeakMap<OpenedModel, Map<string, Float32Array>>();

/**
 * The query vector of a word-level model (the built-in static model, whose text vector is the
 * mean of its words' rows) with each word's row scaled by its weight: every distinct word is
 * embedded alone without normalization (its row, kept in {@linkcode wordRows}), the rows are summed by weight and the sum
 * normalized. Stored vectors are unweighted means, so the space is unchanged.
 */
async function weightedQuery(
  model: OpenedModel,
  words: readonly { word: string; weight: number }[],
): Promise<Float32Array | undefined> {
  let cached = wordRows.get(model);
  if (!cached) wordRows.set(model, cached = new BoundedMap(QUERY_WORD_ROWS_MAX));
  const rowOf = new Map<string, Float32Array>();
  const missing: string[] = [];
  for (const { word } of words) {
    if (rowOf.has(word) || missing.includes(word)) continue;
    const row = cached.get(word);
    if (row) rowOf.set(word, row);
    else missing.push(word);
  }
  if (missing.length > 0) {
    const rows = await model.embedder.embed(missing, "query", { normalize: false });
    missing.forEach((word, i) => {
      rowOf.set(word, rows[i]);
      cached.set(word, rows[i]);
    });
  }
  const sum = new Float64Array(model.dim);
  for (const { word, weight } of words) {
    const row = rowOf.get(word)!;
    for (let k = 0; k < sum.length; k++) sum[k] += weight * row[k];
  }
  const norm = Math.sqrt(sum.reduce((total, x) => total + x * x, 0));
  const vector = Float32Array.from(sum, (x) => x / norm);
  return hasDirection(vector) ? vector : undefined;
}
