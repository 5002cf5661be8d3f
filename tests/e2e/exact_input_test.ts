/**
 * What an agent sends comes back as sent, or is refused naming the field: a metadata key
 * `__proto__` is kept like any other key; a number JSON cannot give back as written (more
 * digits than a 64-bit float holds, beyond its range, -0) is invalid_input, nothing stored;
 * a subject keeps its spaces, and one that is only whitespace is refused. Over stdio and
 * HTTP, with the SDK client; `JSON.rawJSON` writes the exact number literals into its frames.
 */
import assert from "node:assert/strict";
import { type E2eBackend, onBothBackends, snapshotLibrary } from "../helpers/e2e_backends.ts";
import { connectHttp, identityHeaders, startHttpServer } from "../helpers/http_server.ts";
import { type Envelope, startServer, type TempHome } from "../helpers/server.ts";

/** A number written into the JSON frame exactly as `literal`. */
const raw = (literal: string): unknown =>
  (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(literal);

type Call = (action: string, data: unknown) => Promise<Envelope>;

async function checkExactInput(
  call: Call,
  home: TempHome,
  backend: E2eBackend,
): Promise<void> {
  // `__proto__` as an own key, as JSON.parse makes it: an object literal would set the prototype.
  const metadata = JSON.parse(
    '{"__proto__": {"polluted": "no"}, "count": 3, "ratio": 0.1, "max_safe": 9007199254740991, "tiny": 5e-324}',
  );
  const stored = await call("remember", {
    content: "Invoices are numbered per customer.",
    subject: "  invoice numbering  ",
    workspace: "billing",
    metadata: { ...metadata, hundred: raw("1e2") },
  });
  assert.equal(stored.ok, true, JSON.stringify(stored.data));
  const read = await call("read", { memory_id: stored.data.memory_id });
  assert.equal(read.data.subject, "  invoice numbering  ");
  assert.deepEqual(Object.keys(read.data.metadata).sort(), [
    "__proto__",
    "count",
    "hundred",
    "max_safe",
    "ratio",
    "tiny",
  ]);
  assert.deepEqual(
    JSON.stringify(read.data.metadata),
    '{"__proto__":{"polluted":"no"},"count":3,"ratio":0.1,"max_safe":9007199254740991,"tiny":5e-324,"hundred":100}',
  );
  assert.equal(({} as Record<string, unknown>).polluted, undefined);

  const renamed = await call("update", {
    memory_id: stored.data.memory_id,
    expected_version: 1,
    new_subject: "invoice numbering\t",
  });
  assert.equal(renamed.ok, true, JSON.stringify(renamed.data));
  assert.equal(
    (await call("read", { memory_id: stored.data.memory_id })).data.subject,
    "invoice numbering\t",
  );

  const before = await snapshotLibrary(home, backend);
  const refusals: [unknown, string, RegExp][] = [
    [
      { id: raw("9007199254740993") },
      "metadata.id",
      /9007199254740993.*come back as 9007199254740992/,
    ],
    [{ amount: raw("0.1000000000000000055511151231257827") }, "metadata.amount", /more digits/],
    [{ huge: raw("1e400") }, "metadata.huge", /1e400.*stored as null/],
    [{ list: [1, raw("-1E+999")] }, "metadata.list.1", /stored as null/],
    [{ nested: { sign: raw("-0") } }, "metadata.nested.sign", /-0, which JSON gives back as 0/],
  ];
  for (const [bad, field, reason] of refusals) {
    const answer = await call("remember", {
      content: `A fact with the metadata ${field}.`,
      subject: "numbers",
      workspace: "billing",
      metadata: bad,
    });
    assert.equal(answer.ok, false, field);
    assert.equal(answer.data.error, "invalid_input", JSON.stringify(answer.data));
    assert.equal(answer.data.field, field);
    assert.match(answer.data.reason, reason);
  }
  for (const subject of ["   ", "\t\n"]) {
    const blank = await call("remember", { content: "A fact.", subject, workspace: "billing" });
    assert.equal(blank.data.error, "invalid_input");
    assert.equal(blank.data.field, "subject");
    assert.match(blank.data.reason, /subject must not be only whitespace/);
  }
  assert.equal(await snapshotLibrary(home, backend), before, "nothing refused was stored");
}

onBothBackends(
  "stdio: metadata keys and numbers and the subject come back as sent, or are refused naming the field",
  async (home, backend) => {
    const server = await startServer(home);
    try {
      await checkExactInput((action, data) => server.call(action, data), home, backend);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "http: metadata keys and numbers and the subject come back as sent, or are refused naming the field",
  async (home, backend) => {
    const http = await startHttpServer(home);
    const session = await connectHttp(http.url, identityHeaders("exact", "exact-http"));
    try {
      await checkExactInput((action, data) => session.call(action, data), home, backend);
    } finally {
      await session.close();
      await http.stop();
    }
  },
);
