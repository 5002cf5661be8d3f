/**
 * Background work yields with `ioTurn` between slices: sockets and pipes (the MCP transport)
 * must be served in those turns, however busy the slices are.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { ioTurn } from "../../src/platform/io_turn.ts";

/** The client's write and the server's read each need one turn; a little slack on top. */
const IO_TURNS_MAX = 6;

Deno.test("ioTurn: data waiting on a socket is delivered between busy slices", async () => {
  const received: string[] = [];
  const server = net.createServer((socket) => {
    socket.on("data", (chunk) => received.push(String(chunk)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  const client = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => client.once("connect", () => resolve()));
  try {
    client.write("request");
    // Slices of synchronous work with only ioTurn between them: the request must get through.
    let turns = 0;
    while (received.length === 0 && turns < 200) {
      const started = performance.now();
      while (performance.now() - started < 2) { /* a slice of background work */ }
      await ioTurn();
      turns++;
    }
    assert.deepEqual(received, ["request"], `not delivered after ${turns} turns`);
    // A turn that only runs queued tasks (a message channel) let it wait ~40 slices, until the
    // runtime happened to poll its sockets; a turn that parks the runtime serves it at once.
    assert.ok(turns <= IO_TURNS_MAX, `delivered after ${turns} turns`);
  } finally {
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
