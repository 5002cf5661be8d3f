/**
 * As-of recall (issue 34): `find` asked about another time answers with the version of each
 * memory that held then. `as_of` picks the version whose validity window holds at that
 * instant (a superseded one included, ranked as current for the question); `known_at` picks
 * the version mema had recorded as current at that instant, from the version history.
 *
 * A version's times:
 * - validity: its own window; the current version of a superseded or retired memory with no
 *   end of its own ends when it left (its `updated_at`).
 * - recorded: version 1 from `created_at`; each later one from when its predecessor was
 *   replaced (the history entry's `changed_at`); a superseded or retired memory stopped being
 *   current when it left.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { versionAt } from "./as_of.ts";
 * import type { MemoryRecord } from "../store/mod.ts";
 *
 * const memory = {
 *   id: 1, subject: "port", content: "port 6543", contentSha: "b", tags: [], version: 2,
 *   status: "active", createdAt: "2024-01-01T00:00:00.000Z", updatedAt: "2024-05-01T00:00:00.000Z",
 *   validFrom: "2024-05-01T00:00:00.000Z", validTo: null,
 * } as unknown as MemoryRecord;
 * const history = [{
 *   memoryId: 1, version: 1, subject: "port", content: "port 5433", contentSha: "a", tags: [],
 *   status: "active" as const, changedAt: "2024-05-01T00:00:00.000Z", changedBy: "a",
 *   changedByClient: "c", reason: null, validFrom: null, validTo: "2024-05-01T00:00:00.000Z",
 * }];
 * assert.equal(versionAt(memory, history, { asOf: "2024-03-01T00:00:00.000Z" })?.content, "port 5433");
 * assert.equal(versionAt(memory, history, { asOf: "2024-06-01T00:00:00.000Z" })?.content, "port 6543");
 * ```
 * @module
 */
import { holdsAt } from "../memory/validity.ts";
import type { HistoryEntry, HistoryRepository, MemoryRecord } from "../store/mod.ts";
import { SUPERSEDED_PENALTY } from "./constants.ts";
import type { RankedMemory } from "./rank.ts";

/** The other time a `find` asks about (ISO 8601 instants). */
export interface VersionQuestion {
  /** The facts valid at this instant. */
  asOf?: string;
  /** What mema had recorded by this instant. */
  knownAt?: string;
}

/** One version with its times, in the terms of the module comment. */
interface TimedVersion {
  record: MemoryRecord;
  validFrom: string | null;
  validTo: string | null;
  recordedFrom: string;
  recordedTo: string | null;
}

function timedVersions(memory: MemoryRecord, history: readonly HistoryEntry[]): TimedVersion[] {
  const earlier = [...history].sort((a, b) => a.version - b.version)
    .filter((entry) => entry.version < memory.version);
  const left = memory.status === "superseded" || memory.status === "retired"
    ? memory.updatedAt
    : null;
  const out: TimedVersion[] = earlier.map((entry, index) => ({
    record: {
      ...memory,
      subject: entry.subject,
      content: entry.content,
      contentSha: entry.contentSha,
      tags: entry.tags,
      version: entry.version,
      validFrom: entry.validFrom,
      validTo: entry.validTo,
    },
    validFrom: entry.validFrom,
    validTo: entry.validTo,
    recordedFrom: index === 0 ? memory.createdAt : earlier[index - 1].changedAt,
    recordedTo: entry.changedAt,
  }));
  out.push({
    record: memory,
    validFrom: memory.validFrom,
    validTo: memory.validTo ?? left,
    recordedFrom: earlier.at(-1)?.changedAt ?? memory.createdAt,
    recordedTo: left,
  });
  return out;
}

/**
 * The version of `memory` that answers the question, or undefined when none does (it was not
 * recorded yet, or no version of it held then). Of several that held, the latest.
 */
export function versionAt(
  memory: MemoryRecord,
  history: readonly HistoryEntry[],
  question: VersionQuestion,
): MemoryRecord | undefined {
  let versions = timedVersions(memory, history);
  const knownAt = question.knownAt;
  if (knownAt !== undefined) {
    versions = versions.filter((v) =>
      v.recordedFrom <= knownAt && (v.recordedTo === null || knownAt < v.recordedTo)
    );
  }
  const asOf = question.asOf;
  if (asOf !== undefined) {
    versions = versions.filter((v) =>
      holdsAt({ validFrom: v.validFrom, validTo: v.validTo }, asOf)
    );
  }
  return versions.at(-1)?.record;
}

/**
 * Re-answers a ranking for another time: each memory shows the version that held (or was
 * recorded) then, memories with none drop out, and a superseded memory that held then loses
 * the penalty that sorts superseded memories last (it is current for this question). The order
 * is the caller's to restore: a ranking sorts by score again, a browsed page keeps its own.
 */
export async function answerAt(
  store: Pick<HistoryRepository, "historyOf">,
  ranked: readonly RankedMemory[],
  question: VersionQuestion,
): Promise<RankedMemory[]> {
  if (ranked.length === 0) return [];
  const history = await store.historyOf(ranked.map((item) => item.memory.id));
  const out: RankedMemory[] = [];
  for (const item of ranked) {
    const then = versionAt(item.memory, history.get(item.memory.id) ?? [], question);
    if (!then) continue;
    const lifted = item.memory.status === "superseded" ? SUPERSEDED_PENALTY : 0;
    out.push({
      ...item,
      memory: then,
      score: item.score + lifted,
      ...(then.version !== item.memory.version ? { currentVersion: item.memory.version } : {}),
    });
  }
  return out;
}
