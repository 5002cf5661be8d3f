/**
 * pgvector's index under a filter (issue 33), on PGlite with pgvector: when more than `k` rows of
 * another workspace are nearer than every row of the caller's, the index lookup still returns the
 * caller's rows (pgvector 0.8's iterative scan), where taking the `k` nearest and filtering them
 * afterwards would return none. The index scan is forced (`enable_seqscan = off` for PGlite's one
 * session, and `enable_sort = off`), so the plan is the one a large library gets, not an exact sort of
 * a small table; without the iterative scan this test fails.
 */
import assert from "node:assert/strict";
import { onPgvector } from "../helpers/pglite.ts";
import { connectPostgres } from "../../src/store/postgres/connect.ts";
import { openPostgresStore } from "../../src/store/postgres/mod.ts";
import type { RecallFilters } from "../../src/store/types.ts";

/** Rows of `workspace`'s memories: `count` memories, one sentence row each, ids returned. */
const ADD_ROWS = `
WITH made AS (
  INSERT INTO memories (subject, content, content_sha, workspace, workspace_canonical,
    source_type, ingest_time, agent_id, client, created_at, updated_at)
  SELECT 'note ' || n, 'text ' || n, md5(n::text || $1), $1, $1, 'agent_generated',
    '2026-01-01T00:00:00Z', 'a', 'c', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'
  FROM generate_series(1, $2::int) AS n
  RETURNING id
)
INSERT INTO memory_rows (memory_id, memory_version, row_index, kind, text, start_offset, end_offset)
SELECT id, 1, 0, 'sentence', 'text', 0, 4 FROM made
RETURNING id, memory_id`;

onPgvector(
  "a filtered lookup finds the caller's rows behind 150 nearer rows of another workspace",
  async (db) => {
    const store = await openPostgresStore(db.url);
    const sql = await connectPostgres(db.url, { max: 1 });
    try {
      assert.equal(store.extensions.vector !== null, true, "PGlite has pgvector installed");
      await store.recreateVecTable(3);
      const beta = await sql.unsafe(ADD_ROWS, ["beta", 150]);
      const [alpha] = await sql.unsafe(ADD_ROWS, ["alpha", 1]);
      // Beta's rows point almost along the query; alpha's is 45 degrees off.
      await store.writeRowVectors("space", [
        ...beta.map((row, i) => ({
          rowId: Number(row.id),
          vector: new Float32Array([1, 0.001 * i, 0]),
        })),
        { rowId: Number(alpha.id), vector: new Float32Array([1, 1, 0]) },
      ]);
      await sql`SET enable_seqscan = off`;
      await sql`SET enable_sort = off`;
      const query = new Float32Array([1, 0, 0]);
      const filters = (workspaces?: string[]): RecallFilters => ({
        statuses: ["active"],
        ...(workspaces ? { workspaces } : {}),
      });

      const anyone = await store.nearestCurrentRows(query, 100, filters());
      assert.equal(anyone.length, 100);
      assert.ok(anyone.every((row) => row.memoryId !== Number(alpha.memory_id)));

      const alphaOnly = await store.nearestCurrentRows(query, 100, filters(["alpha"]));
      assert.deepEqual(alphaOnly.map((row) => row.rowId), [Number(alpha.id)]);
      assert.ok(Math.abs(alphaOnly[0].distance - (1 - Math.SQRT1_2)) < 1e-4);

      const plan = await sql.begin(async (tx) => {
        await tx`SELECT set_config('hnsw.iterative_scan', 'strict_order', true)`;
        return await tx.unsafe(
          `EXPLAIN SELECT row_id FROM memory_row_vectors
         ORDER BY embedding_hnsw <=> '[1,0,0]'::vector LIMIT 100`,
        );
      });
      assert.match(JSON.stringify(plan), /memory_row_vectors_hnsw/, "the index answers");
    } finally {
      await sql.unsafe("RESET enable_seqscan; RESET enable_sort").catch(() => {});
      await sql.end({ timeout: 1 });
      await store.close();
    }
  },
);
