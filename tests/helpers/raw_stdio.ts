/**
 * Test helper: a `mema serve` process driven over its raw stdin/stdout, for
 * frames the MCP SDK client never writes (batches, malformed lines).
 * @module
 */
import assert from "node:assert/strict";
import { MAIN, type TempHome } from "./server.ts";

/**
 * How long a reply may take before it counts as missing: not a timing assertion, a
 * reply that never comes fails the test instead of hanging it.
 */
const NO_REPLY_MS = 60_000;

/** A spawned server over raw pipes. */
export interface RawStdioServer {
  /** Writes bytes as they are (add the newline yourself). */
  write(bytes: string | Uint8Array): Promise<void>;
  /** Writes one JSON value as one line. */
  send(frame: unknown): Promise<void>;
  /** The next line the server writes, parsed. */
  nextReply(): Promise<unknown>;
  /** The MCP handshake at `protocolVersion`. */
  initialize(protocolVersion?: string): Promise<void>;
  /** Closes stdin and waits for the process; its stderr. */
  close(): Promise<{ code: number; stderr: string }>;
}

/** Spawns `mema serve` with piped stdio. */
export function spawnRawStdio(home: TempHome): RawStdioServer {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "serve"],
    env: { ...home.env, MEMA_CLIENT: "raw", MEMA_AGENT_ID: "raw-agent" },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let pending: string[] = [];
  const lines: string[] = [];
  const write = (bytes: string | Uint8Array) =>
    writer.write(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes);
  const send = (frame: unknown) => write(JSON.stringify(frame) + "\n");
  const nextReply = async (): Promise<unknown> => {
    for (;;) {
      if (lines.length > 0) return JSON.parse(lines.shift()!);
      let guard: ReturnType<typeof setTimeout> | undefined;
      const { done, value } = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => {
          guard = setTimeout(() => reject(new Error("no reply from the server")), NO_REPLY_MS);
        }),
      ]).finally(() => clearTimeout(guard));
      if (done) throw new Error(`server closed stdout; buffered: ${pending.join("")}`);
      const parts = value.split("\n");
      for (let i = 0; i < parts.length - 1; i++) {
        const line = pending.join("") + parts[i];
        pending = [];
        if (line.trim() !== "") lines.push(line);
      }
      pending.push(parts[parts.length - 1]);
    }
  };
  return {
    write,
    send,
    nextReply,
    async initialize(protocolVersion = "2025-06-18") {
      await send({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
      });
      const reply = await nextReply() as { id: unknown };
      assert.equal(reply.id, "init");
      await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    },
    async close() {
      await writer.close();
      await reader.cancel();
      const status = await child.status;
      return { code: status.code, stderr: await stderr };
    },
  };
}
