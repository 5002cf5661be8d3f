/**
 * Answers a stdio client can read: the MCP SDK's stdio client closes the
 * session when a line passes 10 MiB, so every tool answer stays under 8 MiB
 * (text block and structuredContent together). Large answers are cut where the
 * content is, and the call they name reads the rest back exactly.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { ANSWER_MAX_BYTES } from "../../src/mcp/answer_constants.ts";
import { connectHttp, identityHeaders, startHttpServer } from "../helpers/http_server.ts";
import { type Envelope, type ServerSession, startServer } from "../helpers/server.ts";

/** About 1.9 MB of text that JSON escapes lightly (quotes and backslashes cost two bytes). */
function bigText(word: string): string {
  const line = `${word} keeps "the ledger" under C:\\ledgers\\${word} for the audit.\n`;
  return line.repeat(Math.ceil(1_900_000 / line.length)).slice(0, 1_900_000);
}

type Next = { tool: string; action: string; data: Record<string, unknown> };

/** Follows `next` read calls from a first read answer and puts the pages together. */
async function readAll(server: Pick<ServerSession, "call">, first: Envelope): Promise<string> {
  let answer = first;
  let content = "";
  let pages = 0;
  for (;;) {
    assert.equal(answer.ok, true, JSON.stringify(answer.data).slice(0, 300));
    content += answer.data.content;
    pages++;
    if (!answer.data.truncated) return content;
    const { span, next } = answer.data as {
      span: { end: number; total_chars: number };
      next: Next;
    };
    assert.ok(span.end < span.total_chars, JSON.stringify(span));
    assert.equal(next.tool, "memory");
    assert.equal(next.action, "read");
    assert.equal((next.data.span as { start: number }).start, span.end);
    assert.ok(pages < 20, "reading the rest ends");
    answer = await server.call(next.action, next.data);
  }
}

onBothBackends(
  "stdio: batch_read, find full and read of large or escape-heavy memories stay readable; the named calls read the rest exactly",
  async (home) => {
    const server = await startServer(home);
    let closed = false;
    server.client.onclose = () => closed = true;
    try {
      const texts = ["alpha", "bravo", "charlie"].map(bigText);
      const ids: number[] = [];
      for (const [index, content] of texts.entries()) {
        const stored = await server.call("remember", {
          content,
          subject: `ledger ${index}`,
          workspace: "w",
        });
        assert.equal(stored.ok, true, JSON.stringify(stored.data).slice(0, 300));
        ids.push(stored.data.memory_id);
      }
      // 1.9 MB of U+0001: 11.4 MB once JSON-escaped, 24.7 MB in the two copies of an answer.
      const controls = "\u0001".repeat(1_900_000);
      const stored = await server.call("remember", {
        content: controls,
        subject: "controls",
        workspace: "w",
      });
      assert.equal(stored.ok, true, JSON.stringify(stored.data).slice(0, 300));
      const controlsId = stored.data.memory_id;

      // read: a page, then the rest through `next`, byte-identical.
      const raw = await server.client.callTool({
        name: "memory",
        arguments: { action: "read", data: { memory_id: controlsId } },
      });
      assert.ok(new TextEncoder().encode(JSON.stringify(raw)).length <= ANSWER_MAX_BYTES);
      const first = await server.call("read", { memory_id: controlsId });
      assert.equal(first.data.truncated, true);
      assert.equal(first.data.span.start, 0);
      assert.equal(first.data.span.total_chars, controls.length);
      assert.equal(first.data.content_chars, controls.length);
      assert.ok(first.warnings.some((w) => /cut to stay under/.test(w)));
      assert.ok(
        await readAll(server, first) === controls,
        "the pages put together are the content",
      );

      // batch_read of the three (11.4 MB of content, twice): what does not fit is named.
      const batch = await server.call("batch_read", { memory_ids: ids });
      assert.equal(batch.ok, true, JSON.stringify(batch.data).slice(0, 300));
      assert.equal(batch.data.truncated, true);
      const omitted = batch.data.memories.filter((m: Record<string, unknown>) => m.content_omitted);
      assert.ok(omitted.length >= 1);
      assert.deepEqual(
        batch.data.read_separately,
        omitted.map((m: { memory_id: number }) => m.memory_id),
      );
      for (const [index, memory] of batch.data.memories.entries()) {
        assert.equal(memory.memory_id, ids[index]);
        if (!memory.content_omitted) {
          assert.ok(memory.content === texts[index]);
          continue;
        }
        assert.equal(memory.content, undefined);
        assert.equal(memory.content_chars, texts[index].length);
        const next = memory.next as Next;
        assert.equal(next.action, "read");
        const rest = await readAll(server, await server.call(next.action, next.data));
        assert.ok(rest === texts[index], `memory ${memory.memory_id} reads back exactly`);
      }

      // find with content_mode full over them: same rule, ranked order kept.
      const found = await server.call("find", {
        query: "ledger audit",
        workspace: "w",
        content_mode: "full",
      });
      assert.equal(found.ok, true, JSON.stringify(found.data).slice(0, 300));
      assert.equal(found.data.results.length, 3);
      assert.equal(found.data.truncated, true);
      const dropped = found.data.results.filter((r: Record<string, unknown>) => r.content_omitted);
      assert.ok(dropped.length >= 1);
      assert.deepEqual(
        found.data.read_separately,
        dropped.map((r: { memory_id: number }) => r.memory_id),
      );
      for (const result of found.data.results) {
        const original = texts[ids.indexOf(result.memory_id)];
        if (!result.content_omitted) {
          assert.ok(result.content === original);
          continue;
        }
        const next = result.next as Next;
        assert.ok((await readAll(server, await server.call(next.action, next.data))) === original);
      }

      // The client is still connected.
      assert.equal(closed, false);
      assert.equal((await server.call("status", {})).ok, true);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "http: answers keep the same budget; a read past it pages and the pages give the content",
  async (home) => {
    const http = await startHttpServer(home);
    const session = await connectHttp(http.url, identityHeaders("budget", "budget-http"));
    try {
      // 1.45 MB of quotes: a 2.9 MB request body (under the 4 MiB HTTP limit), 8.7 MB of answer.
      const quotes = ('"'.repeat(99) + "x").repeat(14_500);
      const stored = await session.call("remember", {
        content: quotes,
        subject: "q",
        workspace: "w",
      });
      assert.equal(stored.ok, true, JSON.stringify(stored.data).slice(0, 300));
      const raw = await session.client.callTool({
        name: "memory",
        arguments: { action: "read", data: { memory_id: stored.data.memory_id } },
      });
      assert.ok(new TextEncoder().encode(JSON.stringify(raw)).length <= ANSWER_MAX_BYTES);
      const first = await session.call("read", { memory_id: stored.data.memory_id });
      assert.equal(first.data.truncated, true);
      assert.ok(await readAll(session, first) === quotes, "the pages put together are the content");
    } finally {
      await session.close();
      await http.stop();
    }
  },
);
