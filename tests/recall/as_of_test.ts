import assert from "node:assert/strict";
import { versionAt } from "../../src/recall/as_of.ts";
import type { HistoryEntry, MemoryRecord } from "../../src/store/mod.ts";
import { testMemory } from "../store/memory_rows.ts";

const T = (day: string) => `${day}T00:00:00.000Z`;

/** A memory at version 3 whose versions 1 and 2 were replaced on 1 April and 1 July 2024. */
function portMemory(overrides: Partial<MemoryRecord> = {}): {
  memory: MemoryRecord;
  history: HistoryEntry[];
} {
  const memory: MemoryRecord = {
    ...testMemory("port 7000", { createdAt: T("2024-01-10"), updatedAt: T("2024-07-01") }),
    id: 1,
    version: 3,
    supersededBy: null,
    validFrom: T("2024-07-01"),
    validTo: null,
    ...overrides,
  };
  const entry = (version: number, content: string, changedAt: string, window: [
    string | null,
    string | null,
  ]): HistoryEntry => ({
    memoryId: 1,
    version,
    subject: content,
    content,
    contentSha: content,
    tags: [],
    status: "active",
    changedAt,
    changedBy: "agent",
    changedByClient: "client",
    reason: null,
    validFrom: window[0],
    validTo: window[1],
  });
  return {
    memory,
    history: [
      entry(1, "port 5000", T("2024-04-01"), [null, T("2024-04-01")]),
      entry(2, "port 6000", T("2024-07-01"), [T("2024-04-01"), T("2024-07-01")]),
    ],
  };
}

Deno.test("as_of picks the version whose window holds then", () => {
  const { memory, history } = portMemory();
  const at = (day: string) => versionAt(memory, history, { asOf: T(day) })?.content;
  assert.equal(at("2024-02-01"), "port 5000");
  assert.equal(at("2024-04-01"), "port 6000", "a window opens at its first instant");
  assert.equal(at("2024-06-30"), "port 6000");
  assert.equal(at("2024-07-01"), "port 7000");
  assert.equal(at("2030-01-01"), "port 7000");
});

Deno.test("known_at picks the version recorded as current then; nothing before it existed", () => {
  const { memory, history } = portMemory();
  const at = (day: string) => versionAt(memory, history, { knownAt: T(day) })?.content;
  assert.equal(at("2024-01-01"), undefined);
  assert.equal(at("2024-01-10"), "port 5000");
  assert.equal(at("2024-05-01"), "port 6000");
  assert.equal(at("2024-08-01"), "port 7000");
});

Deno.test("a retired memory held until it left, unless its window says otherwise", () => {
  const { memory, history } = portMemory({
    status: "retired",
    updatedAt: T("2024-09-01"),
  });
  assert.equal(versionAt(memory, history, { asOf: T("2024-08-01") })?.content, "port 7000");
  assert.equal(versionAt(memory, history, { asOf: T("2024-10-01") }), undefined);
  assert.equal(versionAt(memory, history, { knownAt: T("2024-10-01") }), undefined);
  assert.equal(versionAt(memory, history, { knownAt: T("2024-08-15") })?.content, "port 7000");
});

Deno.test("both questions: the version valid at as_of among those recorded by known_at", () => {
  const { memory, history } = portMemory();
  // On 1 May mema knew version 2 only; as of 1 February that one did not hold yet.
  assert.equal(
    versionAt(memory, history, { knownAt: T("2024-05-01"), asOf: T("2024-02-01") }),
    undefined,
  );
  assert.equal(
    versionAt(memory, history, { knownAt: T("2024-05-01"), asOf: T("2024-05-01") })?.content,
    "port 6000",
  );
});
