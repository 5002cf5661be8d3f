/**
 * Download progress for humans (docs/SPEC.md §11): a bar redrawn in place with `\r` on a
 * terminal, plain lines otherwise. Always stderr: in stdio mode stdout belongs
 * to MCP frames, and a user piping `mema setup` output wants only results there.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createProgressReporter } from "./progress.ts";
 *
 * let out = "";
 * const progress = createProgressReporter({ isTty: false, write: (text) => out += text });
 * progress.update({ file: "tokenizer.json", received: 512, total: 1024 });
 * progress.finish();
 * // Not a terminal: plain lines, no bar redrawn in place.
 * assert.equal(out, "mema: downloading tokenizer.json: 50% (512 B of 1.0 KiB)\n");
 * ```
 * @module
 */
import process from "node:process";

/** How far one file's download has come. */
export interface DownloadProgress {
  /** The file's path inside the model directory. */
  file: string;
  /** Bytes on disk so far, including bytes kept from an earlier, resumed run. */
  received: number;
  /** Expected size in bytes, or null when neither the manifest nor the server says. */
  total: number | null;
}

/** Options for {@link createProgressReporter}. */
export interface ProgressReporterOptions {
  /** Draw a redrawn bar (true) or print plain lines (false). */
  isTty: boolean;
  /** Where text goes; defaults to stderr. */
  write?: (text: string) => void;
  /** Clock in milliseconds; injectable so tests need not sleep. */
  now?: () => number;
  /** Bar width in characters. */
  barWidth?: number;
}

/** A stateful progress display for a sequence of file downloads. */
export interface ProgressReporter {
  /** Records new progress; redraws only when it is worth it. */
  update(progress: DownloadProgress): void;
  /** Ends the current line so later output starts clean. */
  finish(): void;
}

// A terminal redraw ten times a second looks live without flooding a slow SSH link.
const TTY_REDRAW_MS = 100;
// Plain lines (CI logs, pipes) every 10%: a 340 MB download leaves ~10 lines, not thousands.
const PLAIN_STEP_PERCENT = 10;
// Without a known total, a plain line every 10 MiB still shows the download is alive.
const PLAIN_STEP_BYTES_UNKNOWN = 10 * 1024 * 1024;
const DEFAULT_BAR_WIDTH = 24;

/**
 * `1536` → `1.5 KiB`; binary units, matching what `ls -lh` prints.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatBytes } from "./progress.ts";
 *
 * assert.equal(formatBytes(118308185), "112.8 MiB");
 * ```
 */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

function percentOf(progress: DownloadProgress): number | undefined {
  if (progress.total === null || progress.total === 0) return undefined;
  return Math.min(100, Math.floor((progress.received / progress.total) * 100));
}

function describeAmount(progress: DownloadProgress): string {
  return progress.total === null
    ? formatBytes(progress.received)
    : `${formatBytes(progress.received)} of ${formatBytes(progress.total)}`;
}

function renderBar(progress: DownloadProgress, width: number): string {
  const percent = percentOf(progress);
  if (percent === undefined) return `${progress.file} ${describeAmount(progress)}`;
  const filled = Math.round((percent / 100) * width);
  const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
  return `${progress.file} [${bar}] ${String(percent).padStart(3)}% ${describeAmount(progress)}`;
}

function writeToStderr(text: string): void {
  process.stderr.write(text);
}

/**
 * A progress display for `mema setup --install`. Pass `isTty` from the caller
 * (`Deno.stderr.isTerminal()`), so the choice stays testable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createProgressReporter } from "./progress.ts";
 *
 * let out = "";
 * const progress = createProgressReporter({ isTty: true, write: (text) => out += text });
 * progress.update({ file: "model.onnx", received: 50, total: 100 });
 * progress.finish();
 * assert.ok(out.endsWith("\rmodel.onnx [############------------]  50% 50 B of 100 B\n"));
 * ```
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const write = options.write ?? writeToStderr;
  const now = options.now ?? Date.now;
  const width = options.barWidth ?? DEFAULT_BAR_WIDTH;
  let currentFile: string | undefined;
  let lastDrawAt = -Infinity;
  let lastLineLength = 0;
  let lastPlainMark = -1;
  let lineOpen = false;

  function drawTty(progress: DownloadProgress, force: boolean): void {
    const at = now();
    if (!force && at - lastDrawAt < TTY_REDRAW_MS) return;
    lastDrawAt = at;
    const line = renderBar(progress, width);
    // Pad over the previous line's tail: `\r` moves the cursor but erases nothing.
    const padding = " ".repeat(Math.max(0, lastLineLength - line.length));
    write(`\r${line}${padding}`);
    lastLineLength = line.length;
    lineOpen = true;
  }

  function drawPlain(progress: DownloadProgress, isNewFile: boolean): void {
    const percent = percentOf(progress);
    const mark = percent === undefined
      ? Math.floor(progress.received / PLAIN_STEP_BYTES_UNKNOWN)
      : Math.floor(percent / PLAIN_STEP_PERCENT);
    if (!isNewFile && mark === lastPlainMark) return;
    lastPlainMark = mark;
    const share = percent === undefined ? "" : ` ${percent}%`;
    write(`mema: downloading ${progress.file}:${share} (${describeAmount(progress)})\n`);
  }

  function endLine(): void {
    if (lineOpen) write("\n");
    lineOpen = false;
    lastLineLength = 0;
  }

  return {
    update(progress: DownloadProgress): void {
      const isNewFile = progress.file !== currentFile;
      if (isNewFile && options.isTty) endLine();
      currentFile = progress.file;
      const complete = progress.total !== null && progress.received >= progress.total;
      if (options.isTty) drawTty(progress, isNewFile || complete);
      else drawPlain(progress, isNewFile);
    },
    finish(): void {
      if (options.isTty) endLine();
      currentFile = undefined;
      lastPlainMark = -1;
    },
  };
}
