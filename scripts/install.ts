/**
 * `deno task install`: puts a working `mema` command into `<root>/bin` (default `~/.local/bin`).
 *
 * ```sh
 * deno run -A scripts/install.ts [--root DIR] [--mode auto|binary|shim]
 * ```
 *
 * - `binary`: the single executable from scripts/compile.ts, copied into place. Needs a
 *   `deno compile` that can get its `denort` base runtime (downloaded once into Deno's cache,
 *   or named by `DENORT_BIN`).
 * - `shim`: a two-line shell script, `<root>/bin/mema`, that runs this checkout's `main.ts`
 *   with this checkout's `deno.json` (so a `git pull` that changes dependencies is picked up,
 *   and the checkout's `node_modules` is the only copy). It names a copy of the Deno that
 *   ran the install, `<root>/lib/mema/deno`, by absolute path: never `deno` from PATH,
 *   because the Deno of `npx -y deno@…` is on PATH only while npx runs, and its own file
 *   lives in npm's cache, which npm may clear. Works wherever Deno runs.
 * - `auto` (default): `binary` when a one-line probe compiles and runs, else `shim`.
 *
 * Either way the installed command is run once (`mema version`), with a PATH that has no
 * Deno on it, before this script reports success, and a missing PATH entry is pointed out
 * with the line to add.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { compileBinary, PAYLOAD_LIMIT_MB } from "./compile.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

/** How `mema` ended up installed. */
export type InstallMode = "binary" | "shim";

async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const result = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: result.code, stdout: decode(result.stdout), stderr: decode(result.stderr) };
}

/**
 * True when `deno compile` produces runnable binaries here: a one-line program is compiled
 * and must print its marker. With `DENORT_BIN` pointing at the deno CLI the probe starts a
 * REPL instead of the program, so stdin is closed and the marker is missing.
 */
export async function canBuildRunnableBinaries(): Promise<boolean> {
  const dir = Deno.makeTempDirSync({ prefix: "mema-denort-probe-" });
  try {
    Deno.writeTextFileSync(`${dir}/probe.ts`, 'console.log("mema-denort-probe-ok");\n');
    const compiled = await run(Deno.execPath(), [
      "compile",
      "--no-config",
      "--quiet",
      "--output",
      `${dir}/probe`,
      `${dir}/probe.ts`,
    ], { cwd: dir });
    if (compiled.code !== 0) return false;
    const probe = await new Deno.Command(`${dir}/probe`, {
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return new TextDecoder().decode(probe.stdout).includes("mema-denort-probe-ok");
  } catch {
    return false;
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

async function installBinary(binDir: string): Promise<string> {
  const staging = Deno.makeTempDirSync({ prefix: "mema-install-" });
  try {
    const built = `${staging}/mema`;
    const report = await compileBinary({
      output: built,
      typeCheck: true,
      payloadLimitBytes: PAYLOAD_LIMIT_MB * 1e6,
    });
    if (!report.ok) throw new Error(`compile failed:\n${report.problems.join("\n")}`);
    const version = await run(built, ["version"]);
    if (version.code !== 0 || !version.stdout.startsWith("mema ")) {
      throw new Error(`the compiled binary does not run: ${version.stdout}${version.stderr}`);
    }
    Deno.mkdirSync(binDir, { recursive: true });
    const target = `${binDir}/mema`;
    // Copy beside the target, then rename: a running `mema serve` keeps its old inode.
    const temporary = `${target}.tmp-${Deno.pid}`;
    Deno.copyFileSync(built, temporary);
    Deno.chmodSync(temporary, 0o755);
    Deno.renameSync(temporary, target);
    return target;
  } finally {
    Deno.removeSync(staging, { recursive: true });
  }
}

/**
 * Copies the running Deno to `<root>/lib/mema/deno` and returns that path. A copy, not a link
 * to `Deno.execPath()`: under npx that file is in npm's cache, which npm may evict; a hard
 * link would survive that too but fails across file systems. Copied beside the target, then
 * renamed over it, so a running `mema serve` keeps its old file.
 */
function pinDeno(root: string): string {
  const dir = `${root}/lib/mema`;
  Deno.mkdirSync(dir, { recursive: true });
  const target = `${dir}/deno`;
  const temporary = `${target}.tmp-${Deno.pid}`;
  Deno.copyFileSync(Deno.execPath(), temporary);
  Deno.chmodSync(temporary, 0o755);
  Deno.renameSync(temporary, target);
  return target;
}

/**
 * Writes `<root>/bin/mema`. Not `deno install --global`: that script finds `deno` on PATH
 * and runs with a copy of `deno.json` frozen at install time (plus its own copy of
 * `node_modules`), which breaks as soon as the checkout's imports change.
 */
function installShim(root: string): string {
  const deno = pinDeno(root);
  const binDir = `${root}/bin`;
  Deno.mkdirSync(binDir, { recursive: true });
  const target = `${binDir}/mema`;
  const script = [
    "#!/bin/sh",
    `# mema from the checkout ${ROOT}, run by the Deno copied at install (scripts/install.ts)`,
    // --quiet: Deno's own progress lines would reach cron's mail and clients' logs.
    `exec ${shellQuote(deno)} run --quiet --allow-all --config ${
      shellQuote(`${ROOT}/deno.json`)
    } ` +
    `${shellQuote(`${ROOT}/main.ts`)} "$@"`,
    "",
  ].join("\n");
  const temporary = `${target}.tmp-${Deno.pid}`;
  Deno.writeTextFileSync(temporary, script);
  Deno.chmodSync(temporary, 0o755);
  Deno.renameSync(temporary, target);
  // What `deno install --global` left there in earlier versions of this script.
  try {
    Deno.removeSync(`${binDir}/.mema`, { recursive: true });
  } catch {
    // none
  }
  return target;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}

function onPath(dir: string): boolean {
  const entries = (Deno.env.get("PATH") ?? "").split(":").filter(Boolean);
  return entries.some((entry) => entry.replace(/\/$/, "") === dir);
}

/** Installs `mema` under `root` and returns how and where. */
export async function installMema(options: { root: string; mode: InstallMode | "auto" }): Promise<{
  mode: InstallMode;
  path: string;
  version: string;
  note?: string;
}> {
  let mode: InstallMode = options.mode === "auto"
    ? (await canBuildRunnableBinaries() ? "binary" : "shim")
    : options.mode;
  let note: string | undefined;
  let path: string;
  if (mode === "binary") {
    try {
      path = await installBinary(`${options.root}/bin`);
    } catch (error) {
      if (options.mode === "binary") throw error;
      note = `the binary could not be built (${error instanceof Error ? error.message : error}); ` +
        "installed the deno shim instead";
      mode = "shim";
      path = installShim(options.root);
    }
  } else {
    note = options.mode === "auto"
      ? "deno compile cannot get its denort base runtime here; installed the deno shim"
      : undefined;
    path = installShim(options.root);
  }
  // Running the command once also fills the checkout's node_modules if needed. An empty PATH: the
  // command must not depend on a `deno` that happens to be on this process's PATH (npx's).
  const check = await run(path, ["version"], { cwd: options.root, env: { PATH: "" } });
  if (check.code !== 0 || !check.stdout.startsWith("mema ")) {
    throw new Error(
      `installed ${path}, but \`mema version\` failed:\n${check.stdout}${check.stderr}`,
    );
  }
  return { mode, path, version: check.stdout.trim(), note };
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      // `deno task install -- --root DIR` passes the `--` through; it separates nothing here.
      args: argv[0] === "--" ? argv.slice(1) : argv,
      options: {
        root: { type: "string" },
        mode: { type: "string", default: "auto" },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`install: ${error instanceof Error ? error.message : error}`);
    return 2;
  }
  if (!["auto", "binary", "shim"].includes(values.mode)) {
    console.error(`install: --mode must be auto, binary or shim, not "${values.mode}"`);
    return 2;
  }
  const home = Deno.env.get("HOME") ?? Deno.cwd();
  const root = (values.root ?? `${home}/.local`).replace(/\/$/, "");
  try {
    const result = await installMema({ root, mode: values.mode as InstallMode | "auto" });
    if (result.note) console.error(`install: ${result.note}`);
    console.log(`installed ${result.path} (${result.mode}): ${result.version}`);
    if (!onPath(`${root}/bin`)) {
      console.log(`${root}/bin is not on PATH; add it, e.g.\n  export PATH="${root}/bin:$PATH"`);
    }
    return 0;
  } catch (error) {
    console.error(`install: ${error instanceof Error ? error.message : error}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
