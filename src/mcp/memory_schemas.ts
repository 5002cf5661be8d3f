/**
 * The `memory` tool's verbs: one strict zod schema, a one-line description and
 * an example per action. `help` publishes these as JSON Schema.
 * @module
 */
import { EXTRACT_TEXT_MAX } from "../extract/constants.ts";
import { z } from "zod";
import {
  BATCH_FIND_LIMIT_MAX,
  BATCH_FIND_QUERIES_MAX,
  BATCH_READ_MAX,
  BATCH_REMEMBER_MAX,
  FIND_LIMIT_MAX,
  FIND_OFFSET_MAX,
  PATCHES_MAX,
  QUERY_MAX_CHARS,
  TAGS_MAX_PER_CALL,
} from "../memory/limits.ts";
import { HIT_WINDOW_MAX } from "../recall/constants.ts";
import { ENTITY_NAME_MAX_CHARS, NAMED_ENTITIES_MAX } from "../entities/constants.ts";
import { MEMORY_STATUSES, PROTECTION_LEVELS, SOURCE_TYPES } from "../store/mod.ts";

const memoryId = z.number().int().positive().describe("a memory id from remember or find");
const tagList = z.array(z.string()).max(TAGS_MAX_PER_CALL);
const isoTime = z.string().max(64).describe("ISO 8601 date or date-time");
const span = z.object({
  start: z.number().int().min(0),
  end: z.number().int().min(0),
}).strict().describe(
  "UTF-16 offsets [start, end) into content; an offset inside a surrogate pair widens to the whole character",
);

/**
 * A JSON object kept as it came: `z.record` would copy it key by key, and assigning a key
 * named `__proto__` to the copy sets its prototype instead, so that key would vanish.
 */
const metadataObject = z.custom<Record<string, unknown>>(
  (value) => value !== null && typeof value === "object" && !Array.isArray(value),
  { message: "must be a JSON object" },
).meta({ type: "object", description: "any JSON object (≤ 64 KiB)" });

const recallFilters = {
  workspace: z.string().max(256).optional().describe(
    "scope to one workspace (plus the global default pool)",
  ),
  workspace_only: z.boolean().optional().describe("leave the default pool out of the scope"),
  tags_filter: z.array(z.string()).max(TAGS_MAX_PER_CALL).optional().describe(
    "every listed tag must be present",
  ),
  entity: z.string().min(1).max(ENTITY_NAME_MAX_CHARS).optional().describe(
    "only facts about this entity (name or alias)",
  ),
  after_time: isoTime.optional().describe("event time at or after this instant"),
  before_time: isoTime.optional().describe("event time before this instant"),
  source_type: z.union([z.enum(SOURCE_TYPES), z.array(z.enum(SOURCE_TYPES)).max(4)]).optional(),
  status: z.enum([...MEMORY_STATUSES.filter((s) => s !== "deleted"), "any"]).optional().describe(
    "default active",
  ),
  content_mode: z.enum(["preview", "hits", "full"]).optional().describe(
    "preview (default): outline and short content; hits: the matching passages (bounded; hits_more gives the read span of the rest); full: whole content",
  ),
  hit_window: z.number().int().min(0).max(HIT_WINDOW_MAX).optional().describe(
    "hits mode: neighbouring rows around each hit, default 0",
  ),
  include_size: z.boolean().optional().describe(
    "add the size block and every field (score, ingest_time, content_hash, defaults); " +
      "default: the config's include_size (false)",
  ),
  include_linked_open_items: z.boolean().optional().describe(
    "default true: add up to 5 todo memories sharing tags with the page",
  ),
};

/** Asking about another time (issue 34, src/recall/as_of.ts). */
const otherTime = {
  as_of: isoTime.optional().describe("answer with the facts valid at this time"),
  known_at: isoTime.optional().describe("answer with what was recorded by this time"),
};

/** Caller-named entities and relations (issue 35); extraction finds most without them. */
const namedGraph = {
  entities: z.array(
    z.union([z.string(), z.object({ name: z.string(), kind: z.string().optional() }).strict()]),
  ).max(NAMED_ENTITIES_MAX).optional().describe(
    "names this fact is about, beyond those read from its text",
  ),
  relations: z.array(
    z.object({ from: z.string(), type: z.string(), to: z.string() }).strict(),
  ).max(NAMED_ENTITIES_MAX).optional().describe(
    'e.g. {from:"Billing",type:"depends_on",to:"Postgres"}',
  ),
};

/** The fields of one fact to remember. */
const rememberFields = {
  content: z.string().describe("the fact, verbatim (≤ 2 MiB)"),
  subject: z.string().describe("a short title"),
  workspace: z.string().max(256).optional().describe(
    'project name, or "default" for global facts; required unless the server has a caller workspace',
  ),
  tags: tagList.optional(),
  source_type: z.enum(SOURCE_TYPES).optional().describe("default agent_generated"),
  source_ref: z.string().optional().describe("where it came from: path, URL, message id"),
  event_time: isoTime.optional().describe("when the fact became true"),
  valid_from: isoTime.optional().describe("fact holds from (default: read from content)"),
  valid_to: isoTime.optional().describe("fact holds until, exclusive"),
  confidence: z.number().min(0).max(1).optional(),
  protection_level: z.enum(PROTECTION_LEVELS).optional(),
  status: z.enum(["active", "pending"]).optional(),
  metadata: metadataObject.optional(),
  follows: z.number().int().positive().optional().describe(
    "memory_id this one continues in the same workspace (the turn a reply answers, the previous section)",
  ),
  authorized: z.boolean().optional().describe(
    "the user approved (needed for source_type user_confirmed)",
  ),
  ...namedGraph,
};

/** Schemas per action. */
export const MEMORY_ACTIONS = {
  remember: {
    description: "Store one fact verbatim with its provenance.",
    schema: z.object(rememberFields),
    example: {
      content: "Production deploys run on Tuesdays after 14:00 UTC.",
      subject: "deploy schedule",
      workspace: "billing-service",
      tags: ["deploy", "ops"],
    },
  },
  batch_remember: {
    description:
      `Store up to ${BATCH_REMEMBER_MAX} facts in one transaction (bulk import); one bad fact fails the call and stores nothing.`,
    schema: z.object({
      items: z.array(
        z.object({
          ...rememberFields,
          follows_item: z.number().int().min(0).optional().describe(
            "index of an earlier item of this call that this one continues",
          ),
        }),
      ).min(1).max(BATCH_REMEMBER_MAX),
    }),
    example: {
      items: [
        { content: "Alice: we ship on Friday.", subject: "standup", workspace: "team" },
        {
          content: "Bob: then QA needs the build on Thursday.",
          subject: "standup",
          workspace: "team",
          follows_item: 0,
        },
      ],
    },
  },
  find: {
    description: "Recall the memories that match a query (or browse newest first without one).",
    schema: z.object({
      query: z.string().max(QUERY_MAX_CHARS).optional(),
      ...recallFilters,
      time: z.string().max(64).optional().describe(
        'a time phrase to filter on ("last week", "上周"), or "off" to ignore one in the query',
      ),
      ...otherTime,
      limit: z.number().int().min(1).max(FIND_LIMIT_MAX).optional().describe(
        "page size, default 10",
      ),
      offset: z.number().int().min(0).max(FIND_OFFSET_MAX).optional(),
    }),
    example: { query: "when do we deploy", workspace: "billing-service", limit: 5 },
  },
  batch_find: {
    description:
      "Run up to 8 queries at once; results merged, each tagged with the queries that found it.",
    schema: z.object({
      queries: z.array(
        z.union([
          z.string().max(QUERY_MAX_CHARS),
          z.object({
            id: z.string().max(64).optional(),
            query: z.string().max(QUERY_MAX_CHARS),
            ...otherTime,
          }).strict().describe("as_of / known_at here override the batch's"),
        ]),
      ).min(1).max(BATCH_FIND_QUERIES_MAX),
      ...recallFilters,
      ...otherTime,
      limit_per_query: z.number().int().min(1).max(BATCH_FIND_LIMIT_MAX).optional().describe(
        "default 3",
      ),
      deduplicate: z.boolean().optional().describe("default true"),
    }),
    example: { queries: ["deploy day", { id: "db", query: "database version" }] },
  },
  read: {
    description: "Read one memory whole, or an exact span of it.",
    schema: z.object({
      memory_id: memoryId,
      span: span.optional(),
      include_history: z.boolean().optional().describe("add every earlier version"),
    }),
    example: { memory_id: 12, span: { start: 0, end: 120 } },
  },
  batch_read: {
    description: "Read several memories in one call (≤ 10 full, ≤ 50 as previews).",
    schema: z.object({
      memory_ids: z.array(memoryId).min(1).max(BATCH_READ_MAX),
      spans: z.record(z.string().regex(/^\d+$/), span).optional(),
      content_mode: z.enum(["preview", "full"]).optional().describe("default full"),
    }),
    example: { memory_ids: [12, 15], spans: { "15": { start: 0, end: 80 } } },
  },
  update: {
    description:
      "Change a memory: exactly one of new_content | old_text+new_text | patches | tags_only (or only new_subject/new_tags).",
    schema: z.object({
      memory_id: memoryId,
      new_content: z.string().optional(),
      old_text: z.string().optional(),
      new_text: z.string().optional(),
      patches: z.array(z.object({ old_text: z.string(), new_text: z.string() }).strict()).min(1)
        .max(
          PATCHES_MAX,
        ).optional(),
      tags_only: z.boolean().optional(),
      add_tags: tagList.optional(),
      remove_tags: tagList.optional(),
      new_subject: z.string().optional(),
      new_tags: tagList.optional(),
      reason: z.string().optional(),
      expected_version: z.number().int().positive().optional(),
      expected_content_hash: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be a hex SHA-256")
        .optional(),
      valid_from: isoTime.optional().describe("new version holds from"),
      valid_to: isoTime.optional().describe("new version holds until, exclusive"),
      previous_still_valid: z.boolean().optional().describe(
        "keep the replaced version's window open",
      ),
      authorized: z.boolean().optional().describe("the user approved this change"),
      ...namedGraph,
    }),
    example: {
      memory_id: 12,
      old_text: "Tuesdays",
      new_text: "Wednesdays",
      reason: "schedule moved",
      expected_version: 1,
    },
  },
  judge: {
    description:
      "Decide a conflict (CAS on expected_revision): the chosen value and a per-member plan (open → applying), or verdict not_a_conflict.",
    schema: z.object({
      conflict_id: z.number().int().positive(),
      expected_revision: z.number().int().positive(),
      verdict: z.enum(["conflict", "not_a_conflict"]).optional().describe("default conflict"),
      chosen_value: z.string().max(10_000).optional().describe(
        "default: the rule-based suggestion (higher trust, then newer)",
      ),
      decided_by: z.enum(["user", "agent"]).optional().describe("user needs authorized"),
      ref: z.string().max(2048).optional(),
      reason: z.string().max(2000).optional(),
      apply_plan: z.array(
        z.object({
          memory_id: z.number().int().positive(),
          action: z.enum([
            "update_current_claim",
            "append_superseded_context",
            "preserve_historical_record",
            "use_as_resolution",
          ]),
        }).strict(),
      ).max(50).optional().describe(
        "default: holders of the chosen value use_as_resolution; the others update_current_claim " +
          "(the chosen value put in place of theirs) where that is safe, else " +
          "append_superseded_context",
      ),
      preserve_history: z.boolean().optional().describe(
        "default plan keeps the other members unchanged as history (preserve_historical_record) " +
          "instead of correcting them; only when the user asks",
      ),
      apply: z.boolean().optional().describe(
        "run the plan and resolve in this call (needs authorized); default false: judge → " +
          "apply_conflict_action → resolve_conflict step by step",
      ),
      authorized: z.boolean().optional(),
    }),
    example: {
      conflict_id: 4,
      expected_revision: 1,
      chosen_value: "Monday",
      apply_plan: [{ memory_id: 12, action: "use_as_resolution" }, {
        memory_id: 9,
        action: "append_superseded_context",
      }],
    },
  },
  extract: {
    description:
      "Candidate facts from a conversation summary or notes: verbatim clauses with a suggested subject, tags and any date stated. Stores nothing; keep what you want with batch_remember.",
    schema: z.object({ text: z.string().max(EXTRACT_TEXT_MAX).describe("the summary or notes") }),
    example: { text: "Dana moved the launch to 8 April 2024; the beta stays open until May." },
  },
  status: {
    description: "Database, capabilities and counts.",
    schema: z.object({}),
    example: {},
  },
  help: {
    description: "Each action's fields as JSON Schema, with examples.",
    schema: z.object({ topic: z.string().max(64).optional() }),
    example: { topic: "update" },
  },
} as const;

/** The action names. */
export type MemoryAction = keyof typeof MEMORY_ACTIONS;
/** Every action name, in help order. */
export const MEMORY_ACTION_NAMES = Object.keys(MEMORY_ACTIONS) as MemoryAction[];
