/**
 * Conflict tables for one unit of work that records many findings (a planned check's run): each
 * event is read once, and the members that join it are written once when the unit ends, not one
 * rewrite of the whole event per member. An import's checks can join one event hundreds of times
 * (a value repeated across many memories); each join rewrote its member list, so recording grew
 * with the event (issue 38).
 *
 * Inside the unit, reads see the joins already made: `get` answers the event with its new
 * members, and `openOf` lists the events a member joined. Only joins (members and value groups)
 * wait; every other change and every other table goes to the store at once. The unit holds the
 * conflict tables' claim (`CONFLICT_TABLES_KEY`), so no other unit changes an event meanwhile;
 * should one have, `flush` throws and the unit rolls back.
 *
 * @module
 */
import type { ConflictChange, ConflictRecord, ConflictTables } from "../store/mod.ts";

/** Conflict tables whose joins are written at the end of the unit ({@link flush}). */
export interface EventWriteBack {
  tables: ConflictTables;
  /** Writes every event joined meanwhile, once each. */
  flush(): Promise<void>;
}

const JOIN_FIELDS = new Set(["members", "valueGroups", "now"]);

/** Conflict tables over `tables` for one unit of work (see the module documentation). */
export function writeBackEvents(tables: ConflictTables): EventWriteBack {
  const read = new Map<number, ConflictRecord | undefined>();
  /** Events joined in the unit: the revision stored and the change that brings them up to date. */
  const pending = new Map<number, { stored: number; change: ConflictChange }>();
  /** Events a memory joined in the unit, by memory id. */
  const joinedBy = new Map<number, Set<number>>();
  const get = async (id: number) => {
    if (!read.has(id)) read.set(id, await tables.get(id));
    return read.get(id);
  };
  const flushOne = async (id: number) => {
    const write = pending.get(id);
    if (!write) return;
    pending.delete(id);
    if (!(await tables.update(id, write.stored, write.change))) {
      throw new Error(`conflict ${id} changed while its joins were being recorded`);
    }
    read.delete(id);
  };
  return {
    tables: {
      ...tables,
      get,
      async update(id, expectedRevision, change) {
        if (Object.keys(change).some((field) => !JOIN_FIELDS.has(field))) {
          // Any other change is written now, after the joins it follows (which the store
          // counts as one revision).
          const write = pending.get(id);
          if (write) {
            if (read.get(id)?.revision !== expectedRevision) return false;
            await flushOne(id);
            expectedRevision = write.stored + 1;
          }
          read.delete(id);
          return await tables.update(id, expectedRevision, change);
        }
        const event = await get(id);
        if (!event || event.revision !== expectedRevision) return false;
        const members = change.members ?? event.members;
        const valueGroups = change.valueGroups ?? event.valueGroups;
        const stored = pending.get(id)?.stored ?? event.revision;
        pending.set(id, { stored, change: { members, valueGroups, now: change.now } });
        read.set(id, {
          ...event,
          members,
          valueGroups,
          revision: event.revision + 1,
          updatedAt: change.now,
        });
        for (const member of members) {
          if (!event.members.some((held) => held.memory_id === member.memory_id)) {
            const joined = joinedBy.get(member.memory_id) ?? new Set();
            joinedBy.set(member.memory_id, joined.add(id));
          }
        }
        return true;
      },
      async openOf(memoryIds) {
        const found = await tables.openOf(memoryIds);
        for (const memoryId of memoryIds) {
          for (const conflictId of joinedBy.get(memoryId) ?? []) {
            const listed = found.get(memoryId) ?? [];
            if (listed.some((entry) => entry.conflictId === conflictId)) continue;
            const event = read.get(conflictId);
            if (!event) continue;
            listed.push({ conflictId, status: event.status, revision: event.revision });
            found.set(memoryId, listed);
          }
        }
        return found;
      },
    },
    async flush() {
      for (const id of [...pending.keys()]) await flushOne(id);
    },
  };
}
