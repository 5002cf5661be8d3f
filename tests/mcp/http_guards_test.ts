import assert from "node:assert/strict";
import {
  checkBearerToken,
  checkHostHeader,
  checkOriginHeader,
  isLoopbackHost,
  readBodyWithin,
  readCallerHeaders,
} from "../../src/mcp/http_guards.ts";

Deno.test("isLoopbackHost accepts this machine's names only", () => {
  for (const host of ["localhost", "LOCALHOST", "127.0.0.1", "127.8.9.10", "::1", "[::1]"]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  assert.equal(isLoopbackHost("::ffff:127.0.0.1"), true);
  for (
    const host of [
      "0.0.0.0",
      "::",
      "192.168.1.4",
      "10.0.0.1",
      "128.0.0.1",
      "127.0.0.256",
      "127.0.0",
      "localhost.evil.com",
      "127.0.0.1.nip.io",
      "::ffff:10.0.0.1",
      "",
    ]
  ) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

Deno.test("the Host header must name a loopback host and the listening port", () => {
  for (const host of ["127.0.0.1:8000", "localhost:8000", "[::1]:8000", "LocalHost:8000"]) {
    assert.deepEqual(checkHostHeader(host, 8000), { ok: true }, host);
  }
  for (
    const host of [
      "evil.com:8000",
      "evil.com",
      "127.0.0.1:8001",
      "127.0.0.1",
      "localhost:8000@evil.com",
      "[::1:8000",
      "",
    ]
  ) {
    const verdict = checkHostHeader(host, 8000);
    assert.equal(verdict.ok, false, host);
    if (!verdict.ok) assert.equal(verdict.status, 421);
  }
  assert.equal(checkHostHeader(null, 8000).ok, false);
  assert.deepEqual(checkHostHeader("127.0.0.1", 80), { ok: true }, "port 80 may be implied");
});

Deno.test("Origin, when present, must be a loopback web origin", () => {
  assert.deepEqual(checkOriginHeader(null), { ok: true }, "non-browser clients send none");
  for (const origin of ["http://localhost:3000", "https://127.0.0.1", "http://[::1]:8000"]) {
    assert.deepEqual(checkOriginHeader(origin), { ok: true }, origin);
  }
  for (
    const origin of [
      "http://evil.com",
      "null",
      "file://",
      "chrome-extension://abc",
      "http://localhost.evil.com",
      "garbage",
    ]
  ) {
    const verdict = checkOriginHeader(origin);
    assert.equal(verdict.ok, false, origin);
    if (!verdict.ok) assert.equal(verdict.status, 403);
  }
  assert.deepEqual(
    checkOriginHeader("http://mema.lan:8000", { sameHost: "mema.lan:8000" }),
    { ok: true },
    "with --allow-remote, the origin of the Host itself",
  );
});

Deno.test("identity headers: each exactly once, strict alphabet, bounded length", () => {
  const ok = readCallerHeaders(
    new Headers({ "X-Mema-Client": "cursor", "X-Mema-Agent-Id": "cursor-main@host:1" }),
  );
  assert.deepEqual(ok, { ok: true, caller: { client: "cursor", agentId: "cursor-main@host:1" } });

  const duplicated = new Headers({ "X-Mema-Agent-Id": "a" });
  duplicated.append("X-Mema-Client", "cursor");
  duplicated.append("X-Mema-Client", "evil");
  const twice = readCallerHeaders(duplicated);
  assert.equal(twice.ok, false);
  if (!twice.ok) {
    assert.equal(twice.status, 400);
    assert.match(twice.message, /exactly once/);
  }

  const bad: Record<string, string>[] = [
    { "X-Mema-Agent-Id": "a" },
    { "X-Mema-Client": "c" },
    { "X-Mema-Client": "", "X-Mema-Agent-Id": "a" },
    { "X-Mema-Client": "has space", "X-Mema-Agent-Id": "a" },
    { "X-Mema-Client": "c", "X-Mema-Agent-Id": "../etc/passwd" },
    { "X-Mema-Client": "c", "X-Mema-Agent-Id": "a'; DROP TABLE memories;--" },
    { "X-Mema-Client": "x".repeat(65), "X-Mema-Agent-Id": "a" },
    { "X-Mema-Client": "c", "X-Mema-Agent-Id": "y".repeat(129) },
  ];
  for (const headers of bad) {
    const verdict = readCallerHeaders(new Headers(headers));
    assert.equal(verdict.ok, false, JSON.stringify(headers));
    if (!verdict.ok) assert.equal(verdict.status, 400);
  }
  const longest = readCallerHeaders(
    new Headers({ "X-Mema-Client": "x".repeat(64), "X-Mema-Agent-Id": "y".repeat(128) }),
  );
  assert.equal(longest.ok, true, "the bounds themselves are allowed");
});

Deno.test("bearer token: required and compared exactly when configured", () => {
  const token = "t".repeat(40);
  assert.deepEqual(checkBearerToken(null, undefined), { ok: true });
  assert.deepEqual(checkBearerToken(`Bearer ${token}`, token), { ok: true });
  assert.deepEqual(checkBearerToken(`bearer ${token}`, token), { ok: true });
  for (
    const header of [null, "", token, `Bearer ${token}x`, `Bearer ${token.slice(1)}`, "Basic x"]
  ) {
    const verdict = checkBearerToken(header, token);
    assert.equal(verdict.ok, false, String(header));
    if (!verdict.ok) assert.equal(verdict.status, 401);
  }
});

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

Deno.test("the body limit holds while streaming, not only by Content-Length", async () => {
  const chunk = new Uint8Array(1024).fill(0x20);
  const within = await readBodyWithin(
    new Request("http://x/", { method: "POST", body: streamOf([chunk, chunk]) }),
    2048,
  );
  assert.deepEqual(within, { ok: true, text: " ".repeat(2048) });
  const over = await readBodyWithin(
    new Request("http://x/", { method: "POST", body: streamOf([chunk, chunk, chunk]) }),
    2048,
  );
  assert.equal(over.ok, false);
  if (!over.ok) assert.equal(over.status, 413);
  const declared = await readBodyWithin(
    new Request("http://x/", {
      method: "POST",
      body: "x",
      headers: { "content-length": "999999" },
    }),
    2048,
  );
  assert.equal(declared.ok, false, "a declared length over the limit is refused unread");
});

Deno.test("invalid UTF-8 in the body is refused, not replaced", async () => {
  for (
    const bytes of [
      [0xc3, 0x28],
      [0xff],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0x7b, 0x22, 0xe2, 0x82],
    ]
  ) {
    const verdict = await readBodyWithin(
      new Request("http://x/", { method: "POST", body: new Uint8Array(bytes) }),
      1024,
    );
    assert.equal(verdict.ok, false, JSON.stringify(bytes));
    if (!verdict.ok) assert.equal(verdict.status, 400);
  }
  const valid = await readBodyWithin(
    new Request("http://x/", { method: "POST", body: '{"q":"日本語 ✓"}' }),
    1024,
  );
  assert.deepEqual(valid, { ok: true, text: '{"q":"日本語 ✓"}' });
});
