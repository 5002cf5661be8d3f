/**
 * The composition root: from a resolved configuration to an open database, the context every
 * service verb runs with, the conflict stages and the background jobs, and back down through one
 * shutdown. `serve`, `console`, `import`, `scan` and `export` open the database here, so they
 * open it the same way; nothing but `src/cli/` imports this folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadConfig } from "../config/mod.ts";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { openApp } from "./mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const config = loadConfig({
 *   flags: { dbPath: `${dir}/mema.sqlite3`, configPath: `${dir}/config.json` },
 * });
 * const app = await openApp(config, { caller: { client: "cli", agentId: "me" }, skipVec: true });
 * const { memoryId } = await rememberMemory(app.ctx, {
 *   subject: "deploy day",
 *   content: "Deploys run on Fridays.",
 *   workspace: "infra",
 * });
 * assert.equal((await app.store.getMemory(memoryId))?.content, "Deploys run on Fridays.");
 * await app.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import {
  ENTITY_BACKFILL_JOB_KIND,
  entityBackfillOwed,
  markEntitiesReadThrough,
  runEntityBackfill,
} from "../entities/backfill.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { yieldToRequests } from "../jobs/worker.ts";
import type { MemaConfig } from "../config/mod.ts";
import { queuePlanJob } from "../conflicts/check_plan.ts";
import {
  DETECT_BATCH_JOB_KIND,
  DETECT_JOB_KIND,
  DETECT_PLAN_JOB_KIND,
  DETECT_UNPLANNED_JOB_KIND,
} from "../conflicts/constants_pipeline.ts";
import { createDetectionMemo, runBatchCheck, runPlanCheck } from "../conflicts/batch_check.ts";
import { detectConflicts } from "../conflicts/detect.ts";
import { semanticNeighbours } from "../conflicts/neighbours.ts";
import { defaultStages, openJudge } from "../conflicts/stages.ts";
import type { DetectionStages } from "../conflicts/detect.ts";
import type { JudgeHandle } from "../conflicts/judge_state.ts";
import type { CallerIdentity, ServiceContext, ServiceSettings } from "../core/context.ts";
import { SemanticIndex } from "../evidence/semantic.ts";
import { EVIDENCE_WORKER_START_DELAY_MS } from "../evidence/constants.ts";
import { markRowsComplete, startEvidenceWorker } from "../evidence/worker.ts";
import { finishOwedScrub } from "../govern/purge.ts";
import type { JobWorker } from "../jobs/worker.ts";
import { settlesWithin } from "../platform/deadline.ts";
import { ioTurn } from "../platform/io_turn.ts";
import { pathExists } from "../platform/paths.ts";
import { type BackupReplayer, startBackupReplayer } from "../memory/backup_replayer.ts";
import { BACKUP_REPLAY_TICK_MS } from "../memory/backup_constants.ts";
import { DatabaseUnreachable } from "../errors/mod.ts";
import { logWarn } from "../platform/log.ts";
import { openStore, type Store } from "../store/mod.ts";
import { UsageLedger } from "../recall/usage.ts";
import { checkWordIndex } from "../recall/word_index_check.ts";
import { refuseIncompleteCopy } from "../portability/copy.ts";
import { composeMemoryEvents } from "./memory_events.ts";
import { serviceSettings } from "./service_settings.ts";
import { SERVE_EXIT_LINGER_MS, SERVE_WORKER_STOP_MS } from "./shutdown_constants.ts";
import { exitIfStillRunningAfter, type StopRequest } from "./stop_signal.ts";

/** How to open the database: the config's file unless another is named. */
export interface DatabaseOptions {
  /** Another file than `config.dbPath` (an import's dry run opens a scratch copy). */
  path?: string;
  /** Open without sqlite-vec (commands that embed nothing). */
  skipVec?: boolean;
  /** Check the word index after start, in slices (serving processes), not at open. */
  deferWordIndexCheck?: boolean;
  /**
   * On PostgreSQL, start even while the database cannot be reached (serving processes): reads
   * fail clearly and writes go to the local backup until it answers.
   */
  waitForDatabase?: boolean;
}

/** What a command opens the application with. */
export interface AppOptions extends DatabaseOptions {
  /** Whom the context acts as. */
  caller: CallerIdentity;
  /** The services' settings; by default the serving ones (src/app/service_settings.ts). */
  settings?: ServiceSettings;
  /**
   * A process that serves callers (`serve`, `console`): an owed purge scrub is finished first,
   * and the semantic index, the judge and the conflict stages that use them are opened.
   */
  serving?: {
    /** Let the semantic index recount its rows after calls (`serve`). */
    recountAfterCalls?: boolean;
    /**
     * On PostgreSQL, start even while the database cannot be reached (`serve`): reads fail
     * clearly and writes go to the local backup until it answers.
     */
    waitForDatabase?: boolean;
    /** Count the memories agents are handed, for the usage nudge (`serve`, not the console). */
    recordUsage?: boolean;
  };
}

/** The open application: one database, one context, and what stops them. */
export interface App {
  readonly config: MemaConfig;
  readonly store: Store;
  readonly ctx: ServiceContext;
  /** Conflict detection's stages: the judge and vector neighbours when serving, else rules. */
  readonly stages: DetectionStages;
  /**
   * Starts the background jobs (evidence rows and vectors, queued conflict checks) of a serving
   * app, unless the database is read-only (background jobs only write); tells them to stop when
   * `stop` is requested.
   */
  startBackgroundJobs(stop: StopRequest): Promise<void>;
  /** Stops the jobs (bounded) and closes the database; safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens the database named by the configuration, with its timeouts and durability. A `db_url`
 * (a `postgres://` database) is opened instead of the file, and `path` is then not used.
 */
export async function openDatabase(
  config: MemaConfig,
  options: DatabaseOptions = {},
): Promise<Store> {
  const store = await openStore(options.path ?? config.dbPath, {
    cacheDir: config.cacheDir,
    dbUrl: config.dbUrl,
    busyTimeoutMs: config.busyTimeoutMs,
    durability: config.durability,
    skipVec: options.skipVec,
    waitForDatabase: options.waitForDatabase,
    deferWordIndexCheck: options.deferWordIndexCheck,
  });
  // A library a `mema copy` left half written is never served as if it were whole.
  try {
    await refuseIncompleteCopy(store, store.backend?.database ?? store.path);
    // Born empty, every memory it will hold gets its evidence rows and entities as it is written.
    if (store.schema.created) {
      await markRowsComplete(store);
      await markEntitiesReadThrough(store);
    }
  } catch (error) {
    // A database not reached yet is checked by the store itself once it answers.
    if (options.waitForDatabase && error instanceof DatabaseUnreachable) {
      logWarn(`${error.message}; starting anyway`);
      return store;
    }
    await store.close();
    throw error;
  }
  return store;
}

/** False while a shared database cannot be reached (a SQLite file always answers here). */
async function databaseAnswers(store: Store): Promise<boolean> {
  if (store.backend?.kind !== "postgresql") return true;
  try {
    await store.read(() => Promise.resolve());
    return true;
  } catch (error) {
    if (error instanceof DatabaseUnreachable) return false;
    throw error;
  }
}

/** Opens the database and composes the services over it; closes it again if composing fails. */
export async function openApp(config: MemaConfig, options: AppOptions): Promise<App> {
  const store = await openDatabase(config, {
    ...options,
    waitForDatabase: options.serving?.waitForDatabase === true,
    // Counting a large library before the first answer is what held a 1M start (issue 38).
    deferWordIndexCheck: options.serving !== undefined,
  });
  try {
    return await composeApp(config, store, options);
  } catch (error) {
    await store.close();
    throw error;
  }
}

async function composeApp(config: MemaConfig, store: Store, options: AppOptions): Promise<App> {
  let semantic: SemanticIndex | undefined;
  let judge: JudgeHandle | undefined;
  if (options.serving) {
    // A purge whose process died before its scrub (or whose WAL a reader held) is finished
    // before anything is served.
    try {
      for (const warning of await finishOwedScrub(store, config.backupPath)) logWarn(warning);
    } catch (error) {
      // The database is not reached yet; the owed scrub waits for the next start.
      if (!(error instanceof DatabaseUnreachable)) throw error;
    }
    semantic = new SemanticIndex(store, {
      modelId: config.embeddingModel,
      provider: config.embeddingProvider,
      modelsDir: config.modelsDir,
      manifestPath: config.manifestPath,
      recountAfterCalls: options.serving.recountAfterCalls,
      rebuildOnModelChange: store.capabilities.readOnly === undefined,
    });
    judge = openJudge(config);
  }
  // Uses are counted in memory and written in the background; a read-only database counts none.
  const usage = options.serving?.recordUsage && store.capabilities.readOnly === undefined
    ? new UsageLedger(store)
    : undefined;
  const ctx: ServiceContext = {
    store,
    ...(semantic ? { semantic } : {}),
    ...(usage ? { usage } : {}),
    ...(judge ? { judge } : {}),
    caller: options.caller,
    settings: options.settings ?? serviceSettings(config),
    events: composeMemoryEvents(),
  };
  const stages = semantic
    ? defaultStages({ judge, vectors: semanticNeighbours(store, semantic) })
    : defaultStages();
  // Shared by the runs of the import's batch checks (src/conflicts/batch_check.ts).
  const memo = createDetectionMemo();
  let worker: JobWorker | undefined;
  let replayer: BackupReplayer | undefined;
  let indexCheck: Promise<unknown> | undefined;
  let modelOpen: Promise<unknown> | undefined;
  let wakeModelOpen: (() => void) | undefined;
  let wakeIndexCheck: (() => void) | undefined;
  let closed = false;
  return {
    config,
    store,
    ctx,
    stages,
    async startBackgroundJobs(stop: StopRequest): Promise<void> {
      // On a shared database server, this server replays the writes it saved to its local
      // backup while the database could not be reached (memory/backup_replayer.ts).
      if (store.backend?.kind === "postgresql" && replayer === undefined) {
        const started = startBackupReplayer(ctx);
        replayer = started;
        void stop.requested.then(() => started.stop());
      }
      if (semantic === undefined || store.capabilities.readOnly !== undefined) return;
      const index = semantic;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let stopping = false;
      const startWorker = async () => {
        // The vector copy loads between requests from the start, so that no find pays for it
        // (started before the first call: lookups answer from the part loaded).
        const stopped = () => closed || stopping;
        const hold = copyLoadHold(stopped);
        // Held for a test: one page a slice, so that the first is part of any library.
        await index.startVectorCopyLoad({
          between: hold ?? ioTurn,
          stopped,
          sliceMs: hold ? 0 : undefined,
        }).catch((error) => logWarn(`the vector copy did not start loading: ${error}`));
        // The query model opens after the handshake's second, not at the first find.
        modelOpen ??= (async () => {
          await new Promise<void>((resolve) => {
            const delay = setTimeout(resolve, EVIDENCE_WORKER_START_DELAY_MS);
            wakeModelOpen = () => {
              clearTimeout(delay);
              resolve();
            };
          });
          if (!closed && !stopping) await index.openForQueries();
        })().catch((error) => {
          if (!closed && !stopping) logWarn(`the embedding model did not open: ${error}`);
        });
        indexCheck ??= (async () => {
          // The handshake and the first calls go first, as for the job worker below.
          await new Promise<void>((resolve) => {
            const delay = setTimeout(resolve, EVIDENCE_WORKER_START_DELAY_MS);
            wakeIndexCheck = () => {
              clearTimeout(delay);
              resolve();
            };
          });
          await checkWordIndex(store, {
            between: yieldToRequests,
            stopped: () => closed || stopping,
          });
        })().catch((error) => {
          if (!closed && !stopping) logWarn(`the word index check did not finish: ${error}`);
        });
        // Planned checks or batches waiting for the plan whose job was lost (a write on another
        // server queued none while the plan's last run was ending) get one: the plan is never
        // left without its job.
        const planOwed = await store.read(async () =>
          (await store.plannedChecks(1)).length > 0 ||
          (await store.pendingJobs({ kind: DETECT_UNPLANNED_JOB_KIND, afterId: 0, limit: 1 }))
              .length > 0
        );
        if (planOwed) {
          await store.writeBlocking(async () => await queuePlanJob(store));
        }
        // Facts written before the entity graph existed are read in the background.
        if (await entityBackfillOwed(store)) {
          await store.writeBlocking(async () =>
            await enqueueJob(store, {
              kind: ENTITY_BACKFILL_JOB_KIND,
              dedupeKey: ENTITY_BACKFILL_JOB_KIND,
              payload: {},
            })
          );
        }
        const started = await startEvidenceWorker(store, index, {
          [DETECT_JOB_KIND]: async (job) => {
            await detectConflicts(ctx, Number(job.payload.memory_id), stages, memo);
          },
          [DETECT_BATCH_JOB_KIND]: async (job) => {
            await runBatchCheck(ctx, job, { stages, memo });
          },
          [DETECT_PLAN_JOB_KIND]: async (job) => {
            await runPlanCheck(ctx, job, { stages, memo });
          },
          [ENTITY_BACKFILL_JOB_KIND]: () => runEntityBackfill(store, yieldToRequests),
        });
        worker = started;
        // The job in progress gets the transport's grace period to finish; no new one starts.
        void stop.requested.then(() => started.stop());
      };
      void stop.requested.then(() => {
        stopping = true;
        clearTimeout(timer);
        wakeIndexCheck?.();
        wakeModelOpen?.();
      });
      if (await databaseAnswers(store)) return await startWorker();
      // A server that started before its database answered starts its jobs once it does.
      const retry = () => {
        timer = setTimeout(async () => {
          if (stopping || closed) return;
          try {
            if (await databaseAnswers(store)) {
              if (!stopping && !closed) await startWorker();
            } else retry();
          } catch (error) {
            logWarn(`background jobs did not start: ${error}`);
          }
        }, BACKUP_REPLAY_TICK_MS);
      };
      retry();
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (replayer && !(await settlesWithin(replayer.stop(), SERVE_WORKER_STOP_MS))) {
        logWarn("stopping during a replay of the local backup; the next start replays it");
      }
      wakeIndexCheck?.();
      wakeModelOpen?.();
      await indexCheck;
      await semantic?.vectorCopyLoading?.catch(() => {});
      await modelOpen;
      if (worker && !(await settlesWithin(worker.stop(), SERVE_WORKER_STOP_MS))) {
        logWarn(
          "stopping without the background job in progress; it runs again on the next start",
        );
      }
      await usage?.close();
      await store.close();
    },
  };
}

/**
 * Tests hold the background load of the vector copy after its first slice until the file this
 * variable names exists, to ask a `find` while the copy is partial without racing the load;
 * with {@linkcode COPY_LOAD_HOLD_FIRST_ENV} set to 1, before its first slice too.
 */
const COPY_LOAD_HOLD_ENV = "MEMA_TEST_VECTOR_COPY_HOLD";
const COPY_LOAD_HOLD_FIRST_ENV = "MEMA_TEST_VECTOR_COPY_HOLD_FIRST";

function copyLoadHold(stopped: () => boolean): (() => Promise<void>) | undefined {
  const path = Deno.env.get(COPY_LOAD_HOLD_ENV);
  if (!path) return undefined;
  let turns = Deno.env.get(COPY_LOAD_HOLD_FIRST_ENV) === "1" ? 1 : 0;
  return async () => {
    // The first turn comes before the first slice, which the test wants loaded (unless it holds
    // that one too: `turns` then starts at 1).
    while (turns++ > 0 && !pathExists(path) && !stopped()) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await ioTurn();
  };
}

/**
 * The one way a serving process ends, once its transport has stopped: stop listening for
 * signals, stop the background job (bounded), close the database, and end the process if
 * anything still holds it after `SERVE_EXIT_LINGER_MS` (src/app/shutdown_constants.ts).
 */
export async function shutDown(stop: StopRequest, app: App | undefined): Promise<void> {
  stop.dispose();
  await app?.close();
  exitIfStillRunningAfter(SERVE_EXIT_LINGER_MS);
}
