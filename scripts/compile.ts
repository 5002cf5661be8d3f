/**
 * Builds the single `mema` executable (SPEC §2) with `deno compile`, leaving out of the
 * embedded `node_modules` what mema never loads on this platform (scripts/compile_plan.ts),
 * then checks that the native files it needs are really inside and reports the sizes.
 *
 * ```sh
 * deno run -A scripts/compile.ts [--output dist/mema] [--no-check] [--json] [--max-payload-mb 120]
 * ```
 *
 * On a machine where `deno compile` cannot download its `denort` base runtime, set
 * `DENORT_BIN` to the `deno` binary: the output is then not runnable (it starts as the Deno
 * CLI), but the module graph, the embedded files and the payload size are real, which is what
 * CI checks. The payload is the output's size minus the base runtime's size; it is measured
 * only when `DENORT_BIN` names the base (the real `denort` lives zipped in Deno's cache).
 *
 * Exit codes: 0 built and checked, 1 compile failed, a native file is missing from the
 * binary, or the payload is over the limit; 2 bad arguments.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { parseArgs } from "node:util";
import { hostPlatform, type NativeFile, planShipping } from "./compile_plan.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

/**
 * The CI budget for what the binary adds to the base runtime. Measured at 106 MB on
 * linux-x64 (libonnxruntime 46 MB, libvips 19 MB, JavaScript ~40 MB) after the excludes.
 */
export const PAYLOAD_LIMIT_MB = 120;

/** Bytes compared per native file to prove it is embedded (raw, uncompressed in the VFS). */
const SAMPLE_BYTES = 256;

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
  problems: string[];
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
}

/** Builds the binary and checks it; never throws for a failed build (see `problems`). */
export async function compileBinary(options: {
  output: string;
  typeCheck: boolean;
  payloadLimitBytes: number;
}): Promise<CompileReport> {
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
    env: { NO_COLOR: "1" },
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
    problems.push(`deno compile failed (exit ${result.code}):\n${log.trim()}`);
    return report;
  }
  report.outputBytes = Deno.statSync(options.output).size;
  const denort = Deno.env.get("DENORT_BIN");
  if (denort) {
    const bytes = Deno.statSync(denort).size;
    report.baseRuntime = { path: denort, bytes };
    report.payloadBytes = report.outputBytes - bytes;
    if (report.payloadBytes > options.payloadLimitBytes) {
      problems.push(
        `payload ${(report.payloadBytes / 1e6).toFixed(1)} MB is over the limit of ` +
          `${(options.payloadLimitBytes / 1e6).toFixed(0)} MB`,
      );
    }
  }
  const binary = Buffer.from(Deno.readFileSync(options.output));
  for (const native of report.natives) {
    const sample = middleSample(`${ROOT}/${native.path}`);
    native.embedded = sample !== undefined && binary.indexOf(sample) >= 0;
    if (!native.embedded) problems.push(`not embedded: ${native.role} (${native.path})`);
  }
  report.ok = problems.length === 0;
  return report;
}

function megabytes(bytes: number | undefined): string {
  return bytes === undefined ? "n/a" : `${(bytes / 1e6).toFixed(1)} MB`;
}

function printReport(report: CompileReport): void {
  console.log(`mema binary: ${report.output} (${report.target})`);
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
      args: argv,
      options: {
        output: { type: "string", default: `${ROOT}/dist/mema` },
        "no-check": { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        "max-payload-mb": { type: "string", default: String(PAYLOAD_LIMIT_MB) },
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
  });
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else printReport(report);
  return report.ok ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
