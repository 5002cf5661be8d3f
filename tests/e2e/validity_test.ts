/**
 * Validity windows and as-of recall (issue 34), through the real server: windows given by the
 * caller or read from the fact's words (English and Chinese), closed when a new value replaces
 * a fact, shown by read, history and find, and `find` answering as of another time.
 */
import assert from "node:assert/strict";
import { makeTempHome, type ServerSession, startServer } from "../helpers/server.ts";
import { teamTest } from "../helpers/postgres_team.ts";

type Step = (name: string, fn: () => Promise<void>) => Promise<unknown>;

/** The scenario, on the server given (SQLite or PostgreSQL). */
async function validityScenario(server: ServerSession, step: Step): Promise<void> {
  const remember = async (data: Record<string, unknown>) => {
    const answer = await server.call("remember", { workspace: "ops", ...data });
    assert.ok(answer.ok, JSON.stringify(answer.data));
    return answer;
  };
  const find = (data: Record<string, unknown>) =>
    server.call("find", { workspace: "ops", content_mode: "full", ...data });
  {
    await step("a window stated in English is read and reported", async () => {
      const answer = await remember({
        subject: "staging port",
        content: "The staging database listens on port 5433 from 1 March 2024.",
      });
      assert.deepEqual(answer.data.write_hints.validity_read, {
        valid_from: { value: "2024-03-01T00:00:00.000Z", words: "from 1 March 2024" },
      });
      const read = await server.call("read", { memory_id: answer.data.memory_id });
      assert.equal(read.data.valid_from, "2024-03-01T00:00:00.000Z");
      assert.equal(read.data.valid_to, undefined);
    });

    await step("Chinese start and end edges are read", async () => {
      const answer = await remember({
        subject: "预发布端口",
        content: "自2024年3月起，预发布环境使用端口 9443，到2024年6月底为止。",
      });
      assert.deepEqual(answer.data.write_hints.validity_read, {
        valid_from: { value: "2024-03-01T00:00:00.000Z", words: "自2024年3月起" },
        valid_to: { value: "2024-07-01T00:00:00.000Z", words: "到2024年6月底" },
      });
      const read = await server.call("read", { memory_id: answer.data.memory_id });
      assert.equal(read.data.no_longer_valid, true, "a window that ended says so");
    });

    await step(
      "ambiguous text sets nothing; the caller's window wins over the text",
      async () => {
        const ambiguous = await remember({
          subject: "on-call",
          content: "Ann was on call since 2023, and Bob since 2024.",
        });
        assert.equal(ambiguous.data.write_hints, undefined);
        const given = await remember({
          subject: "freeze",
          content: "Code freeze from 1 March 2024.",
          valid_from: "2024-02-15",
        });
        assert.equal(given.data.write_hints, undefined);
        const read = await server.call("read", { memory_id: given.data.memory_id });
        assert.equal(read.data.valid_from, "2024-02-15T00:00:00.000Z");
      },
    );

    await step("a bad window is invalid_input and writes nothing", async () => {
      for (
        const [window, field] of [
          [{ valid_from: "2024-13-01" }, "valid_from"],
          [{ valid_from: "2024-06-01", valid_to: "2024-03-01" }, "valid_to"],
        ] as const
      ) {
        const answer = await server.call("remember", {
          workspace: "ops",
          subject: "bad window",
          content: `Quokka window ${field}`,
          ...window,
        });
        assert.equal(answer.ok, false);
        assert.equal(answer.data.error, "invalid_input");
        assert.equal(answer.data.field, field);
      }
      const batch = await server.call("batch_remember", {
        items: [
          { workspace: "ops", subject: "fine", content: "Quokka fine" },
          { workspace: "ops", subject: "bad", content: "Quokka bad", valid_to: "soon" },
        ],
      });
      assert.equal(batch.ok, false);
      assert.equal(batch.data.field, "items.1.valid_to");
      const none = await find({ query: "quokka" });
      assert.deepEqual(none.data.results, []);
    });

    let portId = 0;
    await step(
      "a new value closes the old version's window where the new one opens",
      async () => {
        const first = await remember({ subject: "api port", content: "The API port is 8080." });
        portId = first.data.memory_id;
        const updated = await server.call("update", {
          memory_id: portId,
          new_content: "The API port is 9090.",
          valid_from: "2024-05-01",
        });
        assert.ok(updated.ok, JSON.stringify(updated.data));
        assert.deepEqual(updated.data.closed_previous, {
          version: 1,
          valid_to: "2024-05-01T00:00:00.000Z",
        });
        const read = await server.call("read", { memory_id: portId, include_history: true });
        assert.equal(read.data.valid_from, "2024-05-01T00:00:00.000Z");
        assert.equal(read.data.history[0].valid_to, "2024-05-01T00:00:00.000Z");
        assert.equal(read.data.history[0].no_longer_valid, true);
      },
    );

    await step("previous_still_valid keeps the old window open", async () => {
      const first = await remember({ subject: "mirror", content: "Mirror A serves Europe." });
      const updated = await server.call("update", {
        memory_id: first.data.memory_id,
        new_content: "Mirror A serves Europe and Africa.",
        previous_still_valid: true,
      });
      assert.equal(updated.data.closed_previous, undefined);
      const read = await server.call("read", {
        memory_id: first.data.memory_id,
        include_history: true,
      });
      assert.equal(read.data.history[0].valid_to, undefined);
    });

    await step("as_of answers with the version valid then, marked with its window", async () => {
      const march = await find({ query: "API port", as_of: "2024-03-15" });
      assert.ok(march.ok, JSON.stringify(march.data));
      const then = march.data.results.find((r: { memory_id: number }) => r.memory_id === portId);
      assert.equal(then.content, "The API port is 8080.");
      assert.equal(then.version, 1);
      assert.equal(then.current_version, 2);
      assert.equal(then.valid_to, "2024-05-01T00:00:00.000Z");
      // The matching passages are the earlier version's own.
      const hits = await find({ query: "API port", as_of: "2024-03-15", content_mode: "hits" });
      const shown = hits.data.results.find((r: { memory_id: number }) => r.memory_id === portId);
      assert.match(JSON.stringify(shown), /8080/);
      assert.doesNotMatch(JSON.stringify(shown), /9090/);
      const june = await find({ query: "API port", as_of: "2024-06-15" });
      const now = june.data.results.find((r: { memory_id: number }) => r.memory_id === portId);
      assert.equal(now.content, "The API port is 9090.");
      assert.equal(now.current_version, undefined);
      const plain = await find({ query: "API port" });
      assert.equal(plain.data.results[0].content, "The API port is 9090.");
    });

    await step("as_of over a superseded and a retired fact", async () => {
      const old = await remember({
        subject: "deploy day",
        content: "Deploys run on Tuesdays.",
        valid_from: "2023-01-01",
      });
      const fresh = await remember({
        subject: "deploy day",
        content: "Deploys run on Thursdays.",
        valid_from: "2024-04-01",
      });
      const retired = await server.call("retire", {
        memory_id: old.data.memory_id,
        superseded_by: fresh.data.memory_id,
        reason: "the schedule moved",
        authorized: true,
      }, "memory_govern");
      assert.ok(retired.ok, JSON.stringify(retired.data));
      assert.equal(retired.data.valid_to, "2024-04-01T00:00:00.000Z");
      const ids = (answer: { data: { results: { memory_id: number }[] } }) =>
        answer.data.results.map((r) => r.memory_id);
      const before = await find({ query: "deploys run", as_of: "2024-02-01" });
      assert.deepEqual(ids(before), [old.data.memory_id], "the superseded fact answers alone");
      const after = await find({ query: "deploys run", as_of: "2024-05-01" });
      assert.deepEqual(ids(after), [fresh.data.memory_id]);
      const today = await find({ query: "deploys run" });
      assert.deepEqual(ids(today), [fresh.data.memory_id]);

      const gone = await remember({ subject: "office", content: "The office wifi is Orchard." });
      const storedBy = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const cut = await server.call("retire", {
        memory_id: gone.data.memory_id,
        reason: "no office any more",
        authorized: true,
      }, "memory_govern");
      assert.ok(cut.ok, JSON.stringify(cut.data));
      const farFuture = await find({ query: "office wifi", as_of: "2999-01-01" });
      assert.deepEqual(ids(farFuture), [], "a retired fact held only until it was retired");
      const whileCurrent = await find({ query: "office wifi", as_of: storedBy });
      assert.deepEqual(ids(whileCurrent), [gone.data.memory_id]);
      const recorded = await find({ query: "office wifi", known_at: storedBy });
      assert.deepEqual(ids(recorded), [gone.data.memory_id], "known before it was retired");
    });

    await step("known_at answers with what was recorded by then", async () => {
      const first = await remember({ subject: "cache size", content: "The cache holds 2 GB." });
      const recorded = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await server.call("update", {
        memory_id: first.data.memory_id,
        new_content: "The cache holds 4 GB.",
      });
      const then = await find({ query: "cache holds", known_at: recorded });
      assert.equal(then.data.results[0].content, "The cache holds 2 GB.");
      assert.equal(then.data.results[0].current_version, 2);
      const before = await find({ query: "cache holds", known_at: "2000-01-01" });
      assert.deepEqual(before.data.results, [], "nothing was recorded in 2000");
      const bad = await find({ query: "cache holds", known_at: "yesterday-ish" });
      assert.equal(bad.data.error, "invalid_input");
      assert.equal(bad.data.field, "known_at");
    });

    await step("batch_find asks about another time, per batch or per query", async () => {
      const batch = (data: Record<string, unknown>) =>
        server.call("batch_find", { workspace: "ops", content_mode: "full", ...data });
      type Row = { memory_id: number; content: string; matched_queries: string[] };
      const rows = (answer: { data: { results: Row[] } }, id: number) =>
        answer.data.results.filter((r) => r.memory_id === id);
      const both = await batch({
        queries: [{ id: "march", query: "API port", as_of: "2024-03-15" }, {
          id: "now",
          query: "API port",
        }],
      });
      assert.ok(both.ok, JSON.stringify(both.data));
      const shown = rows(both, portId);
      assert.deepEqual(
        shown.map((r) => [r.content, r.matched_queries]).sort(),
        [["The API port is 8080.", ["march"]], ["The API port is 9090.", ["now"]]],
        "one memory at two versions is two answers",
      );
      const whole = await batch({ queries: ["API port", "deploys run"], as_of: "2024-02-01" });
      assert.deepEqual(rows(whole, portId).map((r) => r.content), ["The API port is 8080."]);
      assert.equal(whole.data.results.find((r: Row) => r.memory_id === portId).current_version, 2);
      assert.ok(
        whole.data.results.every((r: Row) => !r.content.startsWith("Deploys run on Thursdays")),
        "a fact not yet valid drops out of every query",
      );
      assert.ok(whole.data.results.some((r: Row) => r.content === "Deploys run on Tuesdays."));
      for (
        const [data, field] of [
          [{ queries: ["API port", { query: "port", known_at: "soon" }] }, "queries.1.known_at"],
          [{ queries: ["API port"], as_of: "2024-02-30x" }, "as_of"],
        ] as const
      ) {
        const bad = await batch(data);
        assert.equal(bad.ok, false);
        assert.equal(bad.data.error, "invalid_input");
        assert.equal(bad.data.field, field);
      }
    });
  }
}

Deno.test("validity windows: set, read from text, closed on supersede, answered as of", async (t) => {
  const home = makeTempHome();
  const server = await startServer(home, { env: { MEMA_TIME_ZONE: "UTC" } });
  try {
    await validityScenario(server, (name, fn) => t.step(name, fn));
  } finally {
    await server.close();
    home.cleanup();
  }
});

teamTest("validity windows and as-of recall, as on SQLite", async (team) => {
  const server = await startServer(team.home(), {
    env: { MEMA_DB_URL: team.url, MEMA_TIME_ZONE: "UTC" },
  });
  try {
    await validityScenario(server, (_name, fn) => fn());
  } finally {
    await server.close();
  }
});
