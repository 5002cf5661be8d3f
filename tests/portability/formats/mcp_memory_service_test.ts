/** mcp-memory-service exports: its own export file, its API's list, and a bare array. */
import assert from "node:assert/strict";
import { mcpMemoryServiceUnits } from "../../../src/portability/formats/mcp_memory_service.ts";

const options = { path: "export.json", workspacePer: "project" as const };

Deno.test("an API list without created_at falls back to created_at_iso; agent_id may sit on top", () => {
  const read = mcpMemoryServiceUnits(
    JSON.stringify({
      memories: [{
        content: "Deploy with blue-green",
        content_hash: "abc",
        tags: "ops, deploy",
        created_at_iso: "2024-05-03T08:00:00Z",
        agent_id: "cursor",
      }],
      total: 1,
      page: 1,
    }),
    options,
  );
  const [item] = read.units[0].items;
  assert.equal(item.eventTime, "2024-05-03T08:00:00.000Z");
  assert.deepEqual(item.tags, ["ops", "deploy"]);
  assert.equal(item.origin?.agentId, "cursor");
  assert.deepEqual(item.metadata, {
    mcp_memory_service: { content_hash: "abc", created_at: "2024-05-03T08:00:00.000Z" },
  });
});

Deno.test("a bare array reads too; tags that are neither a list nor text are named", () => {
  const read = mcpMemoryServiceUnits(
    JSON.stringify([{ content: "One", tags: { a: 1 } }, { content: "Two" }]),
    options,
  );
  assert.deepEqual(read.skipped.map((entry) => entry.at), ["$[0].tags"]);
  assert.equal(read.units[0].items[0].content, "Two");
  assert.equal(read.units[0].items[0].sourceRef, undefined, "no hash: matched by content only");
});
