/**
 * A turn of the event loop that polls I/O, for background work between two slices. Deno polls
 * sockets and pipes (stdin: the MCP transport) only when its runtime parks; a zero timer parks
 * it but costs ~2.2 ms here (its shortest timer), a fifth of an 8 ms slice. A datagram sent to
 * a loopback socket of this process parks it until the datagram is readable, ~0.3–0.4 ms, and
 * stdin is served as promptly (a line waited 5–6 ms at p50, 9–10 ms at p95, with either).
 * Without a socket (no network permission, a sandbox), the zero timer it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ioTurn } from "./io_turn.ts";
 *
 * let answered = false;
 * setTimeout(() => answered = true, 0);
 * await ioTurn(); // pending requests and timers have had their turn
 * assert.equal(answered, true);
 * ```
 * @module
 */
import dgram from "node:dgram";

/** A datagram can be dropped (full buffers): a waiter never waits longer than this. */
const DATAGRAM_WAIT_MAX_MS = 20;

interface Loopback {
  socket: dgram.Socket;
  port: number;
  waiting: (() => void)[];
}

let loopback: Promise<Loopback | undefined> | undefined;

function openLoopback(): Promise<Loopback | undefined> {
  return new Promise((resolve) => {
    try {
      const socket = dgram.createSocket("udp4");
      const waiting: (() => void)[] = [];
      socket.on("error", () => resolve(undefined));
      socket.on("message", () => waiting.shift()?.());
      socket.bind(0, "127.0.0.1", () => {
        // Never keeps the process alive on its own.
        socket.unref();
        resolve({ socket, port: socket.address().port, waiting });
      });
    } catch {
      resolve(undefined);
    }
  });
}

function zeroTimer(): Promise<void> {
  return new Promise((resolve) => {
    // Set from a message-channel task: a timer set inside a timer's callback is clamped to 4 ms.
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      setTimeout(resolve, 0);
    };
    channel.port2.postMessage(undefined);
  });
}

const PING = new Uint8Array([1]);

/** Resolves after the event loop has polled I/O once. */
export async function ioTurn(): Promise<void> {
  loopback ??= openLoopback();
  const open = await loopback;
  if (!open) return zeroTimer();
  await new Promise<void>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const at = open.waiting.indexOf(finish);
      if (at >= 0) open.waiting.splice(at, 1);
      resolve();
    };
    const timer = setTimeout(finish, DATAGRAM_WAIT_MAX_MS);
    open.waiting.push(finish);
    open.socket.send(PING, open.port, "127.0.0.1", (error) => {
      if (error) finish();
    });
  });
}
