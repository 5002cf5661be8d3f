/**
 * Loading a library into mema through its tools: the bulk path (`memory help` names an action
 * that takes many facts in one call) or many `remember` calls in flight, whichever the server
 * offers. Shared by the benchmarks that preload memories before they measure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runConcurrently } from "./mema_loader.ts";
 *
 * const seen: number[] = [];
 * await runConcurrently([1, 2, 3], 2, (n: number) => {
 *   seen.push(n);
 *   return Promise.resolve();
 * });
 * assert.deepEqual(seen.sort(), [1, 2, 3]);
 * ```
 * @module
 */
import type { LibraryMemory } from "./locomo_library.ts";

/** Facts per bulk call when the bulk schema states no maximum. */
export const BULK_BATCH_DEFAULT = 500;

/** Calls a verb tool and returns the envelope; throws when `ok` is false. */
// deno-lint-ignore no-explicit-any
export type VerbCall = (tool: string, verb: string, data: unknown) => Promise<any>;

/** How mema takes many facts in one call, read from `memory help`. */
export interface BulkPath {
  action: string;
  field: string;
  maxItems: number;
  /** Item properties the schema lists (undefined: any). */
  itemKeys?: Set<string>;
  /** Top-level required properties other than `field`, filled from the first fact. */
  topRequired: string[];
}

/** Runs `fn` over `items` with at most `concurrency` calls in flight. */
export async function runConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await fn(items[index], index);
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker),
  );
}

/** A library memory as `remember` data in `workspace`. */
export function memaRememberData(
  memory: LibraryMemory,
  workspace: string,
): Record<string, unknown> {
  return {
    subject: memory.subject,
    content: memory.content,
    workspace,
    tags: memory.tags,
    ...(memory.eventTime ? { event_time: memory.eventTime } : {}),
  };
}

/** A JSON Schema as `memory help` publishes it (read loosely: only a few keys matter). */
// deno-lint-ignore no-explicit-any
type JsonSchema = any;

/**
 * Looks in `memory help` for an action with an array of fact objects (items with a
 * `content` property): the bulk path, whatever it ends up being called.
 */
export async function detectBulkPath(call: VerbCall): Promise<BulkPath | undefined> {
  const help = await call("memory", "help", {});
  const actions = (help.data?.actions ?? {}) as Record<string, { schema?: JsonSchema }>;
  for (const [action, spec] of Object.entries(actions)) {
    // A verb that takes either one fact or many may publish a union of object shapes.
    const shapes: JsonSchema[] = [
      spec.schema,
      ...(spec.schema?.anyOf ?? []),
      ...(spec.schema?.oneOf ?? []),
    ];
    for (const shape of shapes) {
      for (const [field, property] of Object.entries<JsonSchema>(shape?.properties ?? {})) {
        const items = property?.items;
        if (property?.type !== "array" || items?.type !== "object") continue;
        if (!items.properties?.content) continue;
        return {
          action,
          field,
          maxItems: typeof property.maxItems === "number" ? property.maxItems : BULK_BATCH_DEFAULT,
          itemKeys: items.additionalProperties === false
            ? new Set(Object.keys(items.properties))
            : undefined,
          topRequired: ((shape.required ?? []) as string[]).filter((key) => key !== field),
        };
      }
    }
  }
  return undefined;
}

/** Stores `memories` (at most `bulkPath.maxItems`) in one call of the bulk path. */
export async function rememberInBulk(
  call: VerbCall,
  bulkPath: BulkPath,
  options: { memories: readonly LibraryMemory[]; workspace: string },
): Promise<void> {
  const facts = options.memories.map((memory) => {
    const data = memaRememberData(memory, options.workspace);
    if (!bulkPath.itemKeys) return data;
    return Object.fromEntries(Object.entries(data).filter(([key]) => bulkPath.itemKeys!.has(key)));
  });
  const first = memaRememberData(options.memories[0], options.workspace);
  const top: Record<string, unknown> = { [bulkPath.field]: facts };
  for (const key of bulkPath.topRequired) if (key in first) top[key] = first[key];
  await call("memory", bulkPath.action, top);
}
