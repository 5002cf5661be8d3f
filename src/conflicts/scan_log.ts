/**
 * Where completed full scan rounds are logged: `scan_log.jsonl` beside the database.
 * @module
 */
import { readTextIfExists } from "../platform/files.ts";
import { dirName } from "../platform/paths.ts";

/** The scan log path for a database. */
export function scanLogPath(dbPath: string): string {
  return `${dirName(dbPath)}/scan_log.jsonl`;
}

/** The last completed full round's time, from the log (undefined when none). */
export function lastScanTime(dbPath: string): string | undefined {
  const text = readTextIfExists(scanLogPath(dbPath));
  const last = text?.trim().split("\n").pop();
  if (!last) return undefined;
  try {
    return JSON.parse(last).scan_time as string | undefined;
  } catch {
    return undefined;
  }
}
