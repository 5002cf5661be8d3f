/**
 * mem0's memories as its own API returns them: `Memory.get_all()` / `MemoryClient.get_all()`
 * give `{"results": [...]}`, each memory with `id`, `memory` (the fact), `hash`, `metadata`,
 * `created_at`, `updated_at`, and the scope it was stored under: `user_id`, `agent_id`,
 * `run_id` (plus `actor_id`, `role`, and on the platform `app_id` and `categories`). A saved
 * array of them, or `{"memories": [...]}`, reads the same.
 *
 * Mapping: the fact is the content and (first line) the subject; `created_at` the event time;
 * `categories` the tags; `agent_id` the author (client `mem0`); `user_id` the workspace unless
 * `--workspace` names one (no `user_id`: the `default` pool); `source_ref` is `mem0:<id>`.
 * Every id, the hash, `updated_at` and `run_id` stay in `metadata.mem0`, the memory's own
 * metadata beside it. Trust: `agent_generated` (mem0's model wrote the facts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mem0Units } from "./mem0.ts";
 *
 * const read = mem0Units(JSON.stringify({ results: [{
 *   id: "0b7c", memory: "Is vegetarian", user_id: "alice", created_at: "2025-01-02T03:04:05Z",
 * }] }), { path: "mem0.json", workspacePer: "project" });
 * const [item] = read.units[0].items;
 * assert.equal(item.workspace, "alice");
 * assert.equal(item.sourceRef, "mem0:0b7c");
 * ```
 * @module
 */
import type { ImportUnit } from "../import_types.ts";
import { factSubject } from "./fact_subject.ts";
import { walkRecords } from "./record_walk.ts";
import { fieldsOf } from "./records.ts";
import type { FormatOptions, FormatRead } from "./types.ts";

/** The scope and bookkeeping fields kept in `metadata.mem0`, as mem0 names them. */
const KEPT = ["id", "hash", "user_id", "agent_id", "run_id", "app_id", "actor_id", "role"];

function mem0Unit(record: unknown, at: string, options: FormatOptions): ImportUnit {
  const fields = fieldsOf(record, at, "a memory");
  const memory = fields.requiredText("memory");
  const kept: Record<string, string> = {};
  for (const key of KEPT) {
    const value = fields.text(key);
    if (value !== undefined && value !== "") kept[key] = value;
  }
  const createdAt = fields.time("created_at");
  const updatedAt = fields.time("updated_at");
  const own = fields.map("metadata");
  return {
    path: options.path,
    line: 1,
    items: [{
      subject: factSubject(memory),
      content: memory,
      workspace: options.workspace ?? kept.user_id,
      tags: fields.tags("categories"),
      sourceType: options.sourceType ?? "agent_generated",
      sourceRef: kept.id ? `mem0:${kept.id}` : kept.hash ? `mem0:hash:${kept.hash}` : undefined,
      eventTime: createdAt,
      metadata: {
        ...own,
        mem0: {
          ...kept,
          ...(createdAt ? { created_at: createdAt } : {}),
          ...(updatedAt ? { updated_at: updatedAt } : {}),
        },
      },
      origin: { agentId: kept.agent_id, client: "mem0" },
      line: 1,
      at,
    }],
  };
}

/** Reads a mem0 export; see the module documentation. */
export function mem0Units(text: string, options: FormatOptions): FormatRead {
  return walkRecords(text, { path: options.path, keys: ["results", "memories"] }, (record, at) => ({
    unit: mem0Unit(record, at, options),
  }));
}
