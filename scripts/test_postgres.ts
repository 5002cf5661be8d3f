/**
 * Runs a command beside a throwaway PostgreSQL cluster, for the tests of the PostgreSQL store:
 * `deno run --allow-all scripts/test_postgres.ts -- deno test --allow-all tests/`.
 *
 * The cluster lives in a temporary directory (data, log and the unix socket), listens on no TCP
 * address, runs as the `postgres` user when this runs as root (PostgreSQL refuses to run as
 * root), and is stopped and deleted when the command ends. The command sees `MEMA_TEST_PG_URL`
 * (a role that may create databases, and a database it owns). Nothing starts when the caller already
 * set `MEMA_TEST_PG_URL` or `MEMA_TEST_SKIP_POSTGRES=1`; when PostgreSQL is not installed the
 * command runs without the URL, and the tests that need it fail saying how to install it.
 * `MEMA_PG_STAT_STATEMENTS=1` loads `pg_stat_statements` into the cluster (here and in the
 * benchmarks that start one).
 *
 * @module
 */

/** Debian installs the server binaries here, off PATH (one folder per major version). */
const DEBIAN_PG_ROOT = "/usr/lib/postgresql";
const TEST_ROLE = "mema_test";
const TEST_DATABASE = "mema_test";
/**
 * A password the URL carries, so every test that prints the URL exercises redaction; the cluster
 * trusts local socket users and never asks for it.
 */
const TEST_PASSWORD = "mema-test-secret";

/** The folder of `initdb` and `pg_ctl`, newest version first; undefined when not installed. */
export function serverBinDir(): string | undefined {
  try {
    const versions = [...Deno.readDirSync(DEBIAN_PG_ROOT)]
      .filter((entry) => entry.isDirectory && /^\d+$/.test(entry.name))
      .map((entry) => Number(entry.name))
      .sort((a, b) => b - a);
    for (const version of versions) {
      const dir = `${DEBIAN_PG_ROOT}/${version}/bin`;
      if (exists(`${dir}/initdb`)) return dir;
    }
  } catch {
    // Not Debian's layout: look on PATH below.
  }
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir && exists(`${dir}/initdb`) && exists(`${dir}/pg_ctl`)) return dir;
  }
  return undefined;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Runs a cluster tool, as the `postgres` user when this process is root. */
async function runTool(argv: string[], asPostgres: boolean): Promise<void> {
  const [program, ...args] = asPostgres ? ["runuser", "-u", "postgres", "--", ...argv] : argv;
  const output = await new Deno.Command(program, { args, stdout: "piped", stderr: "piped" })
    .output();
  if (!output.success) {
    const text = new TextDecoder().decode(output.stderr) + new TextDecoder().decode(output.stdout);
    throw new Error(`${argv.join(" ")} failed (${output.code}): ${text.trim()}`);
  }
}

/**
 * Opt-in (`MEMA_PG_STAT_STATEMENTS=1`): the cluster loads `pg_stat_statements` (Debian's
 * postgresql-15 ships it), so a run can rank its statements by time (docs/POSTGRES.md, "Finding
 * what a run's database time went to"). Off by default: CI's cluster stays as it was.
 */
function statementStatsOptions(): string {
  if (Deno.env.get("MEMA_PG_STAT_STATEMENTS") !== "1") return "";
  return " -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all" +
    " -c track_io_timing=on";
}

/**
 * PostgreSQL's buffer cache for a benchmark's cluster. initdb's default (128 MB) is smaller than
 * a 100,000-memory library (423 MB): every `find` and conflict check then read ~1,000 pages from
 * the OS's cache (docs/POSTGRES.md, "What grows from 10,000 to 100,000 memories"). A server is
 * sized for its database (PostgreSQL's guide: a quarter of the RAM of a dedicated host);
 * `MEMA_PG_SHARED_BUFFERS` sets another size (`128MB` to measure the default).
 */
const BENCH_SHARED_BUFFERS = "1GB";

/** A started cluster: the URL the tests use and how to stop it. */
export interface TestCluster {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a throwaway cluster from the server binaries in `bin`. `durable` keeps PostgreSQL's
 * default `fsync=on`, as a benchmark must (a commit then waits for the disk, as in production),
 * and sizes its buffer cache for the library ({@linkcode BENCH_SHARED_BUFFERS}); the tests turn
 * fsync off and keep the default cache.
 */
export async function startCluster(
  bin: string,
  options: { durable?: boolean } = {},
): Promise<TestCluster> {
  const asPostgres = Deno.uid() === 0;
  const dir = await Deno.makeTempDir({ prefix: "mema-pg-" });
  if (asPostgres) await new Deno.Command("chown", { args: ["postgres:", dir] }).output();
  const data = `${dir}/data`;
  const port = freePort();
  await runTool(
    [`${bin}/initdb`, "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
    asPostgres,
  );
  // fsync off: a test cluster is thrown away, and the suite shares two cores with others.
  const serverOptions = `-k ${dir} -p ${port} -c listen_addresses=''` +
    (options.durable
      ? ` -c shared_buffers=${Deno.env.get("MEMA_PG_SHARED_BUFFERS") ?? BENCH_SHARED_BUFFERS}`
      : " -c fsync=off") +
    statementStatsOptions();
  await runTool(
    [`${bin}/pg_ctl`, "-D", data, "-l", `${dir}/server.log`, "-o", serverOptions, "-w", "start"],
    asPostgres,
  );
  const stop = async () => {
    try {
      await runTool([`${bin}/pg_ctl`, "-D", data, "-m", "immediate", "-w", "stop"], asPostgres);
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  };
  try {
    // The client tools rather than SQL text (SQL lives only in src/store/). Tests make a database
    // per store, so the role may create databases.
    const connect = ["-h", dir, "-p", String(port), "-U", "postgres"];
    // pg_signal_backend: a scratch database's DROP ... WITH (FORCE) may meet an autovacuum worker.
    await runTool(
      [`${bin}/createuser`, ...connect, "--createdb", "--role=pg_signal_backend", TEST_ROLE],
      asPostgres,
    );
    await runTool([`${bin}/createdb`, ...connect, "-O", TEST_ROLE, TEST_DATABASE], asPostgres);
  } catch (error) {
    await stop();
    throw error;
  }
  const url = `postgres://${TEST_ROLE}:${TEST_PASSWORD}@localhost:${port}/${TEST_DATABASE}` +
    `?host=${encodeURIComponent(dir)}&port=${port}`;
  return { url, stop };
}

async function main(argv: string[]): Promise<number> {
  const command = argv[0] === "--" ? argv.slice(1) : argv;
  if (command.length === 0) {
    console.error("usage: scripts/test_postgres.ts -- COMMAND [ARGS...]");
    return 2;
  }
  const env: Record<string, string> = {};
  let cluster: TestCluster | undefined;
  const given = Deno.env.get("MEMA_TEST_PG_URL");
  if (!given && Deno.env.get("MEMA_TEST_SKIP_POSTGRES") !== "1") {
    const bin = serverBinDir();
    if (bin === undefined) {
      console.error(
        "PostgreSQL not found: the PostgreSQL store's tests will fail " +
          "(apt-get install postgresql, or MEMA_TEST_SKIP_POSTGRES=1 to skip them)",
      );
    } else {
      cluster = await startCluster(bin);
      env.MEMA_TEST_PG_URL = cluster.url;
      console.error(`started a throwaway PostgreSQL cluster (${bin})`);
    }
  }
  // Ctrl-C reaches the child too (one process group): wait for it, then stop the cluster.
  const ignore = () => {};
  Deno.addSignalListener("SIGINT", ignore);
  try {
    // `deno` means this very binary (npx's Deno need not be on PATH).
    const program = command[0] === "deno" ? Deno.execPath() : command[0];
    const child = new Deno.Command(program, { args: command.slice(1), env }).spawn();
    const status = await child.status;
    return status.code;
  } finally {
    Deno.removeSignalListener("SIGINT", ignore);
    await cluster?.stop();
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
