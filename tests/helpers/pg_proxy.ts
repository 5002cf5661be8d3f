/**
 * A TCP port in front of a PostgreSQL server, which a test can cut (every connection dropped,
 * new ones refused) and open again on the same port: a database that becomes unreachable and
 * comes back, as a network cut or a restart makes it, without touching the shared cluster.
 * @module
 */

/** The proxy: the URL to give mema, and the switch. */
export interface PostgresProxy {
  /** `url` rewritten to go through the proxy (same role, password and database). */
  url: string;
  /** Drops every connection and stops listening: the database is unreachable. */
  cut(): void;
  /** Listens again on the same port. */
  restore(): void;
  close(): void;
}

/** Where `url`'s server listens: its unix socket when `?host=` names a directory, else TCP. */
function serverAddress(url: URL): Deno.ConnectOptions | Deno.UnixConnectOptions {
  const port = url.searchParams.get("port") ?? (url.port || "5432");
  const host = url.searchParams.get("host");
  if (host?.startsWith("/")) return { transport: "unix", path: `${host}/.s.PGSQL.${port}` };
  return { hostname: url.hostname || "localhost", port: Number(port) };
}

/** Starts a proxy to the server `url` names. */
export function startPostgresProxy(url: string): PostgresProxy {
  const target = new URL(url);
  const address = serverAddress(target);
  const open = new Set<Deno.Conn>();
  let listener: Deno.Listener | undefined;
  let port = 0;
  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    try {
      await from.readable.pipeTo(to.writable);
    } catch {
      // A cut connection ends here.
    }
  };
  const listen = () => {
    listener = Deno.listen({ hostname: "127.0.0.1", port });
    port = (listener.addr as Deno.NetAddr).port;
    const current = listener;
    (async () => {
      try {
        for await (const client of current) {
          open.add(client);
          const server = await Deno.connect(address as Deno.ConnectOptions);
          // A cut while the server was being dialled: this connection must not outlive it.
          if (listener !== current) {
            server.close();
            continue;
          }
          open.add(server);
          void pipe(client, server);
          void pipe(server, client);
        }
      } catch {
        // The listener was closed.
      }
    })();
  };
  const cut = () => {
    listener?.close();
    listener = undefined;
    for (const conn of open) {
      try {
        conn.close();
      } catch {
        // Already closed by its pipe.
      }
    }
    open.clear();
  };
  listen();
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(port);
  proxied.searchParams.delete("host");
  proxied.searchParams.delete("port");
  return { url: proxied.href, cut, restore: listen, close: cut };
}
