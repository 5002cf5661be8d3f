/**
 * What `write_hints.possible_duplicate` costs a `remember`: the same LoCoMo library as the
 * side-by-side benchmark goes into a fresh database (batch_remember's service, 500 per call),
 * then each of 200 further turns is remembered and timed, and the near-duplicate lookup for
 * it (src/conflicts/duplicates.ts: bounded lexical neighbours of the same workspace, the
 * offline test) timed apart. In process, so the figures are the service's own cost.
 *
 *   deno run -A bench/duplicate_hint.ts [--sizes 1000,10000] [--seed 7] [--data locomo-dev.json]
 *
 * Writes bench/results/duplicate_hint.json. Never asserts.
 * @module
 */
import { parseArgs } from "node:util";
import { possibleDuplicateOf } from "../src/conflicts/duplicates.ts";
import type { ServiceContext } from "../src/core/context.ts";
import { rememberMemory } from "../src/memory/remember.ts";
import { rememberMany } from "../src/memory/remember_many.ts";
import { openStore } from "../src/store/mod.ts";
import { buildLocomoLibrary } from "./helpers/locomo_library.ts";
import { markdownTable, summarize, timedAsync, writeResult } from "./helpers/stats.ts";
import { composeMemoryEvents } from "../src/app/memory_events.ts";

const PROBES = 200;

async function measure(
  size: number,
  seed: number,
  dataPath?: string,
): Promise<Record<string, unknown>> {
  const library = buildLocomoLibrary({ size, extra: PROBES, seed, dataPath });
  const dir = Deno.makeTempDirSync({ prefix: "mema-dup-" });
  const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
  const ctx: ServiceContext = {
    store,
    caller: { client: "bench", agentId: "bench" },
    settings: { workspaceIsolation: "none", includeSize: true },
    events: composeMemoryEvents(),
  };
  try {
    const all = library.memories.map((m) => ({ ...m, workspace: "locomo" }));
    for (let i = 0; i < size; i += 500) await rememberMany(ctx, all.slice(i, i + 500));
    const writes: number[] = [];
    const hints: number[] = [];
    let found = 0;
    const examples: Record<string, unknown>[] = [];
    for (const memory of library.extra.map((m) => ({ ...m, workspace: "locomo" }))) {
      const written = await timedAsync(() => rememberMemory(ctx, memory));
      writes.push(written.ms);
      const hint = await timedAsync(async () =>
        await possibleDuplicateOf(ctx, {
          id: written.value.memoryId,
          content: memory.content,
          workspaceCanonical: written.value.workspace,
        })
      );
      hints.push(hint.ms);
      if (hint.value) {
        found++;
        const other = await store.getMemory(hint.value.memoryId);
        examples.push({ memory: memory.content, duplicate_of: other?.content, ...hint.value });
      }
    }
    const write = summarize(writes);
    const hint = summarize(hints);
    return {
      memories: size,
      remember_p50_ms: write.p50,
      remember_p95_ms: write.p95,
      hint_p50_ms: hint.p50,
      hint_p95_ms: hint.p95,
      hints_given: `${found}/${PROBES}`,
      examples,
    };
  } finally {
    store.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

const args = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "1000,10000" },
    seed: { type: "string", default: "7" },
    data: { type: "string" },
  },
});
const rows: Record<string, unknown>[] = [];
for (const size of args.values.sizes!.split(",").map(Number)) {
  rows.push(await measure(size, Number(args.values.seed), args.values.data));
}
console.log(markdownTable(rows.map(({ examples: _, ...row }) => row)));
for (const row of rows) console.log(JSON.stringify(row.examples, null, 1));
console.log(`written to ${writeResult("duplicate_hint", { rows })}`);
