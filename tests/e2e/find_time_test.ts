/**
 * Time phrases as filters (issue 34), through the real server: a phrase in the query or the
 * `time` argument narrows `find` to its interval on the memory's event time (its ingest time
 * when it has none), and every answer that used a phrase says which, over which interval.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { startServer } from "../helpers/server.ts";

const DAY = 86_400_000;

/** Midnight UTC of the day `offset` days from today. */
function midnight(offset: number): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + offset);
}

const iso = (ms: number) => new Date(ms).toISOString();

onBothBackends(
  "find filters on time phrases from the query and the time argument",
  async (home, _backend, t) => {
    const server = await startServer(home, { env: { MEMA_TIME_ZONE: "UTC" } });
    try {
      const weekday = (new Date(midnight(0)).getUTCDay() + 6) % 7;
      const lastWeekWednesday = midnight(-weekday - 5) + DAY / 2;
      const facts = [
        {
          subject: "staging port decision",
          content: "Decided: the staging port moves to 8443.",
          event_time: iso(midnight(-1) + DAY / 2),
        },
        {
          subject: "staging port decision",
          content: "Decided: the staging port stays on 8080 for now.",
          event_time: "2023-05-10T12:00:00Z",
        },
        { subject: "standup notes", content: "The cache is warmed before each release." },
        {
          subject: "预发布端口",
          content: "我们决定把预发布端口改为 9443。",
          event_time: iso(lastWeekWednesday),
        },
      ];
      const ids: number[] = [];
      for (const fact of facts) {
        const written = await server.call("remember", { ...fact, workspace: "ops" });
        assert.ok(written.ok, JSON.stringify(written.data));
        ids.push(written.data.memory_id);
      }
      const [yesterdays, old, undated, chinese] = ids;
      const find = (data: Record<string, unknown>) =>
        server.call("find", { workspace: "ops", ...data });
      const found = (answer: { data: { results: { memory_id: number }[] } }) =>
        answer.data.results.map((r) => r.memory_id).sort((a, b) => a - b);

      await t.step("a phrase inside the query filters and is reported", async () => {
        const answer = await find({ query: "what staging port did we decide yesterday?" });
        assert.ok(answer.ok, JSON.stringify(answer.data));
        assert.deepEqual(found(answer), [yesterdays]);
        assert.deepEqual(answer.data.time_filter, {
          phrase: "yesterday",
          from: iso(midnight(-1)),
          to: iso(midnight(0)),
          field: "valid_window_or_event_time",
          source: "query",
        });
      });

      await t.step("the time argument filters; an absolute month reaches old facts", async () => {
        const answer = await find({ query: "staging port", time: "2023-05" });
        assert.ok(answer.ok, JSON.stringify(answer.data));
        assert.deepEqual(found(answer), [old]);
        assert.deepEqual(answer.data.time_filter, {
          phrase: "2023-05",
          from: "2023-05-01T00:00:00.000Z",
          to: "2023-06-01T00:00:00.000Z",
          field: "valid_window_or_event_time",
          source: "argument",
        });
      });

      await t.step('time: "off" turns recognition off', async () => {
        const answer = await find({ query: "staging port decided yesterday", time: "off" });
        assert.ok(answer.ok, JSON.stringify(answer.data));
        assert.ok(found(answer).includes(old), "the old decision is not filtered out");
        assert.ok(found(answer).includes(yesterdays));
        assert.equal(answer.data.time_filter, undefined);
      });

      await t.step("a time argument that is no phrase is invalid_input naming it", async () => {
        const answer = await find({ query: "staging port", time: "the other day" });
        assert.equal(answer.ok, false);
        assert.equal(answer.data.error, "invalid_input");
        assert.equal(answer.data.field, "time");
        assert.match(answer.data.reason, /"the other day"/);
      });

      await t.step("a query phrase that matches nothing falls back, with a warning", async () => {
        const answer = await find({ query: "staging port decision last year" });
        assert.ok(answer.ok, JSON.stringify(answer.data));
        assert.deepEqual(found(answer), [yesterdays, old]);
        assert.equal(answer.data.time_filter.applied, false);
        assert.equal(answer.data.time_filter.source, "query");
        const warning = answer.warnings.find((w) => w.includes('"last year"'));
        assert.ok(warning, JSON.stringify(answer.warnings));
        const year = new Date().getUTCFullYear() - 1;
        assert.ok(
          warning.includes(`${year}-01-01T00:00:00.000Z to ${year + 1}-01-01T00:00:00.000Z`),
          warning,
        );
      });

      await t.step("a calendar date inside the query ranks but does not filter", async () => {
        const answer = await find({ query: "staging port decision in May 2023" });
        assert.ok(answer.ok, JSON.stringify(answer.data));
        assert.equal(answer.data.time_filter, undefined);
        assert.deepEqual(found(answer), [yesterdays, old]);
        assert.equal(answer.data.results[0].memory_id, old, "the May 2023 fact ranks first");
      });

      await t.step(
        "an explicit phrase that matches nothing answers empty with a hint",
        async () => {
          const answer = await find({ query: "staging port", time: "Q1 2022" });
          assert.ok(answer.ok, JSON.stringify(answer.data));
          assert.deepEqual(answer.data.results, []);
          assert.equal(answer.data.time_filter.source, "argument");
          assert.equal(answer.data.time_filter.applied, undefined);
          assert.match(answer.data.hint, /"Q1 2022" \(2022-01-01T00:00:00\.000Z to 2022-04-01/);
        },
      );

      await t.step("without a query, a phrase browses its interval by stored time", async () => {
        const answer = await find({ time: "today" });
        assert.ok(answer.ok, JSON.stringify(answer.data));
        assert.deepEqual(found(answer), [undated], "the fact without event_time was stored today");
        assert.equal(answer.data.time_filter.from, iso(midnight(0)));
      });

      await t.step("a Chinese phrase inside the query", async () => {
        const answer = await find({ query: "上周决定的预发布端口" });
        assert.ok(answer.ok, JSON.stringify(answer.data));
        assert.deepEqual(found(answer), [chinese]);
        assert.equal(answer.data.time_filter.phrase, "上周");
        assert.equal(answer.data.time_filter.from, iso(midnight(-weekday - 7)));
        assert.equal(answer.data.time_filter.to, iso(midnight(-weekday)));
      });
    } finally {
      await server.close();
    }
  },
);

onBothBackends("find reads phrases in the configured time_zone", async (home) => {
  // UTC+14 all year: its days never start at a UTC midnight.
  const server = await startServer(home, { env: { MEMA_TIME_ZONE: "Pacific/Kiritimati" } });
  try {
    const written = await server.call("remember", {
      subject: "release note",
      content: "The release branch was cut.",
      workspace: "ops",
    });
    assert.ok(written.ok, JSON.stringify(written.data));
    const answer = await server.call("find", { workspace: "ops", time: "today" });
    assert.ok(answer.ok, JSON.stringify(answer.data));
    assert.deepEqual(answer.data.results.map((r: { memory_id: number }) => r.memory_id), [
      written.data.memory_id,
    ]);
    const local = new Date(Date.now() + 14 * 3600_000);
    const start = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()) -
      14 * 3600_000;
    assert.equal(answer.data.time_filter.from, iso(start));
    assert.equal(answer.data.time_filter.to, iso(start + DAY));
  } finally {
    await server.close();
  }
});
