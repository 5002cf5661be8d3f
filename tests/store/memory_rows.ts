/**
 * The memory row the store contract tests insert: one fixed set of defaults, so each test names
 * only what it is about.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { testMemory } from "./memory_rows.ts";
 *
 * const row = testMemory("The staging port is 5433.", { workspace: "team" });
 * assert.equal(row.subject, "The staging port is 5433.");
 * assert.equal(row.workspace, "team");
 * ```
 *
 * @module
 */
import type { NewMemory } from "../../src/store/mod.ts";

/** The time every contract-test row is stored at. */
export const STORED_AT = "2026-03-01T00:00:00.000Z";

/** An active memory of `content` (its own subject, workspace "w"), with `overrides` on top. */
export function testMemory(content: string, overrides: Partial<NewMemory> = {}): NewMemory {
  return {
    subject: content,
    content,
    contentSha: content,
    tags: [],
    workspace: "w",
    workspaceCanonical: "w",
    sourceType: "agent_generated",
    sourceRef: null,
    eventTime: null,
    ingestTime: STORED_AT,
    validFrom: null,
    validTo: null,
    confidence: 0.5,
    protectionLevel: "normal",
    status: "active",
    agentId: "agent",
    client: "client",
    metadata: {},
    follows: null,
    createdAt: STORED_AT,
    updatedAt: STORED_AT,
    ...overrides,
  };
}
