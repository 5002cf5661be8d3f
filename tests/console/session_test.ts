/**
 * Console sessions without a server: the return-path check and how many sessions are kept.
 * (The console's own behaviour over HTTP and in Chromium is in console_test.ts.)
 */
import assert from "node:assert/strict";
import { MAX_CONSOLE_SESSIONS } from "../../src/console/constants.ts";
import { ConsoleSessions, safeReturnPath, sessionPath } from "../../src/console/session.ts";

const WITHIN = { origin: "http://127.0.0.1:8766", root: `/s/${"a".repeat(43)}` };

Deno.test("console session: a return path is kept only when it is a plain page path", () => {
  for (
    const good of [
      "/",
      "/memories",
      "/memories?q=office+address&status=active",
      "/memories/12?from=1&to=2",
      "/conflicts?status=resolved&offset=20",
      "/memories?q=caf%C3%A9",
      "/memories?q=a//b",
    ]
  ) {
    assert.equal(safeReturnPath(good, WITHIN), good, good);
  }
  for (
    const bad of [
      null,
      undefined,
      "",
      "memories",
      "/\t/127.0.0.2:9/x",
      "/\n/evil.example",
      "//evil.example",
      "/\\evil.example",
      "\\\\evil.example",
      "/x\\y",
      "http://evil.example/",
      "javascript:alert(1)",
      "/../x",
      "/a/./b",
      "/%2e%2e/x",
      "/.%2E/x",
      "/a//b",
      "/x y",
      '/x"y',
      "/x<y",
      "/x#y",
      "/%zz",
      "/x\u0000",
      "/\u00e9",
      `/${"x".repeat(5000)}`,
    ]
  ) {
    assert.equal(safeReturnPath(bad, WITHIN), undefined, JSON.stringify(bad));
  }
});

Deno.test("console session: past the limit the least recently used session ends", () => {
  let counter = 0;
  const sessions = new ConsoleSessions(() => `secret-${++counter}`.padEnd(43, "x"));
  const first = sessions.open();
  const second = sessions.open();
  assert.ok(sessionPath(first).startsWith("/s/secret-1"));
  assert.notEqual(first.csrf, first.secret, "the CSRF value is not the session's secret");
  for (let i = 2; i < MAX_CONSOLE_SESSIONS; i++) sessions.open();
  assert.equal(sessions.find(first.secret), first, "in use: it becomes the most recent");
  sessions.open();
  assert.equal(sessions.find(second.secret), undefined, "the least recently used ended");
  assert.equal(sessions.find(first.secret), first);
  assert.equal(sessions.find("secret-unknown".padEnd(43, "x")), undefined);
  assert.equal(sessions.find(""), undefined);
});
