/**
 * What a user reads about a conflict quotes the memories: the notice's message, the conflict's
 * detection reasons and its members' values are made of the rows' own words, never the rule
 * stage's index words (stems such as "databas", families such as "@store", states such as
 * "xstaterequir"). Facts are remembered into a real SQLite file and checked as the server does.
 */
import assert from "node:assert/strict";
import { detectOnPair } from "../helpers/conflict_pair.ts";
import { openTestContext } from "../helpers/context.ts";

const PAIRS: [string, string][] = [
  [
    "The staging database is stored in Frankfurt and listens on port 5432.",
    "The staging database is stored in Frankfurt and listens on port 6432.",
  ],
  ["Code reviews require one approval.", "Code reviews now require two approvals."],
  ["Anna started learning the cello in 2021.", "Anna began learning the cello in 2019."],
  [
    "Use pnpm, not npm, to install the frontend dependencies.",
    "Install the frontend dependencies with npm; pnpm is no longer used.",
  ],
];

/** Every word of `quoted` (a comma or space separated list) is written in one of `rows`. */
function assertOwnWords(quoted: string, rows: string[], where: string): void {
  for (const word of quoted.split(/[,\s]+/u).filter((w) => w !== "")) {
    assert.ok(rows.some((row) => row.includes(word)), `${where}: "${word}" is not in ${rows}`);
  }
}

Deno.test("notices and conflict details quote the memories' own words", async () => {
  for (const [first, second] of PAIRS) {
    const t = await openTestContext({ skipVec: true });
    try {
      const report = await detectOnPair(t, first, second);
      assert.equal(report.recorded.length, 1, `${first} / ${second}`);
      const { conflict, notices } = await t.store.read(async () => ({
        conflict: (await t.store.conflicts.get(report.recorded[0]))!,
        notices: await t.store.conflicts.notices({ statuses: ["pending"], limit: 10, offset: 0 }),
      }));
      const rows = [first, second];
      const reasons = (conflict.detection as { rule: { reasons: string[] } }).rule.reasons;
      const texts = [...reasons, ...notices.map((notice) => notice.message)];
      for (const text of texts) {
        assert.doesNotMatch(text, /@[a-z]|xstate/u, `index words in "${text}"`);
        const shared = text.match(/same attribute words: ([^(]*)\(/u);
        if (shared) assertOwnWords(shared[1], rows, "shared words");
        for (const [, left, right] of text.matchAll(/"([^"]*)" vs "([^"]*)"/gu)) {
          assertOwnWords(left, rows, "differing words");
          assertOwnWords(right, rows, "differing words");
        }
      }
      for (const member of conflict.members) {
        assertOwnWords(String(member.value ?? ""), rows, "member value");
      }
    } finally {
      t.cleanup();
    }
  }
});
