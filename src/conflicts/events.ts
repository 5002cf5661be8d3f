/**
 * Conflict events (docs/SPEC.md §3/§8, issue 14): the members that disagree about one attribute
 * form one event with value groups, not a pile of pairwise conflicts. Values are grouped after unit
 * normalization ("3 days" and "72 hours" are one group, "5 days" another); a new fact that
 * contradicts a member of an open event joins that event instead of opening another.
 *
 * Which event a pair belongs to: the rule stage found the new row contradicting one row of an
 * existing member, so the pair is about that member's attribute. It joins the open event that
 * holds that very row (same memory, same version, same row text) with the same value, i.e. the
 * same attribute: a member row that states two facts ("retention 3 days, backups every 6
 * hours") can be in two events, one per value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { groupValues } from "./events.ts";
 *
 * const groups = groupValues([
 *   { memoryId: 1, value: "3 days" },
 *   { memoryId: 2, value: "5 days" },
 *   { memoryId: 3, value: "72 hours" },
 * ]);
 * assert.equal(groups.length, 2); // 3 days and 72 hours are one value
 * ```
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import type { ConflictMember, ConflictRecord, ConflictTables, ValueGroup } from "../store/mod.ts";
import { normalizeNumerals } from "../text/numerals.ts";
import { sameSpelling } from "./spelling.ts";
import { extractValues, sameValue, type SentenceValue } from "./values.ts";

/** A value read for grouping: one measured amount, or plain text. */
interface ReadValue {
  measured?: SentenceValue;
  text: string;
}

function plain(value: string): string {
  return value.normalize("NFKC").toLowerCase().replace(/[\s\p{P}]+/gu, " ").trim();
}

/**
 * Reads a value as written. It is measured when one value (a duration, size, amount of money,
 * percentage, date, version...) makes up the whole string; otherwise it compares as text
 * (case, spacing and punctuation aside).
 */
export function readValue(value: string): ReadValue {
  const text = plain(value);
  const source = normalizeNumerals(value.trim());
  const found = extractValues(source);
  if (found.length === 1) {
    const rest = plain(source.slice(0, found[0].start) + source.slice(found[0].end));
    if (rest === "") return { measured: found[0], text };
  }
  return { text };
}

/** True when two values as written state the same value. */
export function sameStatedValue(a: string, b: string): boolean {
  const left = readValue(a);
  const right = readValue(b);
  if (left.measured && right.measured) return sameValue(left.measured, right.measured);
  return (left.text === right.text && left.text !== "") || sameSpelling(left.text, right.text);
}

const UNIT: Record<string, string> = { duration: "s", bytes: "B", percent: "%" };

/** The comparable form of a measured value ("259200 s", "20 usd"), when it has one. */
export function normalizedValue(value: string): string | undefined {
  const read = readValue(value).measured;
  if (!read || read.amount === undefined) return undefined;
  const amount = Math.round(read.amount * 1000) / 1000;
  if (read.dimension.startsWith("money:")) return `${amount} ${read.dimension.slice(6)}`;
  const unit = UNIT[read.dimension];
  return unit ? `${amount} ${unit}` : undefined;
}

/** Adds one member's value to the groups (a copy), in the group of an equal value or a new one. */
export function addToGroups(
  groups: readonly ValueGroup[],
  memoryId: number,
  value: string,
): ValueGroup[] {
  const out = groups.map((g) => ({
    ...g,
    memory_ids: g.memory_ids.filter((id) => id !== memoryId),
  })).filter((g) => g.memory_ids.length > 0);
  const home = out.find((g) =>
    [g.value, ...(g.variants ?? [])].some((written) => sameStatedValue(written, value))
  );
  if (home) {
    home.memory_ids.push(memoryId);
    const variants = new Set([home.value, ...(home.variants ?? []), value]);
    home.variants = [...variants];
    return out;
  }
  const normalized = normalizedValue(value);
  out.push({
    value,
    memory_ids: [memoryId],
    variants: [value],
    ...(normalized ? { normalized } : {}),
  });
  return out;
}

/** Value groups of members' values as written. */
export function groupValues(values: readonly { memoryId: number; value: string }[]): ValueGroup[] {
  let groups: ValueGroup[] = [];
  for (const { memoryId, value } of values) groups = addToGroups(groups, memoryId, value);
  return groups;
}

/** One side of a suspect pair, as the event join needs it. */
export interface EventSide {
  member: ConflictMember;
  value: string;
}

/** The value a member states in an event: its own, else its value group's. */
function valueOf(group: ConflictRecord, memoryId: number): string | undefined {
  return group.members.find((m) => m.memory_id === memoryId)?.value ??
    group.valueGroups.find((g) => g.memory_ids.includes(memoryId))?.value;
}

/**
 * The unresolved event that already holds both sides' memories at the versions compared, by
 * whatever rows and key they got there. Two long documents checked from each side can meet
 * through different row pairs (the check of A finds B by one pair of lines, the check of B
 * finds A by another, so the pair keys differ): one pair of memories is one event, and the
 * second finding is recorded against it instead of opening a group beside it.
 */
async function eventHoldingBoth(
  tables: ConflictTables,
  sides: readonly [EventSide, EventSide],
  open: Map<number, { conflictId: number }[]>,
): Promise<number | undefined> {
  const [first, second] = sides.map((side) => side.member);
  const shared = (open.get(first.memory_id) ?? []).filter(({ conflictId }) =>
    (open.get(second.memory_id) ?? []).some((other) => other.conflictId === conflictId)
  );
  for (const { conflictId } of shared) {
    const event = await tables.get(conflictId);
    const holds = (side: ConflictMember) =>
      event?.members.some((m) => m.memory_id === side.memory_id && m.version === side.version);
    if (holds(first) && holds(second)) return conflictId;
  }
  return undefined;
}

/**
 * Joins a suspect pair to an open event that holds one of its sides' rows with the same value:
 * the other side becomes a member (value grouped). Returns the event id, or undefined when no
 * open event fits (the caller opens a new one). Inside the caller's write transaction. The
 * pair's key is recorded against the event, so the pair is never opened on its own later.
 */
export async function joinOpenEvent(
  ctx: ServiceContext,
  pair: { key: string; sides: [EventSide, EventSide] },
  now: string,
  tables: ConflictTables = ctx.store.conflicts,
): Promise<{ conflictId: number; joined?: EventSide } | undefined> {
  const open = await tables.openOf(pair.sides.map((side) => side.member.memory_id));
  const together = await eventHoldingBoth(tables, pair.sides, open);
  if (together !== undefined) {
    await tables.addKey(pair.key, together);
    return { conflictId: together };
  }
  for (const [index, side] of pair.sides.entries()) {
    const other = pair.sides[1 - index];
    for (const { conflictId, status } of open.get(side.member.memory_id) ?? []) {
      if (status !== "open") continue;
      const event = await tables.get(conflictId);
      if (!event) continue;
      const held = event.members.find((m) => m.memory_id === side.member.memory_id);
      if (held?.row_text !== side.member.row_text || held.version !== side.member.version) continue;
      const stated = valueOf(event, side.member.memory_id);
      if (stated === undefined || !sameStatedValue(stated, side.value)) continue;
      if (event.members.some((m) => m.memory_id === other.member.memory_id)) {
        await tables.addKey(pair.key, event.id);
        return { conflictId: event.id };
      }
      const joined = await tables.update(event.id, event.revision, {
        members: [...event.members, { ...other.member, value: other.value }],
        valueGroups: addToGroups(event.valueGroups, other.member.memory_id, other.value),
        now,
      });
      if (!joined) continue;
      await tables.addKey(pair.key, event.id);
      return { conflictId: event.id, joined: other };
    }
  }
  return undefined;
}

/** The notice that a fact joined an open event: the event now has one more member to judge. */
export async function noticeJoin(
  ctx: ServiceContext,
  conflictId: number,
  joined: EventSide,
  now: string,
  confident = false,
): Promise<void> {
  const id = joined.member.memory_id;
  await ctx.store.conflicts.insertNotice({
    kind: confident ? "conflict" : "possible_conflict",
    severity: confident ? "normal" : "info",
    conflictId,
    dedupeKey: `notice:join:${conflictId}:${id}:${joined.member.version}`,
    title: `Memory ${id} joins conflict ${conflictId}`,
    message: `"${joined.member.row_text}" (memory ${id}) states "${joined.value}" ` +
      `for the attribute conflict ${conflictId} is about.`,
    payload: { memory_ids: [id], values: { joined: joined.value } },
    createdAt: now,
  });
}

/**
 * The value as the row writes it: the rule stage reports values in lower case with single
 * spaces ("unleash"), but a correction must put the chosen value back as written ("Unleash").
 * Words may be separated by any spacing or punctuation in the row; the value is returned
 * unchanged when the row does not contain it.
 */
export function writtenIn(row: string, value: string): string {
  if (value === "" || row.includes(value)) return value;
  const words = value.split(/[\s\p{P}]+/u).filter((word) => word !== "");
  if (words.length === 0) return value;
  const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(escaped.join("[\\s\\p{P}]+"), "iu");
  return row.match(pattern)?.[0] ?? value;
}
