/**
 * Progress of a long import or export counted in memories: how many so far, how fast, and
 * (from the share done: bytes read of the bytes to read, memories of the total) how long the
 * rest takes. Redrawn in place on a terminal; nothing otherwise (a log gets the summary
 * line). Always stderr.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createStreamProgress } from "./stream_progress.ts";
 *
 * let out = "";
 * let clock = 0;
 * const progress = createStreamProgress({
 *   isTty: true,
 *   label: "importing",
 *   write: (text) => out += text,
 *   now: () => clock,
 * });
 * clock = 2000;
 * progress.update({ done: 500, share: 0.25 });
 * progress.finish();
 * assert.match(out, /importing 500 memories · 250\/s · 25% · 6s left/);
 * ```
 * @module
 */
import process from "node:process";

/** What has been done so far. */
export interface StreamProgressState {
  /** Memories handled. */
  done: number;
  /** The share of the work done, 0 to 1. */
  share: number;
}

/** A stream progress display. */
export interface StreamProgress {
  update(state: StreamProgressState): void;
  finish(): void;
}

// Two redraws a second: enough to look alive, little enough for a slow SSH link.
const REDRAW_MS = 500;

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor(whole / 60) % 60).padStart(2, "0")}m`;
}

/** Creates the display; `isTty` false makes every call a no-op. */
export function createStreamProgress(options: {
  isTty: boolean;
  label: string;
  write?: (text: string) => void;
  now?: () => number;
}): StreamProgress {
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  const now = options.now ?? Date.now;
  const started = now();
  let lastDraw = -Infinity;
  let width = 0;
  // The newest state a redraw skipped: the last frame shows it, not an older one.
  let skipped: StreamProgressState | undefined;
  const draw = ({ done, share: doneShare }: StreamProgressState, at: number) => {
    const seconds = Math.max((at - started) / 1000, 1e-3);
    const share = Math.min(1, Math.max(0, doneShare));
    const left = share > 0 ? seconds * (1 - share) / share : Infinity;
    const text = `${options.label} ${done} memories · ${Math.round(done / seconds)}/s · ${
      Math.floor(share * 100)
    }% · ${duration(left)} left`;
    // Spaces wipe what a longer earlier line left behind.
    write(`\r${text.padEnd(width)}`);
    width = text.length;
    lastDraw = at;
    skipped = undefined;
  };
  return {
    update(state) {
      if (!options.isTty) return;
      const at = now();
      if (at - lastDraw < REDRAW_MS) {
        skipped = { ...state };
        return;
      }
      draw(state, at);
    },
    finish() {
      if (skipped && width > 0) draw(skipped, now());
      if (width > 0) write("\n");
      width = 0;
      skipped = undefined;
    },
  };
}
