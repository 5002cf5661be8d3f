/**
 * Serves PGlite (PostgreSQL compiled to WebAssembly) with pgvector and pg_trgm over the wire
 * protocol on a local TCP port, so the tests run mema's PostgreSQL store against a server that
 * has pgvector (Debian 12's PostgreSQL 15 ships none): `deno run -A scripts/pglite_server.ts`
 * prints `postgres://postgres@127.0.0.1:PORT/postgres?prepare=false` on its first line and serves
 * until its standard input closes (its parent died or let go).
 *
 * PGlite is one backend, one session: every connection shares it. So a connection, once its first
 * message runs, holds the session until it ends an exchange (a simple query, or Sync) outside a
 * transaction; the other connections wait for it (a transaction is never interleaved with another
 * connection's statements, nor an extended-protocol exchange cut in half). The statements are
 * unnamed (`prepare=false`, which npm:postgres reads from the URL): two connections preparing
 * statements by name in one session collide ("prepared statement ... already exists").
 * `@electric-sql/pglite-socket` shares the session the same way but per message, which lets a
 * second connection's Parse replace the first's between its Parse and its Bind, so it is not used.
 *
 * Test-only: installed by scripts/dev_tools.ts (`pglite`, `pglite_vector`), never by mema. It is
 * not a stand-in for a real server's speed: WebAssembly, one backend, no parallelism.
 *
 * ```sh
 * deno run -A scripts/dev_tools.ts pglite pglite_vector
 * deno run -A scripts/pglite_server.ts < /dev/tty
 * ```
 * @module
 */
import { fileURLToPath } from "node:url";
import { devToolFile } from "./dev_tools.ts";

/** The parts of PGlite this front uses. */
interface PGliteSession {
  execProtocolRawStream(
    message: Uint8Array,
    options: { onRawData: (data: Uint8Array) => void },
  ): Promise<void>;
  isInTransaction(): boolean;
  exec(query: string): Promise<unknown>;
  close(): Promise<void>;
}

/** How long a connection may hold the session without a message, others waiting, before a warning. */
const STALL_WARNING_MS = 20_000;

/** The startup packets that carry no message type byte: their first Int32 is their length. */
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

/**
 * `PGLITE_TRACE=1` prints each message, its answer and who waited for the session: a test that
 * hangs on PGlite is a connection holding the session while the process waits on another one.
 */
const TRACE = Deno.env.get("PGLITE_TRACE") === "1";

/** A message's type and first bytes, printable. */
function traced(message: Uint8Array): string {
  const body = new TextDecoder().decode(message.subarray(5, 120)).replace(/[^ -~]/g, ".");
  return `${String.fromCharCode(message[0])} ${body}`;
}

/** One holder of the session at a time, in arrival order. */
class SessionGate {
  #holder: number | undefined;
  #waiting: { id: number; enter: () => void }[] = [];
  /** When the holder last ran a message, and what it was (for {@linkcode stalled}). */
  lastRun = { at: Date.now(), message: "" };

  /**
   * Says so once the holder has sent nothing for `ms` while others wait: on one session that is
   * a client waiting on another of its connections while holding this one, which never ends.
   */
  stalled(ms: number): string | undefined {
    if (this.#holder === undefined || this.#waiting.length === 0) return undefined;
    if (Date.now() - this.lastRun.at < ms) return undefined;
    return `connection #${this.#holder} has held the session for ${ms} ms without a message ` +
      `(last: ${this.lastRun.message}); waiting: ${this.#waiting.map((w) => `#${w.id}`).join(" ")}`;
  }

  async enter(id: number): Promise<void> {
    if (this.#holder === id) return;
    if (this.#holder === undefined) {
      this.#holder = id;
      return;
    }
    await new Promise<void>((enter) => this.#waiting.push({ id, enter }));
  }

  leave(id: number): void {
    if (this.#holder !== id) return;
    const next = this.#waiting.shift();
    this.#holder = next?.id;
    next?.enter();
  }

  holds(id: number): boolean {
    return this.#holder === id;
  }
}

/** Reads whole messages off one connection: startup packets first, then typed messages. */
async function* messages(conn: Deno.Conn): AsyncGenerator<Uint8Array> {
  let buffer = new Uint8Array(0);
  let started = false;
  const chunk = new Uint8Array(64 * 1024);
  for (;;) {
    const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    const headerAt = started ? 1 : 0;
    if (buffer.length >= headerAt + 4) {
      const length = view.getInt32(headerAt) + headerAt;
      if (buffer.length >= length) {
        const message = buffer.slice(0, length);
        buffer = buffer.slice(length);
        if (!started) {
          const code = new DataView(message.buffer).getInt32(4);
          // An SSL or GSS request is answered by the caller; the startup packet follows it.
          started = code !== SSL_REQUEST && code !== GSS_REQUEST && code !== CANCEL_REQUEST;
        }
        yield message;
        continue;
      }
    }
    const read = await conn.read(chunk).catch(() => null);
    if (read === null) return;
    const grown = new Uint8Array(buffer.length + read);
    grown.set(buffer);
    grown.set(chunk.subarray(0, read), buffer.length);
    buffer = grown;
  }
}

/** Writes all of `data` (a socket write may take only part of a large answer). */
async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  let written = 0;
  while (written < data.length) written += await conn.write(data.subarray(written));
}

/** Serves one connection until it closes, holding the session while an exchange is open. */
async function serveConnection(
  db: PGliteSession,
  gate: SessionGate,
  conn: Deno.Conn,
  id: number,
): Promise<void> {
  const pending: Uint8Array[] = [];
  const flush = async () => {
    for (const data of pending.splice(0)) await writeAll(conn, data);
  };
  try {
    let startup = true;
    for await (const message of messages(conn)) {
      const isStartup = startup;
      if (startup) {
        const code = new DataView(message.buffer).getInt32(4);
        if (code === SSL_REQUEST || code === GSS_REQUEST) {
          await conn.write(new TextEncoder().encode("N"));
          continue;
        }
        // Cancelling is not supported: the connection asking for it closes.
        if (code === CANCEL_REQUEST) return;
        startup = false;
      } else if (message[0] === 0x58 /* X: Terminate */) {
        return;
      }
      if (TRACE && !gate.holds(id)) console.error(`#${id} waits: ${traced(message)}`);
      await gate.enter(id);
      if (TRACE) console.error(`#${id} runs: ${traced(message)}`);
      gate.lastRun = { at: Date.now(), message: traced(message) };
      await db.execProtocolRawStream(message, {
        onRawData: (data) => pending.push(data.slice()),
      });
      if (TRACE) console.error(`#${id} answer: ${pending.map(traced).join(" | ")}`);
      await flush();
      // The startup packet, Q (simple query) or S (Sync) ends an exchange.
      const ended = isStartup || message[0] === 0x51 || message[0] === 0x53;
      if (ended && !db.isInTransaction()) gate.leave(id);
    }
  } catch (error) {
    // A connection reset ends it like a Terminate.
    if (TRACE) console.error(`#${id} failed:`, error);
  } finally {
    if (gate.holds(id)) {
      // A transaction left open by a connection that went away is rolled back.
      if (db.isInTransaction()) await db.exec("ROLLBACK").catch(() => {});
      gate.leave(id);
    }
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  }
}

/** Starts PGlite with pgvector and pg_trgm installed, serving on `port` (0: any free port). */
export async function startPgliteServer(
  port = 0,
): Promise<{ url: string; close(): Promise<void> }> {
  const { PGlite } = await import(devToolFile("pglite"));
  const { pg_trgm } = await import(
    devToolFile("pglite").replace(/index\.js$/, "contrib/pg_trgm.js")
  );
  const { vector } = await import(devToolFile("pglite_vector"));
  const db: PGliteSession = await PGlite.create({ extensions: { vector, pg_trgm } });
  // The administrator's step mema documents (docs/POSTGRES.md): mema never creates pgvector.
  await db.exec("CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm;");
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  const gate = new SessionGate();
  const watchdog = setInterval(() => {
    const stall = gate.stalled(STALL_WARNING_MS);
    if (stall) console.error(`pglite_server: ${stall}`);
  }, STALL_WARNING_MS);
  const served = (async () => {
    let next = 1;
    for await (const conn of listener) serveConnection(db, gate, conn, next++);
  })();
  const bound = (listener.addr as Deno.NetAddr).port;
  return {
    url: `postgres://postgres@127.0.0.1:${bound}/postgres?prepare=false`,
    async close() {
      clearInterval(watchdog);
      listener.close();
      await served.catch(() => {});
      await db.close();
    },
  };
}

/** A PGlite server running in a child process: its URL, and how to stop it. */
export interface PgliteChild {
  url: string;
  stop(): Promise<void>;
}

/** True when both PGlite packages are installed (scripts/dev_tools.ts). */
export function pgliteInstalled(): boolean {
  try {
    Deno.statSync(devToolFile("pglite"));
    Deno.statSync(devToolFile("pglite_vector"));
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs this script in a child process (its WebAssembly then never stalls the caller's event
 * loop) and returns once it serves.
 */
export async function spawnPgliteServer(): Promise<PgliteChild> {
  if (!pgliteInstalled()) {
    throw new Error(
      "PGlite not found: run `deno run -A scripts/dev_tools.ts pglite pglite_vector` " +
        "(deno task test installs it), or set MEMA_TEST_SKIP_PGLITE=1 to skip the pgvector tests",
    );
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", fileURLToPath(import.meta.url)],
    stdin: "piped",
    stdout: "piped",
    // Its warnings (a stalled session) and trace go to the caller's standard error.
    stderr: "inherit",
  }).spawn();
  const stdin = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!said.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) break;
    said += value;
  }
  lines.releaseLock();
  child.stdout.cancel().catch(() => {});
  const stop = async () => {
    // Closing its standard input stops it (below).
    await stdin.close().catch(() => {});
    await child.status;
  };
  const url = said.split("\n")[0].trim();
  if (!url.startsWith("postgres://")) {
    await stop();
    throw new Error(`PGlite did not start (its errors are above): ${said}`.slice(0, 2_000));
  }
  return { url, stop };
}

if (import.meta.main) {
  const server = await startPgliteServer(Number(Deno.args[0] ?? 0));
  console.log(server.url);
  // Serves until the parent closes standard input (or dies, which closes it too).
  for await (const _ of Deno.stdin.readable) { /* keep serving */ }
  await server.close();
}
