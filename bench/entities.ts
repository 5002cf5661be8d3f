/**
 * Entity extraction (issue 35): precision and recall on the labelled set
 * (tests/fixtures/entities/labelled.jsonl), tune half and held half, and what extraction costs
 * per write: the extraction alone per sentence and on a text at the read limit, and remember
 * with and without the entity graph's listener (same run, same machine: the ratio is the figure).
 *
 * ```sh
 * deno task bench:entities                 # figures; the tune half's mistakes with --tune
 * deno task bench:entities --writes 300
 * ```
 *
 * The held half's mistakes are never listed: reading them is how a held set turns into a tuning
 * set.
 * @module
 */
import { extractMentions } from "../src/entities/extract.ts";
import { readRelations } from "../src/entities/relations.ts";
import { ENTITY_TEXT_MAX_CHARS } from "../src/entities/constants.ts";
import { loadLabelled, type Score, scoreExtraction } from "../tests/entities/labelled.ts";
import { openStore } from "../src/store/mod.ts";
import { MemoryEvents } from "../src/core/memory_events.ts";
import { subscribeConflictChecks } from "../src/conflicts/schedule.ts";
import { subscribeEntityGraph } from "../src/entities/graph.ts";
import { rememberMemory } from "../src/memory/remember.ts";

const sentences = loadLabelled();
const tune = scoreExtraction(sentences.filter((s) => s.half === "tune"));
const held = scoreExtraction(sentences.filter((s) => s.half === "held"));
const fmt = (label: string, score: Score) =>
  `${label.padEnd(20)} precision ${score.precision.toFixed(3)}  recall ${
    score.recall.toFixed(3)
  }  (${score.correct} of ${score.found} found, ${score.expected} labelled)`;
console.log(
  `labelled set: ${sentences.length} sentences (tune ${
    sentences.filter((s) => s.half === "tune").length
  }, held ${sentences.filter((s) => s.half === "held").length})`,
);
console.log(fmt("held entities", held.entities));
console.log(fmt("held relations", held.relations));
console.log(fmt("tune entities", tune.entities));
console.log(fmt("tune relations", tune.relations));
if (Deno.args.includes("--tune")) {
  for (const mistake of tune.mistakes) {
    console.log(
      `  ${mistake.id}: missed ${JSON.stringify(mistake.missed)} wrong ${
        JSON.stringify(mistake.wrong)
      }`,
    );
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const perSentence: number[] = [];
for (let round = 0; round < 20; round++) {
  const start = performance.now();
  for (const sentence of sentences) {
    readRelations(sentence.text, extractMentions(sentence.text).mentions);
  }
  perSentence.push((performance.now() - start) / sentences.length);
}
const long = sentences.map((s) => s.text).join(" ").repeat(40).slice(0, ENTITY_TEXT_MAX_CHARS);
const longTimes: number[] = [];
for (let round = 0; round < 20; round++) {
  const start = performance.now();
  readRelations(long, extractMentions(long).mentions);
  longTimes.push(performance.now() - start);
}
console.log(
  `extraction: median ${(median(perSentence) * 1000).toFixed(1)} µs per sentence; ${
    median(longTimes).toFixed(2)
  } ms on ${ENTITY_TEXT_MAX_CHARS.toLocaleString("en")} characters`,
);

const writesArg = Deno.args.indexOf("--writes");
const writes = writesArg >= 0 ? Number(Deno.args[writesArg + 1]) : 200;
/** Two libraries written in turn, one with the graph's listener: same load on both. */
async function openLibrary(withGraph: boolean) {
  const dir = Deno.makeTempDirSync({ prefix: "mema-bench-entities-" });
  const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache`, skipVec: true });
  const events = new MemoryEvents();
  subscribeConflictChecks(events);
  if (withGraph) subscribeEntityGraph(events);
  const ctx = {
    store,
    caller: { client: "bench", agentId: "bench" },
    settings: { workspaceIsolation: "none" as const, includeSize: false },
    events,
  };
  return {
    ctx,
    times: [] as number[],
    close() {
      store.close();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}
const libraries = [await openLibrary(false), await openLibrary(true)];
for (let i = 0; i < writes; i++) {
  const sentence = sentences[i % sentences.length];
  for (const library of i % 2 === 0 ? libraries : [...libraries].reverse()) {
    const start = performance.now();
    await rememberMemory(library.ctx, {
      content: `${sentence.text} (note ${i})`,
      subject: `note ${i}`,
      workspace: "bench",
    });
    library.times.push(performance.now() - start);
  }
}
for (const library of libraries) library.close();
const [without, withGraph] = libraries.map((library) => library.times);
console.log(
  `remember (${writes} writes each, two SQLite libraries in turn, durable): median ${
    median(without).toFixed(2)
  } ms without the graph, ${median(withGraph).toFixed(2)} ms with it (+${
    (median(withGraph) - median(without)).toFixed(2)
  } ms, ratio ${(median(withGraph) / median(without)).toFixed(2)})`,
);
