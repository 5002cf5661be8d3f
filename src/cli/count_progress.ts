/**
 * Progress of long CLI work counted in items (`mema import`, `mema export`, `mema upgrade`):
 * a bar redrawn in place on a terminal, nothing while it runs otherwise (the command prints
 * one summary line at the end, which is what a log wants). Always stderr.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createCountProgress } from "./count_progress.ts";
 *
 * let out = "";
 * const progress = createCountProgress({ isTty: true, label: "importing", write: (t) => out += t });
 * progress.update(5, 10);
 * progress.finish();
 * assert.ok(out.endsWith("\rimporting [############------------] 5/10\n"));
 * ```
 * @module
 */
import process from "node:process";

/** A count-based progress display. */
export interface CountProgress {
  update(done: number, total: number): void;
  finish(): void;
}

// Ten redraws a second look live without flooding a slow SSH link (as for downloads).
const REDRAW_MS = 100;
const BAR_WIDTH = 24;

/** Creates the display; `isTty` false makes every call a no-op. */
export function createCountProgress(options: {
  isTty: boolean;
  label: string;
  write?: (text: string) => void;
  now?: () => number;
}): CountProgress {
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  const now = options.now ?? Date.now;
  let lastDraw = -Infinity;
  let drawn = false;
  return {
    update(done, total) {
      if (!options.isTty) return;
      const at = now();
      if (done < total && at - lastDraw < REDRAW_MS) return;
      lastDraw = at;
      const share = total === 0 ? 1 : Math.min(1, done / total);
      const filled = Math.round(share * BAR_WIDTH);
      write(
        `\r${options.label} [${"#".repeat(filled)}${
          "-".repeat(BAR_WIDTH - filled)
        }] ${done}/${total}`,
      );
      drawn = true;
    },
    finish() {
      if (drawn) write("\n");
      drawn = false;
    },
  };
}
