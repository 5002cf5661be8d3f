import assert from "node:assert/strict";
import { ACCESS_REFUSED_ACTION, auditAccessRefusal } from "../../src/http/access_refusals.ts";
import { REFUSAL_AUDIT_ROWS_PER_WINDOW } from "../../src/http/access_token_constants.ts";
import { openTestContext } from "../helpers/context.ts";

async function refusalRows(store: Awaited<ReturnType<typeof openTestContext>>["store"]) {
  return (await store.read(async () =>
    await store.listAudit({ action: ACCESS_REFUSED_ACTION, limit: 1000, offset: 0 })
  )).rows;
}

Deno.test("refusal audit: repeats in one minute are one row with a count; a new minute starts a new row", async () => {
  const test = await openTestContext({ skipVec: true });
  try {
    for (const second of ["05", "20", "59"]) {
      await auditAccessRefusal(test.store, { kind: "unknown_token", peer: "10.0.0.7" }, {
        now: `2026-12-04T14:02:${second}.000Z`,
      });
    }
    await auditAccessRefusal(test.store, { kind: "unknown_token", peer: "10.0.0.8" }, {
      now: "2026-12-04T14:02:30.000Z",
    });
    await auditAccessRefusal(test.store, { kind: "unknown_token", peer: "10.0.0.7" }, {
      now: "2026-12-04T14:03:00.000Z",
    });
    const rows = (await refusalRows(test.store)).reverse();
    assert.deepEqual(
      rows.map((
        row,
      ) => [row.detail.peer, row.detail.count, row.detail.first_at, row.detail.last_at]),
      [
        ["10.0.0.7", 3, "2026-12-04T14:02:05.000Z", "2026-12-04T14:02:59.000Z"],
        ["10.0.0.8", 1, "2026-12-04T14:02:30.000Z", "2026-12-04T14:02:30.000Z"],
        ["10.0.0.7", 1, "2026-12-04T14:03:00.000Z", "2026-12-04T14:03:00.000Z"],
      ],
    );
  } finally {
    test.cleanup();
  }
});

Deno.test("refusal audit: a flood that varies what it sends adds a bounded number of rows a minute", async () => {
  const test = await openTestContext({ skipVec: true });
  try {
    const token = { name: "alpha-bot", client: "team", agentId: "alpha-agent" };
    for (let i = 0; i < 500; i++) {
      await auditAccessRefusal(test.store, {
        kind: "workspace_not_allowed",
        peer: "127.0.0.1",
        token,
        workspace: `probe-${i}`,
      }, { now: `2026-12-04T14:02:${String(i % 60).padStart(2, "0")}.000Z` });
    }
    const rows = await refusalRows(test.store);
    assert.equal(rows.length, REFUSAL_AUDIT_ROWS_PER_WINDOW + 1);
    const counted = rows.reduce((sum, row) => sum + Number(row.detail.count), 0);
    assert.equal(counted, 500, "every refusal is counted somewhere");
    const overflow = rows.filter((row) => row.detail.kind === "overflow");
    assert.equal(overflow.length, 1);
    assert.equal(overflow[0].detail.count, 500 - REFUSAL_AUDIT_ROWS_PER_WINDOW);
  } finally {
    test.cleanup();
  }
});
