/**
 * Measures the conflict rule stage (`src/conflicts/rules.ts`) on the labelled corpus
 * `tests/conflicts/corpus.json`: precision, recall and F1 on the tune half and on the held half
 * (the figure to report: the rules were never shaped on it), per domain, language and sentence
 * frame, and every misclassified pair with the rule stage's reasons. The earlier corpus
 * (`corpus_legacy.json`, tuned-on) is scored too, so a change that breaks its cases shows, and so
 * is the probe set (`corpus_probe.json`, tuned-on: pairs written to find general gaps).
 *
 * ```sh
 * deno task bench:conflicts                 # held half: figures only
 * deno task bench:conflicts --tune          # also list the tune half's mistakes
 * deno task bench:conflicts --probe         # also list the probe set's mistakes
 * deno task bench:conflicts --no-held       # while tuning: leave the held half's figures out
 * deno task bench:conflicts --json          # the same figures as JSON
 * ```
 *
 * The held half's mistakes are never listed (`--show-held` does, for a final audit only):
 * reading them is how a held set turns into a tuning set.
 * @module
 */
import { assessPair } from "../src/conflicts/rules.ts";
import {
  type CorpusPair,
  type CorpusScore,
  loadCorpus,
  loadLegacyCorpus,
  loadProbeCorpus,
  scoreCorpus,
} from "../tests/conflicts/corpus.ts";

const corpus: CorpusPair[] = await loadCorpus();
const legacy: CorpusPair[] = await loadLegacyCorpus();
const tune = scoreCorpus(corpus.filter((pair) => pair.half === "tune"), assessPair);
const held = scoreCorpus(corpus.filter((pair) => pair.half === "held"), assessPair);
const old = scoreCorpus(legacy, assessPair);
const probe = scoreCorpus(await loadProbeCorpus(), assessPair);

function line(label: string, score: CorpusScore): string {
  return `${label.padEnd(22)}${String(score.pairs).padStart(5)} pairs (${
    String(score.positives).padStart(3)
  } conflicts)  precision ${score.precision.toFixed(3)}  recall ${score.recall.toFixed(3)}  F1 ${
    score.f1.toFixed(3)
  }  (fp ${score.fp}, fn ${score.fn})`;
}

if (Deno.args.includes("--json")) {
  console.log(JSON.stringify(
    {
      tune: { overall: tune.overall, groups: tune.groups },
      held: { overall: held.overall, groups: held.groups },
      legacy: old.overall,
      probe: { overall: probe.overall, groups: probe.groups },
    },
    null,
    2,
  ));
} else {
  console.log(`conflict rule stage (no model) on ${corpus.length} pairs`);
  const hideHeld = Deno.args.includes("--no-held");
  if (!hideHeld) console.log(line("held half", held.overall));
  console.log(line("tune half", tune.overall));
  console.log(line("legacy (tuned-on)", old.overall));
  console.log(line("probe (tuned-on)", probe.overall));
  for (const [name, report] of [["held", held], ["tune", tune], ["probe", probe]] as const) {
    if (name === "held" && hideHeld) continue;
    console.log(`\n${name} ${name === "probe" ? "set" : "half"} by group:`);
    for (const key of Object.keys(report.groups).sort()) {
      console.log(`  ${line(key, report.groups[key])}`);
    }
  }
  const show = [
    ...(Deno.args.includes("--tune") ? tune.misclassified : []),
    ...(Deno.args.includes("--tune") ? old.misclassified : []),
    ...(Deno.args.includes("--probe") ? probe.misclassified : []),
    ...(Deno.args.includes("--show-held") ? held.misclassified : []),
  ];
  if (show.length > 0) console.log(`\nmisclassified (${show.length}):`);
  for (const miss of show) {
    console.log(
      `- ${miss.id} [${miss.half}, ${miss.label}] got ${miss.candidate ? "candidate" : "dropped"}`,
    );
    console.log(`    a: ${miss.a}\n    b: ${miss.b}\n    why: ${miss.reasons.join("; ")}`);
  }
}
