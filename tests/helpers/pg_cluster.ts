/**
 * The throwaway PostgreSQL cluster that scripts/test_postgres.ts started, restarted from a test:
 * PostgreSQL itself going away and coming back (every session ended by the server, new ones
 * refused while it restarts), as an upgrade or a failover does. Only a cluster the wrapper
 * started can be restarted (its data directory lies beside the unix socket `?host=` names).
 * @module
 */
import { serverBinDir } from "../../scripts/test_postgres.ts";

/** The data directory of the wrapper's cluster at `url`, or undefined when it is not one. */
export function testClusterDataDir(url: string): string | undefined {
  let host: string | null;
  try {
    host = new URL(url).searchParams.get("host");
  } catch {
    return undefined;
  }
  if (!host?.startsWith("/")) return undefined;
  try {
    Deno.statSync(`${host}/data/postmaster.pid`);
    return `${host}/data`;
  } catch {
    return undefined;
  }
}

/**
 * Restarts the cluster at `url` (`pg_ctl restart -m fast`: sessions are ended, as a server
 * shutting down ends them) and returns once it accepts connections again.
 */
export async function restartTestCluster(url: string): Promise<void> {
  const data = testClusterDataDir(url);
  const bin = serverBinDir();
  if (data === undefined || bin === undefined) throw new Error("not the wrapper's cluster");
  // The log file keeps the server's output off this pipe, which it would otherwise hold open.
  const argv = [`${bin}/pg_ctl`, "-D", data, "-l", `${data}/../server.log`, "-m", "fast", "-w"];
  const [program, ...args] = Deno.uid() === 0
    ? ["runuser", "-u", "postgres", "--", ...argv, "restart"]
    : [...argv, "restart"];
  const output = await new Deno.Command(program, { args, stdout: "piped", stderr: "piped" })
    .output();
  if (!output.success) {
    throw new Error(`pg_ctl restart failed: ${new TextDecoder().decode(output.stderr)}`);
  }
}
