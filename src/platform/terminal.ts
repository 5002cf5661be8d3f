/**
 * The terminal a person may be sitting at: whether stdin and stderr are one, and a yes/no
 * question asked on it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stderrIsTerminal, stdinIsTerminal } from "./terminal.ts";
 *
 * // Under a test runner or in CI neither needs to be a terminal; both answer a boolean.
 * assert.equal(typeof stdinIsTerminal(), "boolean");
 * assert.equal(typeof stderrIsTerminal(), "boolean");
 * ```
 * @module
 */

/** True when stderr is a terminal (progress bars redraw there; logs get plain lines). */
export function stderrIsTerminal(): boolean {
  return Deno.stderr.isTerminal();
}

/** True when stdin is a terminal (a person can answer a question). */
export function stdinIsTerminal(): boolean {
  return Deno.stdin.isTerminal();
}

/** Asks a yes/no question on the terminal; anything but y/yes is no. */
export function confirmOnTerminal(question: string): boolean {
  const answer = prompt(`${question} [y/N]`);
  return answer !== null && /^y(es)?$/i.test(answer.trim());
}
