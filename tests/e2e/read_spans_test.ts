/**
 * Offsets never cut a character in half: a `read` span whose offset falls inside a surrogate
 * pair (an emoji, a rare CJK character) widens to the whole character and says so, and the
 * other places that cut content by length (preview outlines, the context digest) stop before a
 * pair instead of in it. Half a pair is not text: the client would see U+FFFD.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { startServer } from "../helpers/server.ts";

onBothBackends(
  "read spans widen to whole characters and report the span returned; outlines and the digest never end in half a character",
  async (home) => {
    const server = await startServer(home, { env: { MEMA_WORKSPACE: "alpha" } });
    try {
      const content = "a😀b𠀀c"; // 😀 at 1-2, 𠀀 (U+20000) at 4-5
      const remembered = await server.call("remember", { content, subject: "emoji span" });
      assert.equal(remembered.ok, true, JSON.stringify(remembered.data));
      const id = remembered.data.memory_id;

      const endInside = await server.call("read", { memory_id: id, span: { start: 0, end: 2 } });
      assert.equal(endInside.ok, true, JSON.stringify(endInside.data));
      assert.equal(endInside.data.content, "a😀");
      assert.deepEqual(endInside.data.span, {
        start: 0,
        end: 3,
        total_chars: 7,
        requested: { start: 0, end: 2 },
      });

      const bothInside = await server.call("read", { memory_id: id, span: { start: 2, end: 5 } });
      assert.equal(bothInside.data.content, "😀b𠀀");
      assert.deepEqual([bothInside.data.span.start, bothInside.data.span.end], [1, 6]);

      const exact = await server.call("read", { memory_id: id, span: { start: 3, end: 4 } });
      assert.deepEqual(exact.data.span, { start: 3, end: 4, total_chars: 7 });
      assert.equal(exact.data.content, "b");

      const batch = await server.call("batch_read", {
        memory_ids: [id],
        spans: { [id]: { start: 5, end: 7 } },
      });
      const [item] = batch.data.memories;
      assert.equal(item.content, "𠀀c");
      assert.deepEqual([item.span.start, item.span.end], [4, 7]);

      // A preview outline cuts a long heading at 40 characters: here exactly inside 😀.
      const heading = `${"x".repeat(38)}😀 zebrafinch heading`;
      const long = `# ${heading}\n${"Plenty of words about the zebrafinch. ".repeat(12)}`;
      assert.equal(
        (await server.call("remember", { content: long, subject: "outline" })).ok,
        true,
      );
      const found = await server.call("find", { query: "zebrafinch", content_mode: "preview" });
      const outline = found.data.results[0].outline as { head: string }[];
      assert.ok(outline.length > 0, JSON.stringify(found.data));
      for (const entry of outline) assert.ok(entry.head.isWellFormed(), JSON.stringify(entry.head));

      // The context digest previews a fact in 240 characters: here exactly inside 😀.
      await server.call("remember", {
        content: `${"y".repeat(239)}😀 and then some more text after the cut`,
        subject: "digest",
        protection_level: "protected",
      });
      const digest = await server.client.readResource({ uri: "memory://current-context" });
      const text = (digest.contents[0] as { text: string }).text;
      assert.match(text, /y{239}…/);
      assert.ok(text.isWellFormed(), "the digest holds no half character");
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);
