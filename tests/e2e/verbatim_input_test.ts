/**
 * Verbatim means verbatim (issue 12, items 1–4): text that cannot be stored
 * exactly (NUL, lone surrogates) and over-deep metadata are refused before
 * anything is written, over stdio and HTTP alike; a legal content whose JSON
 * frame is large still works over stdio; and oversized or malformed stdio
 * frames get a JSON-RPC error while the server keeps serving.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index.d.ts"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { onBothBackends, snapshotLibrary } from "../helpers/e2e_backends.ts";
import {
  connectHttp,
  envelopeOf,
  identityHeaders,
  startHttpServer,
} from "../helpers/http_server.ts";
import { spawnRawStdio } from "../helpers/raw_stdio.ts";
import { type Envelope, MAIN, makeTempHome, type TempHome } from "../helpers/server.ts";

const MiB = 1024 * 1024;

/** An SDK client over a spawned `mema serve`, watching for the transport closing. */
async function connectStdio(home: TempHome) {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", MAIN, "serve"],
    env: { ...home.env, MEMA_CLIENT: "verbatim", MEMA_AGENT_ID: "verbatim-agent" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
  });
  let closed = false;
  transport.onclose = () => closed = true;
  const client = new Client({ name: "mema-verbatim-tests", version: "0" });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    closed: () => closed,
    call: async (action: string, data: unknown): Promise<Envelope> =>
      envelopeOf(await client.callTool({ name: "memory", arguments: { action, data } })),
    close: () => client.close(),
  };
}

/** A string of `length` characters with `inject` at `offset`. */
function withAt(length: number, offset: number, inject: string): string {
  return "a".repeat(offset) + inject + "b".repeat(length - offset - 1);
}

/** Calls whose one bad string sits at a known field and offset. */
function badTextCases(bad: string, id: number): {
  action: string;
  data: Record<string, unknown>;
  field: string;
  offset: number;
}[] {
  const base = { content: "A clean fact.", subject: "clean", workspace: "verbatim" };
  return [
    {
      action: "remember",
      data: { ...base, content: `Part one of the runbook.${bad}Part two: the root password.` },
      field: "content",
      offset: 24,
    },
    {
      action: "remember",
      data: { ...base, subject: withAt(9, 3, bad) },
      field: "subject",
      offset: 3,
    },
    {
      action: "remember",
      data: { ...base, tags: ["ok", withAt(5, 2, bad)] },
      field: "tags.1",
      offset: 2,
    },
    {
      action: "remember",
      data: { ...base, workspace: withAt(6, 5, bad) },
      field: "workspace",
      offset: 5,
    },
    {
      action: "remember",
      data: { ...base, source_ref: withAt(4, 0, bad) },
      field: "source_ref",
      offset: 0,
    },
    {
      action: "remember",
      data: { ...base, metadata: { origin: { path: withAt(7, 6, bad) } } },
      field: "metadata.origin.path",
      offset: 6,
    },
    {
      action: "remember",
      data: { ...base, metadata: { [withAt(3, 1, bad)]: 1 } },
      field: "metadata",
      offset: 1,
    },
    {
      action: "update",
      data: { memory_id: id, new_content: withAt(10, 9, bad) },
      field: "new_content",
      offset: 9,
    },
    {
      action: "update",
      data: { memory_id: id, old_text: "seed", new_text: withAt(3, 1, bad) },
      field: "new_text",
      offset: 1,
    },
    {
      action: "update",
      data: { memory_id: id, old_text: withAt(3, 2, bad), new_text: "x" },
      field: "old_text",
      offset: 2,
    },
    {
      action: "update",
      data: {
        memory_id: id,
        patches: [{ old_text: "seed", new_text: "x" }, { old_text: "fact", new_text: bad }],
      },
      field: "patches.1.new_text",
      offset: 0,
    },
    { action: "find", data: { query: withAt(8, 4, bad) }, field: "query", offset: 4 },
  ];
}

async function assertRefusals(
  call: (action: string, data: unknown) => Promise<Envelope>,
  bad: string,
  id: number,
): Promise<void> {
  for (const { action, data, field, offset } of badTextCases(bad, id)) {
    const label = `${action} ${field} with ${JSON.stringify(bad)}`;
    const answer = await call(action, data);
    assert.equal(answer.ok, false, `${label}: ${JSON.stringify(answer.data)}`);
    assert.equal(answer.data.error, "invalid_input", `${label}: ${JSON.stringify(answer.data)}`);
    assert.equal(answer.data.field, field, `${label}: ${answer.data.reason}`);
    assert.equal(answer.data.offset, offset, `${label}: ${answer.data.reason}`);
    assert.match(answer.data.reason, new RegExp(`offset ${offset}\\b`), label);
  }
}

onBothBackends(
  "stdio: NUL and lone surrogates are refused with field and offset; nothing is written",
  async (home, backend) => {
    const server = await connectStdio(home);
    try {
      const seed = await server.call("remember", {
        content: "seed fact",
        subject: "seed",
        workspace: "verbatim",
      });
      assert.equal(seed.ok, true);
      const id = seed.data.memory_id;
      const before = await snapshotLibrary(home, backend);
      await assertRefusals(server.call, "\u0000", id);
      await assertRefusals(server.call, "\ud800", id);
      await assertRefusals(server.call, "\udfff", id);
      // Two contents differing only in their lone surrogate must not become one memory.
      for (const content of ["x\ud800y", "x\udbffy"]) {
        const answer = await server.call("remember", { content, subject: "s", workspace: "w" });
        assert.equal(answer.data.error, "invalid_input");
        assert.equal(answer.data.offset, 1);
      }
      assert.equal(await snapshotLibrary(home, backend), before);

      // Well-formed text outside the BMP and other control characters stay verbatim.
      const fine = "emoji \u{1F600} tab\t bell\u0007 cjk 漢字";
      const stored = await server.call("remember", {
        content: fine,
        subject: "fine",
        workspace: "w",
      });
      assert.equal(stored.ok, true, JSON.stringify(stored.data));
      const read = await server.call("read", { memory_id: stored.data.memory_id });
      assert.equal(read.data.content, fine);
    } finally {
      await server.close();
    }
  },
);

onBothBackends(
  "http: NUL and lone surrogates are refused with field and offset",
  async (home, backend) => {
    const http = await startHttpServer(home);
    const session = await connectHttp(http.url, identityHeaders("verbatim", "verbatim-http"));
    try {
      const seed = await session.call("remember", {
        content: "seed fact",
        subject: "seed",
        workspace: "verbatim",
      });
      assert.equal(seed.ok, true);
      const before = await snapshotLibrary(home, backend);
      await assertRefusals(session.call, "\u0000", seed.data.memory_id);
      await assertRefusals(session.call, "\ud800", seed.data.memory_id);
      assert.equal(await snapshotLibrary(home, backend), before);
    } finally {
      await session.close();
      await http.stop();
    }
  },
);

onBothBackends(
  "stdio: metadata nested too deep is invalid_input, not a storage error",
  async (home, backend) => {
    const server = await connectStdio(home);
    try {
      const nest = (levels: number) => {
        let value: Record<string, unknown> = { leaf: 1 };
        for (let i = 1; i < levels; i++) value = { a: value };
        return value;
      };
      const before = await snapshotLibrary(home, backend);
      for (const levels of [33, 1_000, 50_000]) {
        const answer = await server.call("remember", {
          content: `deep ${levels}`,
          subject: "deep",
          workspace: "w",
          metadata: nest(levels),
        });
        assert.equal(
          answer.data.error,
          "invalid_input",
          `${levels}: ${JSON.stringify(answer.data)}`,
        );
        assert.equal(answer.data.field, "metadata");
        assert.equal(answer.data.max_depth, 32);
      }
      const deepList = await server.call("remember", {
        content: "deep list",
        subject: "deep",
        workspace: "w",
        metadata: { list: JSON.parse("[".repeat(40) + "]".repeat(40)) },
      });
      assert.equal(deepList.data.error, "invalid_input");
      assert.equal(deepList.data.field, "metadata");
      assert.equal(await snapshotLibrary(home, backend), before);

      const atLimit = await server.call("remember", {
        content: "exactly at the limit",
        subject: "deep",
        workspace: "w",
        metadata: nest(32),
      });
      assert.equal(atLimit.ok, true, JSON.stringify(atLimit.data));
      const read = await server.call("read", { memory_id: atLimit.data.memory_id });
      assert.deepEqual(read.data.metadata, nest(32));
    } finally {
      await server.close();
    }
  },
);

/** {@linkcode spawnRawStdio} plus one `memory` tool call at a time. */
function spawnRaw(home: TempHome) {
  const raw = spawnRawStdio(home);
  return {
    ...raw,
    /** One `memory` tool call; resolves with its envelope. */
    async call(id: number, action: string, data: unknown): Promise<Envelope> {
      await raw.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "memory", arguments: { action, data } },
      });
      const reply = await raw.nextReply() as { id: unknown; result: unknown };
      assert.equal(reply.id, id, JSON.stringify(reply).slice(0, 300));
      return (reply.result as { structuredContent: Envelope }).structuredContent;
    },
  };
}

onBothBackends(
  "stdio: a legal content whose frame is ~12 MB round-trips; an oversized frame gets an error and the server keeps serving",
  async (home) => {
    const server = await connectStdio(home);
    try {
      // 1.99 MB of U+0001: within the 2 MiB content limit, six bytes each once JSON-escaped.
      const content = "\u0001".repeat(1_990_000);
      const stored = await server.call("remember", {
        content,
        subject: "controls",
        workspace: "w",
      });
      assert.equal(stored.ok, true, JSON.stringify(stored.data).slice(0, 300));

      const oversized = "x".repeat(65 * MiB);
      await assert.rejects(
        server.client.callTool({
          name: "memory",
          arguments: {
            action: "remember",
            data: { content: oversized, subject: "too big", workspace: "w" },
          },
        }),
        (error: Error) => {
          assert.match(error.message, /-32600/);
          assert.match(error.message, /frame/);
          return true;
        },
      );
      assert.equal(server.closed(), false);
      const alive = await server.call("status", {});
      assert.equal(alive.ok, true);
      const listed = await server.call("find", { workspace: "w" });
      assert.deepEqual(listed.data.results.map((r: { subject: string }) => r.subject), [
        "controls",
      ]);
      assert.match(server.stderr(), /frame/);

      // Read back over raw pipes (the SDK client's own read buffer re-copies everything it
      // holds on every chunk): escaped twice, the content is ~24 MB of answer, so it comes
      // in pages under the answer budget, each naming the call that reads the next.
      const raw = spawnRaw(home);
      try {
        await raw.initialize();
        let read = await raw.call(2, "read", { memory_id: stored.data.memory_id });
        let back = read.data.content;
        for (let id = 3; read.data.truncated; id++) {
          read = await raw.call(id, "read", read.data.next.data);
          back += read.data.content;
        }
        assert.equal(back.length, content.length);
        assert.ok(back === content, "read returns the content byte-identical");
      } finally {
        await raw.close();
      }
    } finally {
      await server.close();
    }
  },
);

Deno.test("e2e stdio: malformed frames that carry an id get a JSON-RPC error; the server keeps serving", async () => {
  const home = makeTempHome();
  const raw = spawnRaw(home);
  let closed = false;
  try {
    await raw.initialize();

    const bad: { frame: string | Uint8Array; id: unknown; code: number }[] = [
      {
        frame: '{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{\n',
        id: 41,
        code: -32700,
      },
      {
        frame: '{"method":"tools/list","params":{,"jsonrpc":"2.0","id":"s-42"}\r\n',
        id: "s-42",
        code: -32700,
      },
      { frame: '{"jsonrpc":"2.0","id":43,"method":42}\n', id: 43, code: -32600 },
      {
        frame: new Uint8Array([
          ...new TextEncoder().encode('{"jsonrpc":"2.0","id":44,"method":"tools/list","x":"'),
          0xc3,
          0x28,
          ...new TextEncoder().encode('"}\n'),
        ]),
        id: 44,
        code: -32700,
      },
    ];
    for (const { frame, id, code } of bad) {
      await raw.write(frame);
      const reply = await raw.nextReply() as { id: unknown; error: unknown };
      assert.equal(reply.id, id, JSON.stringify(reply));
      assert.equal((reply.error as { code: number }).code, code, JSON.stringify(reply));
    }
    // A garbage line without an id is logged, not answered; the next request still is.
    await raw.write("not json at all\n\n");
    const status = await raw.call(45, "status", {});
    assert.equal(status.ok, true);
    const { stderr } = await raw.close();
    closed = true;
    assert.match(stderr, /not valid JSON/);
  } finally {
    if (!closed) await raw.close().catch(() => {});
    home.cleanup();
  }
});
