import assert from "node:assert/strict";
import { createStreamProgress } from "../../src/cli/stream_progress.ts";

Deno.test("progress shows count, rate, share and time left, redrawn at most twice a second", () => {
  let out = "";
  let clock = 0;
  const progress = createStreamProgress({
    isTty: true,
    label: "importing",
    write: (text) => out += text,
    now: () => clock,
  });
  clock = 60_000;
  progress.update({ done: 180_000, share: 0.2 });
  clock = 60_100;
  progress.update({ done: 181_000, share: 0.21 });
  clock = 120_000;
  progress.update({ done: 360_000, share: 0.4 });
  clock = 120_200;
  progress.update({ done: 361_000, share: 1 });
  progress.finish();
  const frames = out.split("\r").filter((frame) => frame !== "");
  // The state a redraw skipped last is drawn when the work ends.
  assert.equal(frames.length, 3, JSON.stringify(frames));
  assert.match(frames[2], /^importing 361000 memories · \d+\/s · 100% · 0s left\s*\n$/);
  assert.match(frames[0], /^importing 180000 memories · 3000\/s · 20% · 4m00s left/);
  assert.match(frames[1], /^importing 360000 memories · 3000\/s · 40% · 3m00s left\s*$/);
});

Deno.test("nothing is drawn when stderr is not a terminal", () => {
  let out = "";
  const progress = createStreamProgress({
    isTty: false,
    label: "exporting",
    write: (text) => out += text,
  });
  progress.update({ done: 10, share: 0.5 });
  progress.finish();
  assert.equal(out, "");
});
