/**
 * What every mema tool shares: a verb (`action` / `task`) plus `data`, strict
 * per-verb validation, `help` with JSON Schemas, and one envelope per call.
 * @module
 */
import { noteRequest } from "../jobs/activity.ts";
import { z } from "zod";
import { MemaError } from "../errors/mod.ts";
import { takeNotices } from "../conflicts/notices.ts";
import { AuthorizationRequired } from "../core/authorization.ts";
import { NewWorkspacePending } from "../workspaces/registry.ts";
import { closestName } from "../text/closest_name.ts";
import { type Envelope, errorEnvelope, successEnvelope } from "./envelope.ts";
import { envelopeState, type McpRuntime } from "./runtime.ts";
import { validateData } from "./validate.ts";

/** Set to true on a handler's result when the write went to the JSONL backup. */
export const BACKUP_MODE = "__jsonl_backup";
/** Notices a handler attaches to its own response (not stored, delivered once, now). */
export const RESPONSE_NOTICES = "__notices";

/** One verb: what it does, its schema and an example. */
export interface VerbSpec {
  description: string;
  schema: z.ZodObject;
  example: Record<string, unknown>;
}

/** Runs one validated verb. A `warnings` array in the result joins the envelope's warnings. */
export type VerbHandler<D = unknown> = (
  runtime: McpRuntime,
  data: D,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A tool made of verbs. */
export interface VerbTool {
  name: string;
  title: string;
  /** What the client shows the model: the verbs and their key fields. */
  description: string;
  readOnly?: boolean;
  /** The argument naming the verb. */
  verbKey: "action" | "task" | "view";
  verbs: Record<string, VerbSpec>;
  handlers: Record<string, VerbHandler>;
  notes: string[];
  /** Help topics besides the verbs (name → text). */
  topics?: Record<string, string>;
}

/** The help payload: every verb (or one) with its JSON Schema and an example. */
export function verbHelp(tool: VerbTool, topic?: string): Record<string, unknown> {
  const names = Object.keys(tool.verbs);
  const topics = tool.topics ?? {};
  if (topic !== undefined && topic in topics) {
    return { tool: tool.name, topic, text: topics[topic] };
  }
  if (topic !== undefined && !names.includes(topic)) {
    const all = [...names, ...Object.keys(topics)];
    throw new MemaError("invalid_input", `no help topic "${topic}"`, {
      field: "topic",
      didYouMean: closestName(topic, all),
      hint: `topics: ${all.join(", ")}`,
    });
  }
  const verbs: Record<string, unknown> = {};
  for (const name of topic === undefined ? names : [topic]) {
    const spec = tool.verbs[name];
    verbs[name] = {
      description: spec.description,
      schema: z.toJSONSchema(spec.schema, { unrepresentable: "any" }),
      example: { [tool.verbKey]: name, data: spec.example },
    };
  }
  return {
    tool: tool.name,
    call_shape: `{"${tool.verbKey}": "<name>", "data": {...}}`,
    [tool.verbKey === "action" ? "actions" : `${tool.verbKey}s`]: verbs,
    notes: tool.notes,
    topics: Object.keys(topics),
  };
}

/** Runs one call of a verb tool and returns its envelope; never throws. */
export async function callVerbTool(
  tool: VerbTool,
  runtime: McpRuntime,
  args: Record<string, unknown> | undefined,
): Promise<Envelope> {
  const names = Object.keys(tool.verbs);
  noteRequest();
  try {
    const verb = args?.[tool.verbKey];
    if (typeof verb !== "string" || verb === "") {
      throw new MemaError("invalid_input", `${tool.verbKey} is required`, {
        field: tool.verbKey,
        hint: `one of: ${names.join(", ")}`,
      });
    }
    if (!names.includes(verb)) {
      throw new MemaError("unknown_action", `${tool.name} has no ${tool.verbKey} "${verb}"`, {
        field: tool.verbKey,
        didYouMean: closestName(verb, names),
        hint: `one of: ${names.join(", ")}`,
      });
    }
    const { value, warnings } = validateData(tool.verbs[verb].schema, args?.data, { verb });
    const result = await tool.handlers[verb](runtime, value);
    const extra = Array.isArray(result.warnings) ? result.warnings as string[] : [];
    delete result.warnings;
    // `status` reports every warning; other answers tell a standing one once per connection.
    const state = await envelopeState(runtime, {
      all: tool.name === "memory" && verb === "status",
    });
    // A write saved to the JSONL backup reports that mode instead of the recall capability.
    if (result[BACKUP_MODE] === true) {
      delete result[BACKUP_MODE];
      return successEnvelope(result, { ...state, mode: "jsonl_backup", degraded: true }, [
        ...warnings,
        ...extra,
      ]);
    }
    const own = Array.isArray(result[RESPONSE_NOTICES])
      ? result[RESPONSE_NOTICES] as unknown[]
      : [];
    delete result[RESPONSE_NOTICES];
    const envelope = successEnvelope(result, state, [...warnings, ...extra]);
    // The handler's own notices (a write's verdict, a new workspace), then at most one summary
    // of notices that arrived since the caller was last told: never a backlog's bodies.
    const notices = [...own, ...await takeNotices(runtime.ctx)];
    if (notices.length > 0) envelope.notices = notices;
    return envelope;
  } catch (error) {
    if (error instanceof NewWorkspacePending) {
      return successEnvelope({
        stored: false,
        applied: false,
        action_required: "confirm_new_workspace",
        workspace: error.workspace,
        impact:
          `Workspace "${error.workspace}" does not exist yet; under strict isolation a new workspace waits for the user's confirmation and nothing was stored. Ask the user, then call memory_govern confirm_pending_workspace with authorized: true and repeat this call.`,
        suggested_call: {
          tool: "memory_govern",
          action: "confirm_pending_workspace",
          data: { workspace: error.workspace, reason: "<why>", authorized: true },
        },
      }, await runtime.capabilities());
    }
    if (error instanceof AuthorizationRequired) {
      return successEnvelope({
        applied: false,
        action_required: "ask_user_for_authorization",
        impact: error.request.impact,
        memory_ids: error.request.memoryIds ?? [],
        retry: {
          [tool.verbKey]: args?.[tool.verbKey],
          data: { ...(args?.data as object), authorized: true },
        },
      }, await envelopeState(runtime));
    }
    return errorEnvelope(error, await envelopeState(runtime));
  }
}
