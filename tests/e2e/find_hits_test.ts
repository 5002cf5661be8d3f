/**
 * `content_mode: "hits"` means hits: long documents (real npm READMEs from node_modules)
 * come back as their matching passages, bounded per result and per page, with a count of the
 * hits left out and the `read` span that holds them; only a short content comes whole.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import {
  HITS_FULL_MAX_CHARS,
  HITS_PAGE_MAX_CHARS,
  HITS_RESULT_MAX_CHARS,
} from "../../src/recall/constants.ts";
import { installedReadmes, writeCorpus } from "../helpers/readme_corpus.ts";
import { runCli, type ServerSession, startServer } from "../helpers/server.ts";

interface Span {
  text: string;
  start_offset: number;
  end_offset: number;
}
interface HitResult {
  memory_id: number;
  subject: string;
  content?: string;
  content_chars?: number;
  hit_spans?: Span[];
  hits_more?: {
    hits: number;
    next: {
      tool: string;
      action: string;
      data: { memory_id: number; span: { start: number; end: number } };
    };
  };
  hits_upgraded_to_full?: boolean;
  outline?: unknown[];
}

const spanChars = (result: HitResult) =>
  (result.hit_spans ?? []).reduce((sum, span) => sum + span.text.length, 0);

async function contentOf(server: ServerSession, id: number): Promise<string> {
  const read = await server.call("read", { memory_id: id });
  assert.ok(read.ok, JSON.stringify(read.data));
  return read.data.content;
}

onBothBackends(
  "hits on long READMEs: matching passages only, bounded, with the read span of the rest",
  async (home) => {
    const long = installedReadmes().filter((readme) => readme.text.length > 10_000);
    assert.ok(long.length >= 5, `node_modules holds ${long.length} long READMEs`);
    writeCorpus(`${home.dir}/npm-docs`, long);
    const imported = await runCli(home, ["import", `${home.dir}/npm-docs`, "--workspace", "npm"]);
    assert.equal(imported.code, 0, imported.stderr);
    const server = await startServer(home);
    try {
      let leftOut = 0;
      for (const query of ["parse query string options", "error handling middleware", "install"]) {
        const page = await server.call("find", {
          query,
          workspace: "npm",
          limit: 20,
          content_mode: "hits",
          hit_window: 3,
        });
        assert.ok(page.ok, JSON.stringify(page.data));
        const results = page.data.results as HitResult[];
        assert.ok(results.length >= 3, `${query}: ${results.length} results`);
        let pageChars = 0;
        for (const result of results) {
          const where = `${query} → ${result.subject}`;
          const content = await contentOf(server, result.memory_id);
          assert.ok(content.length > HITS_FULL_MAX_CHARS, where);
          assert.equal(result.content, undefined, `${where}: a long document never comes whole`);
          assert.notEqual(result.hits_upgraded_to_full, true, where);
          assert.ok(spanChars(result) <= HITS_RESULT_MAX_CHARS, `${where}: ${spanChars(result)}`);
          pageChars += spanChars(result);
          for (const span of result.hit_spans ?? []) {
            assert.equal(content.slice(span.start_offset, span.end_offset), span.text, where);
          }
          if (result.hits_more) {
            // The marker says how many hits were left out and where to read them.
            assert.ok(result.hits_more.hits > 0, where);
            const { tool, action, data } = result.hits_more.next;
            assert.equal(tool, "memory");
            assert.equal(action, "read");
            assert.equal(data.memory_id, result.memory_id);
            const { span } = data;
            const rest = await server.call(action, data);
            assert.ok(rest.ok, JSON.stringify(rest.data));
            assert.ok(span.end > span.start && span.end <= content.length, where);
          }
        }
        assert.ok(pageChars <= HITS_PAGE_MAX_CHARS, `${query}: ${pageChars} characters`);
        leftOut += results.filter((result) => result.hits_more !== undefined).length;
      }
      assert.ok(leftOut > 0, "long READMEs hold more hits than a result shows");
      // A 3-result page, as the tester asked it: a few thousand characters, not whole READMEs.
      const three = await server.call("find", {
        query: "parse query string options",
        workspace: "npm",
        limit: 3,
        content_mode: "hits",
        include_size: true,
      });
      assert.ok(three.data.size.returned_chars <= 3 * HITS_RESULT_MAX_CHARS + 3 * 200);
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);

onBothBackends(
  "hits: a long document matched by its subject alone comes as its outline; a short one whole",
  async (home) => {
    const server = await startServer(home);
    try {
      const readme = installedReadmes().find((r) => r.text.length > 10_000)!;
      const long = await server.call("remember", {
        subject: "zebra handbook",
        content: readme.text,
        workspace: "w",
      });
      assert.ok(long.ok, JSON.stringify(long.data));
      const short = await server.call("remember", {
        subject: "lunch",
        content: "Lunch is at noon in the zebra room.",
        workspace: "w",
      });
      assert.ok(short.ok);
      const page = await server.call("find", {
        query: "zebra",
        workspace: "w",
        content_mode: "hits",
      });
      const results = page.data.results as HitResult[];
      const byId = new Map(results.map((r) => [r.memory_id, r]));
      const handbook = byId.get(long.data.memory_id)!;
      assert.equal(handbook.content, undefined, "no row matched: the document is not returned");
      assert.ok((handbook.outline ?? []).length > 0, JSON.stringify(handbook));
      const lunch = byId.get(short.data.memory_id)!;
      assert.equal(lunch.content, "Lunch is at noon in the zebra room.");
      assert.equal(lunch.hits_upgraded_to_full, true);
    } finally {
      await server.close();
      home.cleanup();
    }
  },
);
