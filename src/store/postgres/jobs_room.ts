/**
 * The durable job queue on PostgreSQL: {@linkcode JobsRepository}. Several servers share one
 * queue, so a claim takes its rows with `FOR UPDATE SKIP LOCKED`: a job another server is
 * claiming at the same moment is skipped, never claimed twice, and a lease that expired (its
 * owner crashed or hung) makes a running job claimable again, as on SQLite
 * (src/store/jobs_sql.ts documents each operation).
 *
 * @module
 */
import type { PgCore, PgQuery } from "./core.ts";
import type { JobsRepository } from "../repositories.ts";
import type { JobRecord, JobStatus } from "../jobs_sql.ts";
import { selectLibraryCounts } from "./library_counts.ts";

type Row = Record<string, unknown>;

const nullableString = (value: unknown) => value === null ? null : String(value);

/** How much of a failure's text a job keeps (as on SQLite). */
const JOB_ERROR_MAX_CHARS = 2000;

function toJob(row: Row): JobRecord {
  return {
    id: Number(row.id),
    kind: String(row.kind),
    dedupeKey: nullableString(row.dedupe_key),
    payload: row.payload as Record<string, unknown>,
    status: row.status as JobStatus,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    runAfter: String(row.run_after),
    leaseOwner: nullableString(row.lease_owner),
    leaseExpires: nullableString(row.lease_expires),
    lastError: nullableString(row.last_error),
  };
}

/** Claims jobs picked by `pick` (ids, locked and skipped as they are taken) for `claim`. */
async function claimPicked(
  sql: PgQuery,
  pick: ReturnType<PgQuery>,
  claim: { owner: string; now: string; leaseExpires: string },
): Promise<JobRecord[]> {
  const rows = await sql`UPDATE jobs SET status = 'running', attempts = attempts + 1,
      lease_owner = ${claim.owner}, lease_expires = ${claim.leaseExpires},
      updated_at = ${claim.now}
    WHERE id IN (${pick}) RETURNING *`;
  // RETURNING keeps no order: the queue's (run_after, id), as the SQLite room claims.
  return rows.map(toJob).sort((a, b) =>
    a.runAfter < b.runAfter ? -1 : a.runAfter > b.runAfter ? 1 : a.id - b.id
  );
}

/** The jobs room over `core`'s pool. */
export function pgJobs(core: PgCore<unknown>): JobsRepository {
  return {
    async insertJob(job) {
      const [row] = await core.q()`INSERT INTO jobs (kind, dedupe_key, payload, status,
          attempts, max_attempts, run_after, created_at, updated_at)
        VALUES (${job.kind}, ${job.dedupeKey ?? null}, ${JSON.stringify(job.payload)}::text::json,
          'pending', 0, ${job.maxAttempts}, ${job.now}, ${job.now}, ${job.now})
        ON CONFLICT DO NOTHING RETURNING id`;
      return row ? Number(row.id) : undefined;
    },
    async claimJobs(claim) {
      const sql = core.q();
      const kinds = claim.kinds as string[];
      // Expired leases first, then ready pending jobs, as the SQLite room claims.
      const expired = await claimPicked(
        sql,
        sql`SELECT id FROM jobs WHERE status = 'running' AND kind = ANY(${kinds}::text[])
          AND lease_expires COLLATE "C" < ${claim.now}
          ORDER BY run_after COLLATE "C", id LIMIT ${claim.limit} FOR UPDATE SKIP LOCKED`,
        claim,
      );
      if (expired.length >= claim.limit) return expired;
      const pending = await claimPicked(
        sql,
        sql`SELECT id FROM jobs WHERE status = 'pending' AND run_after COLLATE "C" <= ${claim.now}
          AND kind = ANY(${kinds}::text[])
          ORDER BY run_after COLLATE "C", id LIMIT ${claim.limit - expired.length}
          FOR UPDATE SKIP LOCKED`,
        claim,
      );
      return [...expired, ...pending];
    },
    async finishJob(id, owner) {
      const rows = await core.q()`DELETE FROM jobs
        WHERE id = ${id} AND status = 'running' AND lease_owner = ${owner} RETURNING id`;
      return rows.length > 0;
    },
    async failJob(failure) {
      const [row] = await core.q()`UPDATE jobs SET
          status = CASE WHEN attempts >= max_attempts THEN 'poisoned' ELSE 'pending' END,
          run_after = ${failure.retryAt}, last_error = ${
        failure.error.slice(0, JOB_ERROR_MAX_CHARS)
      },
          lease_owner = NULL, lease_expires = NULL, updated_at = ${failure.now}
        WHERE id = ${failure.id} AND status = 'running' AND lease_owner = ${failure.owner}
        RETURNING status`;
      return row ? row.status as JobStatus : undefined;
    },
    async countJobs() {
      const counts: Record<string, Record<string, number>> = {};
      for (const part of await selectLibraryCounts(core.q(), "jobs")) {
        (counts[part.kind] ??= {})[part.status] = part.n;
      }
      return counts;
    },
    async pruneJobs(before) {
      const rows = await core.q()`DELETE FROM jobs
        WHERE status = 'done' AND updated_at COLLATE "C" < ${before} RETURNING id`;
      return rows.length;
    },
    async finishPendingJob(job) {
      const rows = await core.q()`DELETE FROM jobs WHERE kind = ${job.kind}
        AND dedupe_key = ${job.dedupeKey} AND status = 'pending' RETURNING id`;
      return rows.length > 0;
    },
    async getJob(id) {
      const [row] = await core.q()`SELECT * FROM jobs WHERE id = ${id}`;
      return row ? toJob(row) : undefined;
    },
    async planChecks(checks) {
      if (checks.length === 0) return;
      await core.q()`INSERT INTO check_plan (group_key, memory_id, version)
        SELECT * FROM unnest(${checks.map((check) => check.groupKey)}::bigint[],
          ${checks.map((check) => check.memoryId)}::bigint[],
          ${checks.map((check) => check.version)}::int[])
        ON CONFLICT DO NOTHING`;
    },
    async plannedChecks(limit) {
      const rows = await core.q()`SELECT group_key, memory_id, version FROM check_plan
        ORDER BY group_key, memory_id, version LIMIT ${limit}`;
      return rows.map((row) => ({
        groupKey: Number(row.group_key),
        memoryId: Number(row.memory_id),
        version: Number(row.version),
      }));
    },
    async pendingJobs(query) {
      const rows = await core.q()`SELECT * FROM jobs WHERE kind = ${query.kind}
        AND status = 'pending' AND id > ${query.afterId} ORDER BY id LIMIT ${query.limit}`;
      return rows.map(toJob);
    },
    async takePendingJobs(ids) {
      if (ids.length === 0) return [];
      const rows = await core.q()`DELETE FROM jobs WHERE id = ANY(${ids as number[]}::bigint[])
        AND status = 'pending' RETURNING id`;
      return rows.map((row) => Number(row.id));
    },
    async unplanChecks(checks) {
      const sql = core.q();
      if (checks.length > 0) {
        await sql`DELETE FROM check_plan WHERE (group_key, memory_id, version) IN (
          SELECT * FROM unnest(${checks.map((check) => check.groupKey)}::bigint[],
            ${checks.map((check) => check.memoryId)}::bigint[],
            ${checks.map((check) => check.version)}::int[]))`;
      }
      return (await sql`SELECT 1 FROM check_plan LIMIT 1`).length > 0;
    },
  };
}
