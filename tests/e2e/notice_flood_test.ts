/**
 * A flood of notices (a large import whose documents disagree) stays one line on responses,
 * can be cleared in one call, and a write that waited for its verdict still sees it.
 */
import assert from "node:assert/strict";
import { type E2eBackend, onBothBackends } from "../helpers/e2e_backends.ts";
import { pendingNotices } from "../helpers/postgres_rows.ts";
import { DatabaseSync } from "node:sqlite";
import { runCli, type ServerSession, startServer, type TempHome } from "../helpers/server.ts";

/** Pairs of imported files that disagree about a port: each pair gives a conflict notice. */
const PAIRS = 7;

/** Imports `PAIRS` pairs of contradicting documents into a workspace with the CLI. */
async function importContradictions(
  home: TempHome,
  workspace: string,
  folder: string,
  pairs = PAIRS,
) {
  const dir = `${home.dir}/${folder}`;
  Deno.mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= pairs; i++) {
    const name = `${folder}${i}`;
    Deno.writeTextFileSync(
      `${dir}/${name}-a.md`,
      `# ${name} service\n\nThe ${name} API listens on port 80${i}${i}.\n`,
    );
    Deno.writeTextFileSync(
      `${dir}/${name}-b.md`,
      `# ${name} service\n\nThe ${name} API listens on port 90${i}${i}.\n`,
    );
  }
  const run = await runCli(home, ["import", dir, "--workspace", workspace]);
  assert.equal(run.code, 0, run.stderr);
}

/** Unhandled notices visible to this caller (a list call: it never marks any delivered). */
async function unhandled(server: ServerSession, data: Record<string, unknown> = {}) {
  const list = await server.repair("notice", { action: "list", ...data });
  assert.equal(list.ok, true, JSON.stringify(list.data));
  return list;
}

/**
 * Calls until the server's detection jobs have turned the imported contradictions into at
 * least `wanted` notices; returns every response's `notices` on the way.
 */
async function untilNotices(server: ServerSession, wanted: number, filter = {}) {
  const seen: unknown[][] = [];
  for (let attempt = 0; attempt < 200; attempt++) {
    const list = await unhandled(server, filter);
    if (list.notices) seen.push(list.notices);
    if (list.data.total >= wanted) return seen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fewer than ${wanted} notices appeared`);
}

/** How many notices are pending, read from the database beside the server (read-only). */
function pendingInDatabase(home: TempHome, backend: E2eBackend): Promise<number> {
  if (backend.name === "postgres") return pendingNotices(backend.url);
  const db = new DatabaseSync(home.dbPath, { readOnly: true });
  try {
    const row = db.prepare("SELECT count(*) AS n FROM notices WHERE status = 'pending'").get();
    return Promise.resolve(Number(row?.n));
  } finally {
    db.close();
  }
}

/**
 * Polls the database until `wanted` notices are pending. A bound, not a timing: on a loaded CI
 * machine 100 notices took ~2 s on SQLite and ~42 s on PostgreSQL (its conflict checks make a
 * round trip per statement, docs/POSTGRES.md "Not done yet").
 */
async function untilPendingInDatabase(home: TempHome, backend: E2eBackend, wanted: number) {
  const deadline = Date.now() + 180_000;
  let pending = 0;
  while (Date.now() < deadline) {
    pending = await pendingInDatabase(home, backend);
    if (pending >= wanted) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fewer than ${wanted} notices became pending (${pending})`);
}

function summaryOf(notices: unknown[] | undefined) {
  assert.ok(notices, "a summary");
  assert.equal(notices.length, 1, JSON.stringify(notices));
  const [summary] = notices as Record<string, unknown>[];
  assert.equal(summary.kind, "notice_summary", JSON.stringify(summary));
  return summary as {
    new: number;
    unhandled: number;
    by_severity: Record<string, number>;
    list: { tool: string; task: string; data: Record<string, unknown> };
    message: string;
  };
}

onBothBackends(
  "notices: a backlog rides on responses as one summary line, told once, never its bodies",
  async (home) => {
    await importContradictions(home, "npm-docs", "pkg");
    const server = await startServer(home);
    try {
      const seen = await untilNotices(server, PAIRS);
      // Every response that spoke of notices carried one short line: counts and the call.
      for (const notices of seen) {
        const summary = summaryOf(notices);
        assert.ok(JSON.stringify(notices).length < 600, JSON.stringify(notices));
        assert.equal(summary.list.tool, "memory_repair");
        assert.deepEqual(summary.list.data, { action: "list" });
        assert.ok(!("notice_id" in summary) && !("memory_ids" in summary));
      }
      const told = seen.map((notices) => summaryOf(notices).new).reduce((a, b) => a + b, 0);
      const list = await unhandled(server);
      assert.equal(told, list.data.total, "each notice is counted once");
      assert.equal(summaryOf(seen.at(-1)).unhandled, list.data.total);
      // Told: the next answers carry nothing until more notices arrive.
      const found = await server.call("find", { query: "API port" });
      assert.equal(found.ok, true);
      assert.equal(found.notices, undefined, JSON.stringify(found.notices));
      // The call the summary names lists them, with their bodies, paged.
      assert.ok(list.data.notices.length >= PAIRS);
      assert.equal(list.data.has_more, false);
      const page = await unhandled(server, { limit: 2, offset: 2 });
      assert.equal(page.data.notices.length, 2);
      assert.equal(page.data.has_more, true);
      assert.equal(page.data.notices[0].notice_id, list.data.notices[2].notice_id);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "notices: a write that waited for its verdict carries that one notice, not the backlog",
  async (home, backend) => {
    Deno.mkdirSync(`${home.dir}/pkg`);
    Deno.writeTextFileSync(
      `${home.dir}/pkg/billing.md`,
      "# billing service\n\nThe billing service sends invoices on the 1st of each month.\n",
    );
    await importContradictions(home, "npm-docs", "pkg");
    const server = await startServer(home, { env: { MEMA_NOTICE_SYNC_WAIT_MS: "5000" } });
    try {
      // Wait for the import's notices without a call (a call would be told of them).
      await untilPendingInDatabase(home, backend, PAIRS);
      const second = await server.call("remember", {
        content: "The billing service sends invoices on the 15th of each month.",
        subject: "billing service",
        workspace: "npm-docs",
      });
      assert.equal(second.ok, true, JSON.stringify(second.data));
      const notices = (second.notices ?? []) as Record<string, unknown>[];
      const bodies = notices.filter((n) => n.kind !== "notice_summary");
      assert.equal(bodies.length, 1, JSON.stringify(second.notices));
      assert.ok((bodies[0].memory_ids as number[]).includes(second.data.memory_id));
      assert.equal(typeof bodies[0].notice_id, "number");
      // The backlog is a count beside it, not bodies.
      assert.equal(notices.length, 2, JSON.stringify(notices));
      assert.ok(summaryOf(notices.slice(1)).new >= PAIRS);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "notices: bulk dismiss by workspace and source, dry run first, bounded, audited",
  async (home) => {
    await importContradictions(home, "npm-docs", "pkg");
    await importContradictions(home, "team", "lib");
    const server = await startServer(home);
    try {
      await untilNotices(server, 2 * PAIRS);
      const before = await unhandled(server);

      // No notice_id and no filter: refused, nothing changes.
      const bare = await server.repair("notice", { action: "dismiss", dry_run: false });
      assert.equal(bare.ok, false);
      assert.equal(bare.data.error, "invalid_input");
      const late = await server.repair("notice", {
        action: "dismiss",
        created_after: "last tuesday",
        dry_run: false,
      });
      assert.deepEqual([late.ok, late.data.field], [false, "created_after"]);
      // One notice and a filter in one call: refused, never a filter silently ignored.
      const firstId = (before.data.notices as { notice_id: number }[])[0].notice_id;
      for (
        const [extra, field] of [
          [{ workspace: "team" }, "workspace"],
          [{ source_ref_prefix: "lib" }, "source_ref_prefix"],
          [{ all: true }, "all"],
          [{ dry_run: false }, "dry_run"],
        ] as const
      ) {
        const mixed = await server.repair("notice", {
          action: "dismiss",
          notice_id: firstId,
          ...extra,
        });
        assert.deepEqual([mixed.ok, mixed.data.error, mixed.data.field], [
          false,
          "invalid_input",
          field,
        ]);
      }
      const listOne = await server.repair("notice", { action: "list", notice_id: firstId });
      assert.deepEqual([listOne.ok, listOne.data.field], [false, "notice_id"]);
      assert.equal((await unhandled(server)).data.total, before.data.total);

      // The dry run (the default) counts and changes nothing.
      const filter = { workspace: "npm-docs", agent_id: "mema-import" };
      const dry = await server.repair("notice", { action: "dismiss", ...filter });
      assert.equal(dry.ok, true, JSON.stringify(dry.data));
      assert.deepEqual([dry.data.dry_run, dry.data.matching, dry.data.would_change], [
        true,
        PAIRS,
        PAIRS,
      ]);
      assert.deepEqual(dry.data.next.data, { action: "dismiss", ...filter, dry_run: false });
      const bySource = await server.repair("notice", {
        action: "dismiss",
        source_ref_prefix: "lib",
      });
      assert.equal(bySource.data.matching, PAIRS);
      assert.equal((await unhandled(server)).data.total, before.data.total);

      // Bounded per call: has_more says to go on.
      const some = await server.repair("notice", {
        action: "dismiss",
        ...filter,
        limit: 3,
        dry_run: false,
        reason: "README import, not facts",
      });
      assert.deepEqual([some.data.changed, some.data.has_more, some.data.remaining], [
        3,
        true,
        PAIRS - 3,
      ]);
      const rest = await server.repair("notice", { action: "dismiss", ...filter, dry_run: false });
      assert.deepEqual([rest.data.changed, rest.data.has_more], [PAIRS - 3, false]);
      assert.equal(rest.data.next, null);

      // The other workspace's notices are untouched; dismissed ones never come back.
      const left = await unhandled(server);
      assert.equal(left.data.total, before.data.total - PAIRS);
      const team = await unhandled(server, { workspace: "team" });
      assert.equal(team.data.total, PAIRS);
      assert.equal((await unhandled(server, { workspace: "npm-docs" })).data.total, 0);
      const dismissed = await unhandled(server, { workspace: "npm-docs", status: "dismissed" });
      assert.equal(dismissed.data.total, PAIRS);

      // One audit row per bulk call, with the filter and the count.
      const audit = await server.callRaw({
        view: "audit",
        data: { action: "notice_bulk_dismiss" },
      }, "memory_review");
      const rows = audit.data.entries as { detail: Record<string, unknown>; reason: string }[];
      assert.equal(rows.length, 2);
      assert.deepEqual(rows.map((row) => row.detail.count).sort(), [3, PAIRS - 3].sort());
      assert.deepEqual(rows[0].detail.filter, filter);
      assert.ok(rows.some((row) => row.reason === "README import, not facts"));

      // resolve works the same way, by kind over everything left.
      const kinds = Object.keys(team.data.by_kind);
      const resolved = await server.repair("notice", {
        action: "resolve",
        kind: kinds[0],
        dry_run: false,
      });
      assert.equal(resolved.data.changed, team.data.by_kind[kinds[0]]);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "notices: under strict isolation a bulk change touches only the caller's workspace",
  async (home, backend) => {
    await importContradictions(home, "npm-docs", "pkg");
    await importContradictions(home, "team", "lib");
    const strict = await startServer(home, {
      env: { MEMA_WORKSPACE_ISOLATION: "strict", MEMA_WORKSPACE: "team" },
    });
    try {
      await untilPendingInDatabase(home, backend, 2 * PAIRS);
      const mine = await unhandled(strict);
      assert.equal(mine.data.total, PAIRS, "only the caller's own notices are listed");
      const elsewhere = await strict.repair("notice", {
        action: "dismiss",
        workspace: "npm-docs",
        dry_run: false,
      });
      assert.deepEqual([elsewhere.ok, elsewhere.data.field], [false, "workspace"]);
      const all = await strict.repair("notice", { action: "dismiss", all: true, dry_run: false });
      assert.equal(all.data.changed, PAIRS);
    } finally {
      await strict.close();
    }
    const open = await startServer(home);
    try {
      const left = await unhandled(open, { workspace: "npm-docs" });
      assert.equal(left.data.total, PAIRS, "the other workspace's notices are untouched");
    } finally {
      await open.close();
    }
  },
);

onBothBackends(
  "notices: a notice backlog warns in mema doctor without failing CI, unless --strict",
  async (home, backend) => {
    // The 200-README import of the report: enough notices to pass doctor's backlog threshold.
    await importContradictions(home, "npm-docs", "pkg", 100);
    const server = await startServer(home);
    try {
      await untilPendingInDatabase(home, backend, 100);
      const plain = await runCli(home, ["doctor"]);
      assert.equal(plain.code, 0, plain.stdout);
      assert.match(plain.stdout, /WARN notices\.backlog: \d+ undismissed notices/);
      assert.match(plain.stdout, /fail only with --strict/);
      const strict = await runCli(home, ["doctor", "--strict", "--json"]);
      assert.equal(strict.code, 1, strict.stdout);
      const report = JSON.parse(strict.stdout);
      assert.equal(report.strict, true);
      const finding = report.findings.find((f: { check_id: string }) =>
        f.check_id === "notices.backlog"
      );
      assert.equal(finding.severity, "warning");
      // The fix names the one call that clears the backlog; making it clears the finding.
      const call = JSON.parse(
        finding.fix_hint.match(/in one call with memory_repair (\{.*?\}\})/)[1],
      );
      const cleared = await server.repair(call.task, call.data);
      assert.ok(cleared.data.changed >= 100, JSON.stringify(cleared.data));
      const after = JSON.parse((await runCli(home, ["doctor", "--json"])).stdout);
      const notices = after.findings.find((f: { check_id: string }) =>
        f.check_id === "notices.backlog"
      );
      assert.deepEqual([notices.severity, notices.title], ["info", "0 undismissed notices"]);
    } finally {
      await server.close();
    }
  },
);
