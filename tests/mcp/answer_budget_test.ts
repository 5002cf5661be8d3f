import assert from "node:assert/strict";
import { type Envelope, RESULTS_AS_ROWS, toToolResult } from "../../src/mcp/envelope.ts";
import { answerCost, fittingEnd } from "../../src/mcp/answer_bytes.ts";

/** A decoded answer, read loosely as an agent would. */
// deno-lint-ignore no-explicit-any
type Loose = Record<string, any>;

/** The bytes a tool result takes on the wire, measured independently of the code under test. */
function wireBytes(result: unknown): number {
  return new TextEncoder().encode(JSON.stringify(result)).length;
}

function envelopeOf(data: Record<string, unknown>): Envelope {
  return { ok: true, mode: "lexical", degraded: false, warnings: [], data };
}

/** What `read` answers for `content`, whole or for a span. */
function readAnswer(content: string, span?: { start: number; end: number }): Envelope {
  const data: Record<string, unknown> = {
    memory_id: 7,
    content_chars: content.length,
    content: span ? content.slice(span.start, span.end) : content,
  };
  if (span) data.span = { ...span, total_chars: content.length };
  return envelopeOf(data);
}

/** Reads `content` page by page through each answer's `next`, as an agent would. */
function readPages(content: string, maxBytes: number): { pages: string[]; text: string } {
  const pages: string[] = [];
  let result = toToolResult(readAnswer(content), { maxBytes });
  for (;;) {
    assert.ok(wireBytes(result) <= maxBytes, `${wireBytes(result)} > ${maxBytes}`);
    const data = result.structuredContent.data as Loose;
    assert.equal(result.content[0].text, JSON.stringify(result.structuredContent));
    pages.push(data.content);
    if (!data.truncated) return { pages, text: pages.join("") };
    assert.ok(data.span.end < data.span.total_chars);
    assert.deepEqual(data.next.data.span.start, data.span.end);
    assert.ok(pages.length < 1_000);
    result = toToolResult(readAnswer(content, data.next.data.span), { maxBytes });
  }
}

Deno.test("an answer within the budget is sent as it is", () => {
  const envelope = readAnswer("short");
  assert.equal(toToolResult(envelope, { maxBytes: 10_000 }).structuredContent, envelope);
});

Deno.test("read pages never end inside a surrogate pair and put together give the content", () => {
  const content = "a😀".repeat(3_000) + "漢\u{1F468}\u200D\u{1F469}".repeat(500);
  const { pages, text } = readPages(content, 6_000);
  assert.ok(pages.length > 2);
  assert.ok(text === content);
  for (const page of pages) assert.ok(page.isWellFormed(), "no page splits a pair");
});

Deno.test("the budget counts JSON escaping in both copies: control characters page at 13 bytes each", () => {
  const content = '\u0001"\\\n'.repeat(5_000);
  const maxBytes = 20_000;
  const { pages, text } = readPages(content, maxBytes);
  assert.ok(text === content);
  // Nearly the whole budget is used: a page is not cut far short of it.
  const first = pages[0];
  assert.ok(answerCost(first) > maxBytes - 3_000, `${answerCost(first)}`);
});

Deno.test("a list keeps each content whole while it fits and names the rest with the call that reads it", () => {
  const contents = ["a".repeat(3_000), "b".repeat(9_000), "c".repeat(2_000)];
  const data: Record<string | symbol, unknown> = {
    results: contents.map((content, index) => ({ memory_id: index + 1, content })),
    size: { returned_chars: 14_000, returned_count: 3, tokens_estimate: 3_500 },
    has_more: false,
    [RESULTS_AS_ROWS]: true,
  };
  const envelope = envelopeOf(data as Record<string, unknown>);
  const result = toToolResult(envelope, { maxBytes: 14_000 });
  assert.ok(wireBytes(result) <= 14_000);
  const fitted = result.structuredContent.data as Loose;
  // The second does not fit; the third still does (kept in ranked order).
  assert.deepEqual(fitted.results.map((r: Loose) => r.content?.[0] ?? null), ["a", null, "c"]);
  assert.deepEqual(fitted.results[1], {
    memory_id: 2,
    content_chars: 9_000,
    content_omitted: true,
    next: { tool: "memory", action: "read", data: { memory_id: 2 } },
  });
  assert.deepEqual(fitted.read_separately, [2]);
  assert.equal(fitted.truncated, true);
  assert.equal(fitted.size.returned_chars, 5_000);
  assert.equal(result.structuredContent.warnings.length, 1);
  // The original envelope is untouched.
  assert.equal((envelope.data.results as Loose[])[1].content, contents[1]);
  // The lean text block (fields + rows) is within the budget too.
  assert.match(result.content[0].text, /"fields"/);
});

Deno.test("an answer with nothing to cut becomes resource_limit_exceeded instead of a line no client reads", () => {
  const envelope = envelopeOf({ notes: "x".repeat(50_000) });
  const result = toToolResult(envelope, { maxBytes: 10_000 });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent.data.error, "resource_limit_exceeded");
  assert.equal(result.structuredContent.data.max_bytes, 10_000);
});

Deno.test("fittingEnd stops before a pair it cannot hold whole", () => {
  assert.equal(fittingEnd("a😀", 0, 2 + 7), 1);
  assert.equal(fittingEnd("a😀", 0, 2 + 8), 3);
  assert.equal(answerCost('é\u0001\n"'), 4 + 13 + 5 + 6);
  const sample = 'é\u0001\n"\\😀漢x\u2028';
  // Once escaped (less its quotes), plus escaped twice (less its quotes, escaped or not).
  assert.equal(
    answerCost(sample),
    new TextEncoder().encode(JSON.stringify(sample)).length - 2 +
      new TextEncoder().encode(JSON.stringify(JSON.stringify(sample))).length - 6,
  );
});

Deno.test("read with history keeps the content and drops earlier versions past the budget, marked", () => {
  const envelope = envelopeOf({
    memory_id: 9,
    content_chars: 100,
    content: "now ".repeat(25),
    history: [
      { version: 1, content: "old ".repeat(3_000) },
      { version: 2, content: "mid ".repeat(200) },
    ],
  });
  const result = toToolResult(envelope, { maxBytes: 8_000 });
  assert.ok(wireBytes(result) <= 8_000);
  const data = result.structuredContent.data as Loose;
  assert.equal(data.content, "now ".repeat(25));
  assert.equal(data.span, undefined);
  assert.equal(data.truncated, true);
  assert.equal(data.read_separately, undefined);
  assert.deepEqual(data.history[0], {
    version: 1,
    content_chars: 12_000,
    content_omitted: true,
  });
  assert.equal(data.history[1].content, "mid ".repeat(200));
});
