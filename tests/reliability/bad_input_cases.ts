/**
 * A generator of bad input for mema's MCP surface: malformed JSON-RPC frames
 * (for the HTTP transport) and, for every verb of every tool, arguments that
 * no valid call could have — wrong JSON types, values past the schema's
 * limits, enum values that are path- or SQL-like, huge strings and deep
 * nesting. Each case is invalid by construction, so each must get an error.
 * @module
 */

/** A JSON Schema node as `help` reports it. */
export interface SchemaNode {
  type?: string | string[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  enum?: unknown[];
  const?: unknown;
  maxLength?: number;
  maxItems?: number;
  maximum?: number;
  minimum?: number;
  format?: string;
  pattern?: string;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
}

/** One verb of one tool, with its data schema. */
export interface VerbSurface {
  tool: string;
  verbKey: string;
  verb: string;
  schema: SchemaNode;
}

/** A tool call that must fail. */
export interface BadCall {
  label: string;
  tool: string;
  args: unknown;
}

/** Strings an attacker or a confused agent might send where a name, id or enum belongs. */
export const HOSTILE_STRINGS: readonly string[] = [
  "'; DROP TABLE memories; --",
  "1 OR 1=1",
  '" OR ""="',
  "memories_fts MATCH '*'",
  "../../../../etc/passwd",
  "..\\..\\windows\\system32\\config\\sam",
  "/dev/zero",
  "file:///etc/shadow",
  "\u0000",
  "\ud800",
  "%00%2e%2e%2f",
  "${jndi:ldap://x}",
  "<script>alert(1)</script>",
];

/** An array nested `depth` levels deep, built without recursion. */
export function deepArray(depth: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** An object nested `depth` levels deep. */
export function deepObject(depth: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** The JSON types a schema node admits; empty when it admits anything. */
export function admittedTypes(node: SchemaNode): Set<string> {
  const types = new Set<string>();
  const add = (type: string) => {
    types.add(type);
    if (type === "integer") types.add("number-integer");
  };
  if (typeof node.type === "string") add(node.type);
  if (Array.isArray(node.type)) node.type.forEach(add);
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) {
    const inner = admittedTypes(branch);
    if (inner.size === 0) return new Set();
    inner.forEach((type) => types.add(type));
  }
  if (node.enum) { for (const value of node.enum) add(jsonType(value)); }
  if (node.const !== undefined) add(jsonType(node.const));
  return types;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Values of every JSON type, each tagged with the types that would admit it. */
function typedSamples(): { value: unknown; admittedBy: string[]; label: string }[] {
  return [
    { value: "1; DROP TABLE memories", admittedBy: ["string"], label: "sql string" },
    { value: "../../etc/passwd", admittedBy: ["string"], label: "path string" },
    { value: 42, admittedBy: ["integer", "number"], label: "integer" },
    { value: 4.5, admittedBy: ["number"], label: "fraction" },
    { value: true, admittedBy: ["boolean"], label: "boolean" },
    { value: null, admittedBy: ["null"], label: "null" },
    { value: ["'; --"], admittedBy: ["array"], label: "array" },
    { value: { $gt: "" }, admittedBy: ["object"], label: "operator object" },
    { value: deepObject(2_000), admittedBy: ["object"], label: "deep object" },
    { value: deepArray(2_000), admittedBy: ["array"], label: "deep array" },
  ];
}

/** Values for one property that its schema cannot admit. */
export function invalidValues(node: SchemaNode): { label: string; value: unknown }[] {
  const admitted = admittedTypes(node);
  if (admitted.size === 0) return [];
  const out: { label: string; value: unknown }[] = [];
  for (const sample of typedSamples()) {
    if (sample.value === null && !admitted.has("null")) {
      // null often means "unset" for optional fields; it is not a wrong type there.
      continue;
    }
    if (!sample.admittedBy.some((type) => admitted.has(type))) {
      out.push({ label: `wrong type (${sample.label})`, value: sample.value });
    }
  }
  if (node.enum && node.enum.every((value) => typeof value === "string")) {
    for (const hostile of HOSTILE_STRINGS) out.push({ label: "not in enum", value: hostile });
  }
  if (typeof node.maxLength === "number") {
    const filler = HOSTILE_STRINGS[0];
    out.push({
      label: "string past maxLength",
      value: filler.repeat(Math.ceil((node.maxLength + 1) / filler.length)),
    });
  }
  if (node.format === "date-time" || node.pattern) {
    out.push({ label: "path where a formatted string belongs", value: "../../etc/passwd" });
  }
  if (admitted.has("integer") && !admitted.has("number")) {
    out.push({ label: "fraction where an integer belongs", value: 1.5 });
  }
  if (typeof node.maximum === "number") {
    out.push({ label: "above maximum", value: node.maximum + 1 });
  }
  if (typeof node.minimum === "number") {
    out.push({ label: "below minimum", value: node.minimum - 1 });
  }
  if (typeof node.maxItems === "number" && node.items) {
    const item = validSample(node.items);
    if (item !== undefined) {
      out.push({
        label: "array past maxItems",
        value: Array.from({ length: node.maxItems + 1 }, () => item),
      });
    }
  }
  if (admitted.has("array") && node.items && admittedTypes(node.items).size > 0) {
    const wrongItem = invalidValues({ ...node.items, maxLength: undefined })[0];
    if (wrongItem) out.push({ label: `array of ${wrongItem.label}`, value: [wrongItem.value] });
  }
  return out;
}

function validSample(node: SchemaNode): unknown {
  const admitted = admittedTypes(node);
  if (node.enum?.length) return node.enum[0];
  if (admitted.has("integer")) return Math.max(1, node.minimum ?? 1);
  if (admitted.has("string")) return "x";
  return undefined;
}

/** Every bad call for one verb. */
export function badCallsForVerb(surface: VerbSurface): BadCall[] {
  const { tool, verbKey, verb, schema } = surface;
  const call = (label: string, data: unknown): BadCall => ({
    label: `${tool}.${verb}: ${label}`,
    tool,
    args: { [verbKey]: verb, data },
  });
  const calls: BadCall[] = [
    call("data is a string", "'; DROP TABLE memories; --"),
    call("data is a number", 7),
    call("data is an array", [{ content: "x" }]),
    call("data is a deep array", deepArray(5_000)),
  ];
  if ((schema.required ?? []).length > 0) calls.push(call("required fields missing", {}));
  for (const [field, node] of Object.entries(schema.properties ?? {})) {
    for (const { label, value } of invalidValues(node)) {
      calls.push(call(`${field}: ${label}`, { [field]: value }));
    }
  }
  return calls;
}

/** Calls naming no real tool or verb. */
export function badNames(surfaces: readonly VerbSurface[]): BadCall[] {
  const calls: BadCall[] = [];
  const tools = [...new Set(surfaces.map((s) => `${s.tool}:${s.verbKey}`))];
  for (const entry of tools) {
    const [tool, verbKey] = entry.split(":");
    for (const verb of [...HOSTILE_STRINGS, "", "HELP", 42, null, { $ne: 1 }, ["help"]]) {
      calls.push({
        label: `${tool}: verb ${JSON.stringify(verb)}`,
        tool,
        args: { [verbKey]: verb, data: {} },
      });
    }
    calls.push({ label: `${tool}: no verb`, tool, args: { data: {} } });
  }
  for (const name of [...HOSTILE_STRINGS, "", "MEMORY", "memory ", "../memory"]) {
    calls.push({ label: `tool ${JSON.stringify(name)}`, tool: name, args: { action: "status" } });
  }
  return calls;
}

function frame(id: number, method: string, params?: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

/** Raw HTTP bodies that are not a valid JSON-RPC request (each still has an id where JSON). */
export function malformedFrames(): { label: string; body: string | Uint8Array<ArrayBuffer> }[] {
  const bytes = (...values: number[]) => new Uint8Array(values);
  const prefix = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"tools/call","x":"');
  const withBytes = (...values: number[]) => new Uint8Array([...prefix, ...values, 0x22, 0x7d]);
  const huge = "A".repeat(3 * 1024 * 1024);
  return [
    { label: "empty body", body: "" },
    { label: "whitespace", body: "   \n\t" },
    { label: "truncated object", body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"' },
    { label: "truncated array", body: "[" },
    { label: "bare word", body: "nul" },
    { label: "trailing garbage", body: frame(1, "tools/list") + "}}" },
    { label: "single quotes", body: "{'jsonrpc':'2.0','id':1,'method':'tools/list'}" },
    { label: "NUL byte", body: "\u0000" },
    { label: "number", body: "42" },
    { label: "string", body: '"tools/list"' },
    { label: "null", body: "null" },
    { label: "true", body: "true" },
    { label: "empty object", body: "{}" },
    { label: "empty batch", body: "[]" },
    { label: "wrong jsonrpc version", body: '{"jsonrpc":"1.0","id":1,"method":"tools/list"}' },
    { label: "jsonrpc missing", body: '{"id":1,"method":"tools/list"}' },
    { label: "method a number", body: '{"jsonrpc":"2.0","id":1,"method":42}' },
    { label: "id an object", body: '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}' },
    { label: "unknown method", body: frame(1, "memory/remember", {}) },
    { label: "path-like method", body: frame(1, "../../etc/passwd", {}) },
    { label: "sql-like method", body: frame(1, "tools/call'; DROP TABLE memories; --") },
    { label: "tools/call without params", body: frame(1, "tools/call") },
    { label: "tools/call params a string", body: frame(1, "tools/call", "memory") },
    { label: "tools/call name missing", body: frame(1, "tools/call", { arguments: {} }) },
    { label: "tools/call name a number", body: frame(1, "tools/call", { name: 7 }) },
    {
      label: "arguments a string",
      body: frame(1, "tools/call", { name: "memory", arguments: "remember" }),
    },
    {
      label: "arguments an array",
      body: frame(1, "tools/call", { name: "memory", arguments: ["remember"] }),
    },
    { label: "deep array frame", body: "[".repeat(100_000) + "]".repeat(100_000) },
    {
      label: "deep nesting inside arguments",
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory",' +
        '"arguments":{"action":"remember","data":{"content":' + "[".repeat(200_000) +
        "]".repeat(200_000) + ',"subject":"s","workspace":"w"}}}}',
    },
    {
      label: "huge subject",
      body: frame(1, "tools/call", {
        name: "memory",
        arguments: { action: "remember", data: { content: "x", subject: huge, workspace: "w" } },
      }),
    },
    {
      label: "huge query",
      body: frame(1, "tools/call", {
        name: "memory",
        arguments: { action: "find", data: { query: huge } },
      }),
    },
    {
      label: "huge memory_id",
      body: frame(1, "tools/call", {
        name: "memory",
        arguments: { action: "read", data: { memory_id: huge } },
      }),
    },
    {
      label: "oversized batch",
      body: JSON.stringify(Array.from({ length: 101 }, (_, i) => JSON.parse(frame(i, "x")))),
    },
    {
      label: "batch of bad requests",
      body: `[${frame(1, "nope")},${frame(2, "tools/call", { name: "nope" })}]`,
    },
    { label: "invalid UTF-8: lone continuation", body: withBytes(0x80) },
    { label: "invalid UTF-8: truncated sequence", body: withBytes(0xc3, 0x28) },
    { label: "invalid UTF-8: overlong slash", body: withBytes(0xc0, 0xaf) },
    { label: "invalid UTF-8: encoded surrogate", body: withBytes(0xed, 0xa0, 0x80) },
    { label: "invalid UTF-8: 0xFF", body: withBytes(0xff, 0xfe) },
    { label: "invalid UTF-8: past U+10FFFF", body: withBytes(0xf4, 0x90, 0x80, 0x80) },
    { label: "binary garbage", body: bytes(0x00, 0x9f, 0x92, 0x96, 0xff, 0x01) },
  ];
}
