/**
 * SQL that changes a memory in place without a new version: its status (retire, merge,
 * confirm), its provenance trust, its metadata object, and deleting rows of its history.
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { MemoryStatus, ProtectionLevel, SourceType } from "./types.ts";

/** Sets status (and superseded_by) of a memory. */
export function updateStatus(
  db: DatabaseSync,
  id: number,
  change: { status: MemoryStatus; supersededBy: number | null; now: string },
): void {
  db.prepare("UPDATE memories SET status = ?, superseded_by = ?, updated_at = ? WHERE id = ?")
    .run(change.status, change.supersededBy, change.now, id);
}

/** Sets provenance trust of a memory. */
export function updateTrust(
  db: DatabaseSync,
  id: number,
  change: { sourceType: SourceType; protectionLevel: ProtectionLevel; now: string },
): void {
  db.prepare(
    "UPDATE memories SET source_type = ?, protection_level = ?, updated_at = ? WHERE id = ?",
  ).run(change.sourceType, change.protectionLevel, change.now, id);
}

/** Sets a memory's metadata object. */
export function updateMetadata(
  db: DatabaseSync,
  id: number,
  metadata: Record<string, unknown>,
): void {
  db.prepare("UPDATE memories SET metadata = ? WHERE id = ?").run(JSON.stringify(metadata), id);
}

/** Deletes history rows of a memory; returns the versions removed. */
export function deleteHistory(
  db: DatabaseSync,
  memoryId: number,
  versions: readonly number[],
): number[] {
  const removed: number[] = [];
  const remove = db.prepare("DELETE FROM memory_history WHERE memory_id = ? AND version = ?");
  for (const version of versions) {
    if (remove.run(memoryId, version).changes > 0) removed.push(version);
  }
  return removed;
}
