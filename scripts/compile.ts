/**
 * Builds the single `mema` executable (docs/SPEC.md §2) with `deno compile`, leaving out of the
 * embedded `node_modules` what mema never loads on this platform (scripts/compile_plan.ts),
 * then checks that the native files it needs are really inside and reports the sizes.
 *
 * ```sh
 * deno run -A scripts/compile.ts [--output dist/mema] [--no-check] [--json] [--max-payload-mb 120]
 *                                [--check-only]
 * ```
 *
 * `deno compile` downloads its `denort` base runtime from dl.deno.land once (then it is in
 * Deno's cache). When that download fails, this script says so in one message with the fix
 * instead of Deno's error chain and backtrace. `DENORT_BIN` names a base runtime on disk
 * instead: a real `denort` of the same Deno version gives a runnable binary. `--check-only`
 * sets `DENORT_BIN` to the running `deno` CLI: the output is then NOT runnable (it starts as
 * the Deno CLI, not as mema), but the module graph, the embedded files and the payload size
 * are real, which is what CI checks. Every build is run once (`<output> version`) and the
 * report says whether it is runnable, and why not.
 *
 * The payload is the output's size minus the base runtime's size; it is measured only when
 * `DENORT_BIN` names the base (the real `denort` lives zipped in Deno's cache).
 *
 * Exit codes: 0 built and checked, 1 compile failed, a native file is missing from the
 * binary, the payload is over the limit, or the binary does not run although it was built
 * on a real base runtime; 2 bad arguments.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { parseArgs } from "node:util";
import { installModelStackPart } from "../src/models/model_stack.ts";
import { hostPlatform, type NativeFile, planShipping } from "./compile_plan.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

/**
 * The CI budget for what the binary adds to the base runtime. Measured at 90 MB on
 * linux-x64 (libonnxruntime 46 MB, libvips 19 MB, JavaScript and the rest ~25 MB) after the
 * excludes.
 */
export const PAYLOAD_LIMIT_MB = 120;

/** Modules started as workers (`new Worker(...)`), which `deno compile` must be told of. */
export const WORKER_MODULES = ["src/portability/text_worker.ts"];

/** Bytes compared per native file to prove it is embedded (raw, uncompressed in the VFS). */
const SAMPLE_BYTES = 256;

/**
 * How long `<output> version` may take before the build counts as not runnable. The real
 * binary answers in well under a second; the bound only stops a base runtime that waits
 * for input (stdin is closed anyway) from hanging the build.
 */
const RUN_CHECK_TIMEOUT_MS = 60_000;

/** Where `deno compile` gets the base runtime; named in the messages. */
const DENORT_HOST = "dl.deno.land";

/** What one build produced; printed as JSON with `--json`. */
export interface CompileReport {
  ok: boolean;
  output: string;
  target: string;
  outputBytes: number;
  baseRuntime?: { path: string; bytes: number };
  payloadBytes?: number;
  payloadLimitBytes: number;
  /** "Files: … MB" as `deno compile` printed it. */
  embeddedFilesReported?: string;
  excludes: number;
  excludedBytes: number;
  natives: (NativeFile & { embedded: boolean })[];
  missingNatives: string[];
  compileMs: number;
  /** `<output> version` printed `mema …`; undefined when nothing was built. */
  runnable?: boolean;
  /** Why the output does not run as mema, when it does not. */
  notRunnable?: string;
  problems: string[];
}

/** Deno's error chain without the backtrace that follows it. */
function withoutBacktrace(log: string): string {
  const at = log.indexOf("Stack backtrace:");
  return (at >= 0 ? log.slice(0, at) : log).trim();
}

/**
 * One message for a `deno compile` that failed while setting up its base runtime (the
 * `denort` download, or the file `DENORT_BIN` names), with the fix; undefined for any other
 * failure (those keep Deno's own message: a broken module graph needs its details).
 */
export function explainBaseRuntimeFailure(
  log: string,
  baseRuntime: string | undefined,
): string | undefined {
  const chain = withoutBacktrace(log);
  const causes = [...chain.matchAll(/^\s*\d+: (.+)$/gm)].map((m) => m[1].trim());
  if (!causes.some((cause) => /setting up base binary|denort/i.test(cause))) return undefined;
  const cause = causes.at(-1) ?? "unknown cause";
  if (baseRuntime !== undefined) {
    return [
      `deno compile could not use DENORT_BIN=${baseRuntime} as its base runtime (${cause}).`,
      "Fix: point DENORT_BIN at an unzipped denort of this Deno version, or unset it on a " +
      `machine that can reach ${DENORT_HOST}.`,
    ].join("\n  ");
  }
  const url = /https?:\/\/[^\s)]+/.exec(chain)?.[0] ?? `https://${DENORT_HOST}/`;
  return [
    `deno compile could not download its base runtime (denort) from ${url} (${cause}).`,
    `Fix: build on a machine that can reach ${DENORT_HOST} (Deno caches the runtime after the`,
    "first download), or fetch that zip elsewhere, unzip it and set DENORT_BIN=/path/to/denort.",
    "To check only the module graph, the embedded files and the size (the output is then NOT",
    `runnable): npx -y deno@${Deno.version.deno} task compile --check-only`,
  ].join("\n  ");
}

/** Runs the built binary once; true when it answers `version` as mema. */
async function runsAsMema(output: string): Promise<boolean> {
  try {
    const result = await new Deno.Command(output, {
      args: ["version"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(RUN_CHECK_TIMEOUT_MS),
    }).output();
    return result.code === 0 && new TextDecoder().decode(result.stdout).startsWith("mema ");
  } catch {
    return false;
  }
}

function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

/** A sample from the middle of a file, or undefined for an empty file. */
function middleSample(path: string): Uint8Array | undefined {
  const file = Deno.openSync(path);
  try {
    const size = file.statSync().size;
    if (size === 0) return undefined;
    const length = Math.min(SAMPLE_BYTES, size);
    const buffer = new Uint8Array(length);
    file.seekSync(Math.floor((size - length) / 2), Deno.SeekMode.Start);
    let read = 0;
    while (read < length) {
      const n = file.readSync(buffer.subarray(read));
      if (n === null) break;
      read += n;
    }
    return buffer;
  } finally {
    file.close();
  }
}

async function ensureNodeModules(): Promise<void> {
  try {
    Deno.statSync(`${ROOT}/node_modules/.deno`);
  } catch {
    const result = await new Deno.Command(Deno.execPath(), {
      args: ["install"],
      cwd: ROOT,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!result.success) throw new Error("`deno install` failed");
  }
  // The model runtime is not in deno.json (src/models/model_stack.ts); the binary embeds
  // node_modules, so it must be installed before compiling.
  await installModelStackPart("transformers", { say: (line) => console.error(line) });
}

/** Builds the binary and checks it; never throws for a failed build (see `problems`). */
export async function compileBinary(options: {
  output: string;
  typeCheck: boolean;
  payloadLimitBytes: number;
  /** A base runtime on disk (`DENORT_BIN`); default: the environment's `DENORT_BIN`. */
  baseRuntime?: string;
}): Promise<CompileReport> {
  const denort = options.baseRuntime ?? (Deno.env.get("DENORT_BIN") || undefined);
  await ensureNodeModules();
  const target = hostPlatform();
  const plan = planShipping(ROOT, target);
  const problems = plan.missing.map((what) => `missing in node_modules: ${what}`);
  // deno compile matches --exclude against real paths: a symlinked node_modules (a worktree
  // sharing one install) would otherwise exclude nothing.
  const nodeModules = Deno.realPathSync(`${ROOT}/node_modules`);
  const excludes = plan.excludes.map((path) => path.replace(/^node_modules/, nodeModules));
  const args = [
    "compile",
    "--allow-all",
    ...(options.typeCheck ? [] : ["--no-check"]),
    ...excludes.flatMap((path) => ["--exclude", path]),
    // Workers are not found by following imports: the import's text worker is named here.
    ...WORKER_MODULES.flatMap((path) => ["--include", path]),
    "--output",
    options.output,
    "main.ts",
  ];
  const started = performance.now();
  const result = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...(denort === undefined ? {} : { DENORT_BIN: denort }) },
  }).output();
  const compileMs = Math.round(performance.now() - started);
  const log = stripAnsi(
    new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr),
  );
  const report: CompileReport = {
    ok: false,
    output: options.output,
    target: `${target.os}-${target.arch}-${target.libc}`,
    outputBytes: 0,
    payloadLimitBytes: options.payloadLimitBytes,
    embeddedFilesReported: /Files:\s*([\d.]+\s*[KMG]?B)/.exec(log)?.[1],
    excludes: plan.excludes.length,
    excludedBytes: plan.excludedBytes,
    natives: plan.natives.map((native) => ({ ...native, embedded: false })),
    missingNatives: plan.missing,
    compileMs,
    problems,
  };
  if (!result.success) {
    problems.push(
      explainBaseRuntimeFailure(log, denort) ??
        `deno compile failed (exit ${result.code}):\n${withoutBacktrace(log)}`,
    );
    return report;
  }
  report.outputBytes = Deno.statSync(options.output).size;
  if (denort !== undefined) {
    const bytes = Deno.statSync(denort).size;
    report.baseRuntime = { path: denort, bytes };
    report.payloadBytes = report.outputBytes - bytes;
    if (report.payloadBytes > options.payloadLimitBytes) {
      const largest = plan.largest
        .map((pkg) => `${pkg.name}@${pkg.version} ${(pkg.bytes / 1e6).toFixed(1)} MB`)
        .join(", ");
      problems.push(
        `payload ${(report.payloadBytes / 1e6).toFixed(1)} MB is over the limit of ` +
          `${(options.payloadLimitBytes / 1e6).toFixed(0)} MB; the largest packages in it: ` +
          `${largest} (only packages a name in node_modules links to are counted, as in a ` +
          "clean clone; a new one here is a new dependency: leave it out in scripts/compile_plan.ts " +
          "if mema never loads it)",
      );
    }
  }
  const binary = Buffer.from(Deno.readFileSync(options.output));
  for (const native of report.natives) {
    const sample = middleSample(`${ROOT}/${native.path}`);
    native.embedded = sample !== undefined && binary.indexOf(sample) >= 0;
    if (!native.embedded) problems.push(`not embedded: ${native.role} (${native.path})`);
  }
  report.runnable = await runsAsMema(options.output);
  if (!report.runnable) {
    if (denort !== undefined) {
      report.notRunnable = [
        `the output is NOT runnable: it was built on DENORT_BIN=${denort}, which is not a denort`,
        "base runtime of this Deno version, so it starts as that program instead of as mema.",
        "The module graph, the embedded files and the size are checked all the same. For a",
        `runnable binary, build without DENORT_BIN on a machine that can reach ${DENORT_HOST}.`,
      ].join("\n  ");
    } else {
      problems.push(`the built binary does not run: \`${options.output} version\` failed`);
    }
  }
  report.ok = problems.length === 0;
  return report;
}

function megabytes(bytes: number | undefined): string {
  return bytes === undefined ? "n/a" : `${(bytes / 1e6).toFixed(1)} MB`;
}

function printReport(report: CompileReport): void {
  if (report.outputBytes === 0) {
    for (const problem of report.problems) console.error(`compile: ${problem}`);
    return;
  }
  const state = report.runnable ? "runnable" : "NOT runnable";
  console.log(`mema binary: ${report.output} (${report.target}, ${state})`);
  console.log("| what | size |\n|---|---|");
  console.log(`| binary | ${megabytes(report.outputBytes)} |`);
  if (report.baseRuntime) {
    console.log(
      `| base runtime (${report.baseRuntime.path}) | ${megabytes(report.baseRuntime.bytes)} |`,
    );
  }
  console.log(
    `| payload (limit ${megabytes(report.payloadLimitBytes)}) | ${
      megabytes(report.payloadBytes)
    } |`,
  );
  console.log(`| embedded files (deno compile) | ${report.embeddedFilesReported ?? "n/a"} |`);
  console.log(`| left out (${report.excludes} paths) | ${megabytes(report.excludedBytes)} |`);
  for (const native of report.natives) {
    const mark = native.embedded ? "embedded" : "MISSING";
    console.log(
      `| ${native.role}: ${native.path.split("/").pop()} (${mark}) | ${megabytes(native.size)} |`,
    );
  }
  console.log(`compile took ${(report.compileMs / 1000).toFixed(1)} s`);
  for (const problem of report.problems) console.error(`compile: ${problem}`);
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      // `deno task compile -- --json` passes the `--` through; it separates nothing here.
      args: argv[0] === "--" ? argv.slice(1) : argv,
      options: {
        output: { type: "string", default: `${ROOT}/dist/mema` },
        "no-check": { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        "max-payload-mb": { type: "string", default: String(PAYLOAD_LIMIT_MB) },
        "check-only": { type: "boolean", default: false },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`compile: ${error instanceof Error ? error.message : error}`);
    return 2;
  }
  const limit = Number(values["max-payload-mb"]);
  if (!Number.isFinite(limit) || limit <= 0) {
    console.error("compile: --max-payload-mb must be a positive number");
    return 2;
  }
  const output = values.output.startsWith("/") ? values.output : `${Deno.cwd()}/${values.output}`;
  Deno.mkdirSync(output.slice(0, output.lastIndexOf("/")) || "/", { recursive: true });
  const report = await compileBinary({
    output,
    typeCheck: !values["no-check"],
    payloadLimitBytes: limit * 1e6,
    baseRuntime: values["check-only"] ? Deno.execPath() : undefined,
  });
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else printReport(report);
  if (report.notRunnable) console.error(`compile: ${report.notRunnable}`);
  return report.ok ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
