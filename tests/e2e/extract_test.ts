/**
 * `memory` action `extract` through the real server (issue 39): candidate facts from a
 * conversation summary, each a verbatim clause with a subject, tags and the date it states;
 * nothing stored until the agent keeps some with `batch_remember`; bad input is refused.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { startServer } from "../helpers/server.ts";

const SUMMARY =
  "Thanks for the catch-up! Priya moved the Oslo launch to 8 April 2024; the Berlin beta stays open until May 2024. " +
  "They both emphasized the importance of rest. Should we order more laptops?\n" +
  "- Marco joined the platform team last week";

onBothBackends(
  "extract proposes verbatim facts with subject, tags and dates; stores nothing",
  async (home) => {
    const server = await startServer(home, { env: { MEMA_TIME_ZONE: "UTC" } });
    try {
      const answer = await server.call("extract", { text: SUMMARY });
      assert.equal(answer.ok, true, JSON.stringify(answer.data));
      const candidates = answer.data.candidates as {
        text: string;
        subject: string;
        tags: string[];
        event_time?: string;
        valid_until?: string;
        span: { start: number; end: number };
      }[];
      const texts = candidates.map((c) => c.text);
      for (const c of candidates) {
        assert.equal(SUMMARY.slice(c.span.start, c.span.end), c.text, "verbatim, with its offsets");
      }
      const launch = candidates.find((c) =>
        c.text === "Priya moved the Oslo launch to 8 April 2024"
      );
      assert.ok(launch, texts.join(" | "));
      assert.equal(launch.event_time, "2024-04-08T00:00:00.000Z");
      assert.match(launch.subject, /Priya/);
      assert.ok(launch.tags.includes("priya") && launch.tags.includes("oslo"), launch.tags.join());
      const beta = candidates.find((c) => c.text.startsWith("the Berlin beta"));
      assert.equal(beta?.valid_until, "2024-06-01T00:00:00.000Z");
      assert.ok(texts.includes("Marco joined the platform team last week"), texts.join(" | "));
      assert.ok(!texts.some((t) => /Thanks|emphasized|laptops/.test(t)), texts.join(" | "));
      assert.equal(answer.data.stored, false);

      const found = await server.call("find", { query: "Oslo launch", workspace: "team" });
      assert.equal(found.data.results.length, 0, "extract stores nothing");
      const kept = await server.call("batch_remember", {
        items: [{
          content: launch.text,
          subject: launch.subject,
          tags: launch.tags,
          workspace: "team",
        }],
      });
      assert.equal(kept.ok, true, JSON.stringify(kept.data));

      assert.equal((await server.call("extract", { text: "   " })).ok, false);
      const long = await server.call("extract", { text: "Priya ships. ".repeat(2_000) });
      assert.equal(long.ok, false);
    } finally {
      await server.close();
    }
  },
);
