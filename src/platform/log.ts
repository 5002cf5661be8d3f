/**
 * Diagnostics on stderr, prefixed "mema:". Never stdout: in stdio mode stdout carries only MCP
 * protocol frames.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logWarn } from "./log.ts";
 *
 * const lines: string[] = [];
 * const original = console.error;
 * console.error = (line: string) => lines.push(line);
 * try {
 *   logWarn("HOME is not set");
 * } finally {
 *   console.error = original;
 * }
 * assert.deepEqual(lines, ["mema: warning: HOME is not set"]);
 * ```
 * @module
 */

/**
 * Writes a diagnostic line to stderr. Never stdout: in stdio mode stdout carries
 * only MCP protocol frames.
 */
export function logWarn(message: string): void {
  console.error(`mema: warning: ${message}`);
}

/** Writes an informational line to stderr. */
export function logInfo(message: string): void {
  console.error(`mema: ${message}`);
}
