/**
 * The durable job queue on SQLite: {@linkcode JobsRepository}.
 *
 * @module
 */
import * as jobs from "./jobs_sql.ts";
import type { JobsRepository } from "./repositories.ts";
import type { SqliteCore, Sync } from "./sqlite_core.ts";

/** The jobs room over `core`'s connection. */
export function sqliteJobs(core: SqliteCore): Sync<JobsRepository> {
  const db = core.connection.db;
  return {
    insertJob: (job) => jobs.insertJob(db, job),
    claimJobs: (claim) => jobs.claimReadyJobs(db, claim),
    finishJob: (id, owner) => jobs.finishJob(db, id, owner),
    failJob: (failure) => jobs.failJobRow(db, failure),
    countJobs: () => jobs.countJobs(db),
    pruneJobs: (before) => jobs.pruneDoneJobs(db, before),
    finishPendingJob: (job) => jobs.finishPendingJob(db, job),
    getJob: (id) => jobs.selectJob(db, id),
    planChecks: (checks) => jobs.insertPlannedChecks(db, checks),
    plannedChecks: (limit) => jobs.selectPlannedChecks(db, limit),
    unplanChecks: (checks) => jobs.deletePlannedChecks(db, checks),
    pendingJobs: (query) => jobs.selectPendingJobs(db, query),
    takePendingJobs: (ids) => jobs.deletePendingJobs(db, ids),
  };
}
