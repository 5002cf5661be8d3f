/**
 * Strict validation of a verb's `data`: unknown fields are dropped with a
 * warning, near-misses of real field names are errors with `did_you_mean`,
 * text that could not be stored verbatim (NUL, lone surrogates) and values
 * nested too deep are refused wherever they sit, and every schema failure
 * becomes one clear `invalid_input` error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { validateData } from "./validate.ts";
 *
 * const schema = z.object({ limit: z.number() });
 * const { value, warnings } = validateData(schema, { limit: 3, colour: "red" }, { verb: "find" });
 * assert.deepEqual(value, { limit: 3 });
 * assert.equal(warnings.length, 1); // the unknown field is dropped with a warning
 * // A near miss of a field name is an error that names the field meant.
 * assert.throws(() => validateData(schema, { limt: 3 }, { verb: "find" }), /limit/);
 * ```
 * @module
 */
import { z } from "zod";
import { MemaError } from "../errors/mod.ts";
import { checkVerbatimValue } from "../memory/normalize.ts";
import { closestName } from "../text/closest_name.ts";

/** Fields that carry identity; identity comes from the server, never from data. */
const IDENTITY_FIELDS = ["agent_id", "client", "agentId"];

/** A validated value and the warnings its input produced. */
export interface Validated<T> {
  value: T;
  warnings: string[];
}

function describeIssue(issue: z.core.$ZodIssue, field: string): string {
  if (issue.code === "invalid_type" && issue.input === undefined) return `${field} is required`;
  if (issue.code === "invalid_type") {
    const got = issue.input === null
      ? "null"
      : Array.isArray(issue.input)
      ? "array"
      : typeof issue.input;
    return `${field} must be ${
      issue.expected === "int" ? "an integer" : `of type ${issue.expected}`
    } (got ${got})`;
  }
  if (issue.code === "too_big") {
    return `${field} is too large: ${issue.message.replace(/^Too big: /, "")}`;
  }
  if (issue.code === "too_small") {
    return `${field} is too small: ${issue.message.replace(/^Too small: /, "")}`;
  }
  return `${field}: ${issue.message}`;
}

/** Validates `data` against an object schema. */
export function validateData<S extends z.ZodObject>(
  schema: S,
  data: unknown,
  context: { verb: string },
): Validated<z.output<S>> {
  const warnings: string[] = [];
  if (data === undefined || data === null) data = {};
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new MemaError("invalid_input", `data must be an object of ${context.verb}'s fields`, {
      field: "data",
      hint: `call help with {"topic": "${context.verb}"} for the fields`,
    });
  }
  const known = Object.keys(schema.shape);
  const cleaned: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (known.includes(key)) {
      cleaned[key] = value;
      continue;
    }
    if (IDENTITY_FIELDS.includes(key)) {
      throw new MemaError(
        "identity_mismatch",
        `${key} cannot be set in data: identity comes from the server's configuration`,
        {
          field: key,
          hint: "remove the field; set MEMA_CLIENT / MEMA_AGENT_ID in the client's config",
        },
      );
    }
    const suggestion = closestName(key, known);
    if (suggestion) {
      throw new MemaError(
        "invalid_input",
        `unknown field "${key}" (did you mean "${suggestion}"?)`,
        {
          field: key,
          didYouMean: suggestion,
        },
      );
    }
    warnings.push(`unknown field ignored: ${key}`);
  }
  // One check for every tool and transport, before any service runs: every string the
  // agent passes (keys included) must survive storage exactly, and nothing nests too deep.
  for (const [key, value] of Object.entries(cleaned)) checkVerbatimValue(value, key);
  const result = schema.safeParse(cleaned, { reportInput: true });
  if (result.success) return { value: result.data, warnings };
  // A misspelled nested key also shows up as its real twin "missing": report the spelling.
  const issue = result.error.issues.find((i) => i.code === "unrecognized_keys") ??
    result.error.issues[0];
  if (issue.code === "unrecognized_keys") {
    const parent = issue.path.join(".");
    const key = issue.keys[0];
    const field = parent ? `${parent}.${key}` : key;
    const nested = parent ? nestedShape(schema, issue.path) : [];
    const suggestion = closestName(key, nested);
    throw new MemaError(
      "invalid_input",
      `unknown field "${field}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`,
      { field, didYouMean: suggestion },
    );
  }
  const field = issue.path.length > 0 ? issue.path.join(".") : "data";
  throw new MemaError("invalid_input", describeIssue(issue, field), { field });
}

function nestedShape(schema: z.ZodObject, path: readonly PropertyKey[]): string[] {
  let node: unknown = schema;
  for (const key of path) {
    node = unwrap(node);
    if (node instanceof z.ZodObject) node = node.shape[String(key)];
    else if (node instanceof z.ZodArray) node = node.element;
    else if (node instanceof z.ZodRecord) node = node.valueType;
    else return [];
  }
  node = unwrap(node);
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}

function unwrap(node: unknown): unknown {
  while (
    node instanceof z.ZodOptional || node instanceof z.ZodDefault || node instanceof z.ZodNullable
  ) {
    node = node.unwrap();
  }
  return node;
}
