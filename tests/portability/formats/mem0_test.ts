/** mem0 exports: the shapes its API returns, and records that are not memories. */
import assert from "node:assert/strict";
import { mem0Units } from "../../../src/portability/formats/mem0.ts";

const options = { path: "mem0.json", workspacePer: "project" as const };

Deno.test("a bare array (the platform's v1 answer) reads like get_all's results", () => {
  const read = mem0Units(
    JSON.stringify([{ id: "a", memory: "Likes tea", owner: "bob", immutable: false }]),
    options,
  );
  assert.equal(read.units[0].items[0].content, "Likes tea");
  assert.equal(read.units[0].items[0].workspace, undefined, "no user_id: the default pool");
});

Deno.test("a memory without an id is still found again by its hash", () => {
  const read = mem0Units(
    JSON.stringify({ results: [{ memory: "Likes tea", hash: "h1" }] }),
    options,
  );
  assert.equal(read.units[0].items[0].sourceRef, "mem0:hash:h1");
});

Deno.test("every bad record is named; the good ones around it are read", () => {
  const read = mem0Units(
    JSON.stringify({
      results: [
        "text",
        { id: "1", memory: "Good" },
        { id: "2", memory: ["list"] },
        { id: "3", memory: "Bad time", created_at: "soon" },
        { id: "4", memory: "Bad metadata", metadata: [1] },
        { id: "5", memory: "Good too", user_id: "u" },
      ],
    }),
    options,
  );
  assert.deepEqual(read.skipped.map((entry) => entry.at), [
    "$.results[0]",
    "$.results[2].memory",
    "$.results[3].created_at",
    "$.results[4].metadata",
  ]);
  assert.deepEqual(read.units.map((unit) => unit.items[0].content), ["Good", "Good too"]);
});

Deno.test("a file that is not JSON is one skipped source", () => {
  const read = mem0Units("memories:\n- tea", options);
  assert.equal(read.units.length, 0);
  assert.equal(read.skipped.length, 1);
  assert.match(read.skipped[0].reason, /^not JSON/);
});
