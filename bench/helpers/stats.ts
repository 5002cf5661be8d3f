/**
 * Latency statistics, Markdown tables and result files shared by the benchmarks.
 *
 * @example
 * ```ts
 * import { summarize } from "./bench/helpers/stats.ts";
 * summarize([1, 2, 3, 10]); // {n: 4, p50: 2, p95: 10, mean: 4, max: 10}
 * ```
 * @module
 */

/** Summary of one latency sample, in milliseconds. */
export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  mean: number;
  max: number;
}

/** The nearest-rank percentile (`p` in 0..1) of `values`; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

function round(value: number, digits = 2): number {
  return Number.isFinite(value) ? Number(value.toFixed(digits)) : value;
}

/** p50/p95/mean/max of a sample of milliseconds, rounded to 0.01 ms. */
export function summarize(values: readonly number[]): LatencySummary {
  const mean = values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
  return {
    n: values.length,
    p50: round(percentile(values, 0.5)),
    p95: round(percentile(values, 0.95)),
    mean: round(mean),
    max: round(values.length ? Math.max(...values) : NaN),
  };
}

/** Runs `fn` and returns its result with the elapsed milliseconds. */
export function timed<T>(fn: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = fn();
  return { value, ms: performance.now() - started };
}

/** Awaits `fn` and returns its result with the elapsed milliseconds. */
export async function timedAsync<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

/** A Markdown table from rows of equal keys (the first row's keys are the header). */
export function markdownTable(rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return "(no rows)";
  const header = Object.keys(rows[0]);
  const cell = (value: unknown) =>
    typeof value === "number" ? String(round(value)) : String(value ?? "");
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${header.map((key) => cell(row[key])).join(" | ")} |`),
  ].join("\n");
}

/** The repository root. */
export const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

/** Writes `bench/results/<name>.json` and returns its path. */
export function writeResult(name: string, result: unknown): string {
  const dir = `${ROOT}/bench/results`;
  Deno.mkdirSync(dir, { recursive: true });
  const path = `${dir}/${name}.json`;
  Deno.writeTextFileSync(path, JSON.stringify(result, null, 2) + "\n");
  return path;
}

/** Peak resident set size of a process in bytes (Linux `VmHWM`), or undefined. */
export function peakRssBytes(pid: number | "self" = "self"): number | undefined {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = /VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system, ms) a process has used so far (Linux, 10 ms ticks), or undefined.
 * On a loaded machine wall-clock latency carries the wait for a core; the CPU a server spent
 * per call does not.
 */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command name (which may hold spaces): utime and stime are 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** Bytes of a file, or 0 when it does not exist. */
export function fileBytes(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

/** Machine facts printed with every result. */
export function machineFacts(): Record<string, unknown> {
  let cpu = "unknown";
  try {
    cpu = /model name\s*:\s*(.+)/.exec(Deno.readTextFileSync("/proc/cpuinfo"))?.[1] ?? cpu;
  } catch {
    // Not Linux.
  }
  let load = "unknown";
  try {
    // Other work on the machine skews every timing; the load average says how much there was.
    load = Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch {
    // Not Linux.
  }
  return {
    deno: Deno.version.deno,
    loadavg_at_end: load,
    os: `${Deno.build.os}-${Deno.build.arch}`,
    cpu,
    cores: navigator.hardwareConcurrency,
    at: new Date().toISOString(),
  };
}
