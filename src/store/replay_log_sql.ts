/**
 * SQL of the backup replay log: which saved JSONL entries were replayed, and how, so a
 * replay run twice applies each entry once.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

type Row = Record<string, unknown>;

/** The outcome of an already replayed backup entry, if any. */
export function selectReplay(db: DatabaseSync, entryId: string): string | undefined {
  const row = db.prepare("SELECT outcome FROM backup_replay_log WHERE entry_id = ?").get(entryId) as
    | Row
    | undefined;
  return row ? String(row.outcome) : undefined;
}

/** Logs a replayed backup entry. */
export function insertReplay(
  db: DatabaseSync,
  entry: {
    entryId: string;
    at: string;
    outcome: "applied" | "rejected";
    memoryId: number | null;
    detail: Record<string, unknown>;
  },
): void {
  db.prepare(
    `INSERT INTO backup_replay_log (entry_id, applied_at, outcome, memory_id, detail)
     VALUES (?, ?, ?, ?, ?)`,
  ).run(entry.entryId, entry.at, entry.outcome, entry.memoryId, JSON.stringify(entry.detail));
}
