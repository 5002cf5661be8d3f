/**
 * CPU time spent by processes, read from Linux's `/proc` (a benchmark's phases on a shared
 * machine: wall time says how long a call waited, CPU time says what it cost, whoever else
 * was running). Elsewhere every reading is 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processCpuMs } from "./process_cpu.ts";
 *
 * assert.ok(processCpuMs(Deno.pid) >= 0);
 * ```
 * @module
 */

/** Clock ticks per second of `/proc`'s CPU counters (`getconf CLK_TCK`: 100 on Linux). */
const TICKS_PER_S = 100;

function readText(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}

/** The fields of `/proc/PID/stat` after the command name (which may hold spaces). */
function statFields(pid: number): string[] | undefined {
  const text = readText(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
}

/** User plus system CPU milliseconds `pid` has used so far (0 once it is gone). */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  // utime and stime are the stat file's fields 14 and 15; fields[0] is field 3 (state).
  if (fields === undefined) return 0;
  return (Number(fields[11]) + Number(fields[12])) * 1000 / TICKS_PER_S;
}

/** The ids of `parent`'s child processes now. */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid)) continue;
    if (Number(statFields(pid)?.[1]) === parent) children.push(pid);
  }
  return children;
}

/**
 * The PostgreSQL server (postmaster) listening on the unix socket directory `socketDir`:
 * the process started with `-k socketDir`.
 */
export function postmasterOf(socketDir: string): number | undefined {
  for (const entry of Deno.readDirSync("/proc")) {
    const pid = Number(entry.name);
    if (!Number.isInteger(pid)) continue;
    const args = readText(`/proc/${pid}/cmdline`)?.split("\0") ?? [];
    const at = args.indexOf("-k");
    if (at >= 0 && args[at + 1] === socketDir && args[0].endsWith("postgres")) return pid;
  }
  return undefined;
}

/**
 * CPU milliseconds of a process and its children, as a counter that only grows: children that
 * exited since the last reading (a PostgreSQL backend whose connection closed) keep what they
 * were last seen to use.
 */
export class ProcessTreeCpu {
  readonly #root: number;
  readonly #seen = new Map<number, number>();

  constructor(root: number) {
    this.#root = root;
  }

  /** CPU milliseconds used so far by the root and every child seen. */
  read(): number {
    for (const pid of [this.#root, ...childrenOf(this.#root)]) {
      const ms = processCpuMs(pid);
      if (ms > 0 || !this.#seen.has(pid)) this.#seen.set(pid, ms);
    }
    let total = 0;
    for (const ms of this.#seen.values()) total += ms;
    return total;
  }
}

/** Busy and total CPU milliseconds of the whole machine so far (`/proc/stat`'s `cpu` line). */
export function machineCpuMs(): { busy: number; total: number } {
  const line = readText("/proc/stat")?.split("\n")[0] ?? "";
  const ticks = line.split(/\s+/).slice(1).map(Number).filter(Number.isFinite);
  // user nice system idle iowait irq softirq steal ...: idle and iowait are not busy.
  const total = ticks.reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: (total - idle) * 1000 / TICKS_PER_S, total: total * 1000 / TICKS_PER_S };
}
