/**
 * Lean answers, as the agent pays for them: the standing "semantic recall is off" notice once
 * per connection (and always in `status`), and a `find` page whose text block is at most 1.6×
 * the content it carries. Spawns the real server over stdio.
 * @module
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { makeTempHome, startServer } from "../helpers/server.ts";

const FACTS = [
  "The billing API listens on port 8080.",
  "Billing deploys run on Tuesdays after 14:00 UTC.",
  "The billing database is PostgreSQL 16.",
  "Billing alerts go to the #billing-oncall channel.",
  "The billing service is owned by the payments team.",
  "Billing invoices are generated nightly at 02:00.",
  "The billing staging URL is billing.staging.example.com.",
  "Billing uses Stripe for card payments.",
];

const OFF = /semantic recall is off/;

Deno.test("e2e: the semantic-recall notice comes once per connection and always in status", async () => {
  const home = makeTempHome();
  try {
    for (const connection of ["first", "second"]) {
      const server = await startServer(home);
      try {
        const first = await server.call("find", { query: "billing" });
        assert.ok(first.warnings.some((w) => OFF.test(w)), `${connection}: first answer`);
        const second = await server.call("find", { query: "billing" });
        assert.deepEqual(second.warnings, [], `${connection}: second answer`);
        assert.equal(second.degraded, false);
        assert.equal(second.mode, "lexical");
        const error = await server.call("read", { memory_id: 999_999 });
        assert.equal(error.ok, false);
        assert.deepEqual(error.warnings, [], `${connection}: an error answer`);
        for (let i = 0; i < 2; i++) {
          const status = await server.call("status");
          assert.ok(status.warnings.some((w) => OFF.test(w)), `${connection}: status ${i}`);
        }
      } finally {
        await server.close();
      }
    }
  } finally {
    home.cleanup();
  }
});

onBothBackends(
  "find over 8 short facts sends an envelope at most 1.6× their text",
  async (home) => {
    const server = await startServer(home);
    try {
      for (const content of FACTS) {
        const stored = await server.call("remember", {
          content,
          subject: "billing service",
          workspace: "billing",
        });
        assert.equal(stored.ok, true, JSON.stringify(stored.data));
      }
      const result = await server.client.callTool({
        name: "memory",
        arguments: { action: "find", data: { query: "billing", workspace: "billing" } },
      });
      const text = (result.content as { type: string; text: string }[])[0].text;
      const envelope = result.structuredContent as {
        data: { results: { subject: string; content: string }[] };
      };
      assert.equal(envelope.data.results.length, 8);
      const carried = envelope.data.results.reduce(
        (sum, r) => sum + r.subject.length + r.content.length,
        0,
      );
      assert.ok(text.length <= 1.6 * carried, `${text.length} chars for ${carried}: ${text}`);
      // Those who ask get every field back.
      const whole = await server.call("find", {
        query: "billing",
        workspace: "billing",
        include_size: true,
      });
      for (const key of ["score", "ingest_time", "content_hash", "version", "workspace"]) {
        assert.ok(key in whole.data.results[0], key);
      }
      assert.equal(whole.data.size.returned_count, 8);
      // A slip of the keyboard still finds the fact, and says which word it matched.
      const typo = await server.call("find", {
        query: "postgressql",
        workspace: "billing",
        include_size: true,
      });
      assert.equal(typo.data.results.length, 1, JSON.stringify(typo.data));
      assert.match(typo.data.results[0].content, /PostgreSQL 16/);
      assert.deepEqual(typo.data.results[0].matched_terms, ["postgresql"]);
    } finally {
      await server.close();
    }
  },
);
