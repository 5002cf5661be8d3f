/**
 * A unified diff between two texts, line by line (Myers' O(ND) algorithm), in
 * the format `git diff` prints, so people and agents read it without help.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unifiedDiff } from "./unified_diff.ts";
 *
 * assert.equal(
 *   unifiedDiff("a\nb\n", "a\nc\n", { fromLabel: "v1", toLabel: "v2" }),
 *   "--- v1\n+++ v2\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
 * );
 * ```
 * @module
 */

type Edit = { kind: " " | "-" | "+"; line: string };

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The shortest edit script from `a` to `b`. */
function diffLines(a: string[], b: string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  let v: Int32Array = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
        ? v[offset + k + 1]
        : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) x++, y++;
      v[offset + k] = x;
      if (x >= n && y >= m) break outer;
    }
  }
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    v = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]);
    const previousK = down ? k + 1 : k - 1;
    const previousX = v[offset + previousK];
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) edits.push({ kind: " ", line: a[--x] }), y--;
    if (d > 0) {
      if (down) edits.push({ kind: "+", line: b[--y] });
      else edits.push({ kind: "-", line: a[--x] });
    }
  }
  return edits.reverse();
}

/** Options for {@linkcode unifiedDiff}. */
export interface DiffOptions {
  fromLabel: string;
  toLabel: string;
  /** Unchanged lines shown around each change (default 3). */
  context?: number;
}

/** The unified diff, or "" when the texts are equal. */
export function unifiedDiff(from: string, to: string, options: DiffOptions): string {
  if (from === to) return "";
  const context = options.context ?? 3;
  const edits = diffLines(splitLines(from), splitLines(to));
  const out = [`--- ${options.fromLabel}`, `+++ ${options.toLabel}`];
  let index = 0;
  let oldLine = 1;
  let newLine = 1;
  while (index < edits.length) {
    while (index < edits.length && edits[index].kind === " ") index++, oldLine++, newLine++;
    if (index >= edits.length) break;
    let start = index;
    let back = 0;
    while (start > 0 && back < context && edits[start - 1].kind === " ") start--, back++;
    // Extend over changes until more than 2×context unchanged lines separate them.
    let end = index;
    let quiet = 0;
    while (end < edits.length && !(edits[end].kind === " " && quiet === 2 * context)) {
      quiet = edits[end].kind === " " ? quiet + 1 : 0;
      end++;
    }
    end -= Math.max(0, quiet - context);
    const hunk = edits.slice(start, end);
    const oldStart = oldLine - back;
    const newStart = newLine - back;
    const oldCount = hunk.filter((e) => e.kind !== "+").length;
    const newCount = hunk.filter((e) => e.kind !== "-").length;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const edit of hunk) out.push(`${edit.kind}${edit.line}`);
    for (let i = index; i < end; i++) {
      if (edits[i].kind !== "+") oldLine++;
      if (edits[i].kind !== "-") newLine++;
    }
    index = end;
  }
  return `${out.join("\n")}\n`;
}
