/**
 * What every mema tool shares: a verb (`action` / `task`) plus `data`, strict
 * per-verb validation, `help` with JSON Schemas, and one envelope per call.
 * @module
 */
import { z } from "zod";
import { MemaError } from "../errors/mod.ts";
import { closestName } from "../text/closest_name.ts";
import { type Envelope, errorEnvelope, successEnvelope } from "./envelope.ts";
import type { McpRuntime } from "./runtime.ts";
import { validateData } from "./validate.ts";

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
  /** The argument naming the verb. */
  verbKey: "action" | "task" | "view";
  verbs: Record<string, VerbSpec>;
  handlers: Record<string, VerbHandler>;
  notes: string[];
}

/** The help payload: every verb (or one) with its JSON Schema and an example. */
export function verbHelp(tool: VerbTool, topic?: string): Record<string, unknown> {
  const names = Object.keys(tool.verbs);
  if (topic !== undefined && !names.includes(topic)) {
    throw new MemaError("invalid_input", `no help topic "${topic}"`, {
      field: "topic",
      didYouMean: closestName(topic, names),
      hint: `topics: ${names.join(", ")}`,
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
  };
}

/** Runs one call of a verb tool and returns its envelope; never throws. */
export async function callVerbTool(
  tool: VerbTool,
  runtime: McpRuntime,
  args: Record<string, unknown> | undefined,
): Promise<Envelope> {
  const names = Object.keys(tool.verbs);
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
    return successEnvelope(result, runtime.capabilities(), [...warnings, ...extra]);
  } catch (error) {
    return errorEnvelope(error, runtime.capabilities());
  }
}
