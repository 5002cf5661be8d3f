/**
 * Measures the conflict rule stage (`src/conflicts/rules.ts`) on the labelled corpus
 * `tests/conflicts/corpus.json`: precision, recall and F1 overall and per category, and every
 * misclassified pair with the rule stage's reasons.
 *
 * ```sh
 * deno run -A bench/conflict_rules.ts          # table on stdout
 * deno run -A bench/conflict_rules.ts --json   # the same figures as JSON
 * ```
 *
 * Per category, a conflict category reports recall (its pairs are all conflicts) and a
 * no-conflict category reports its false-positive rate; precision only means something over
 * the whole corpus.
 * @module
 */
import { assessPair } from "../src/conflicts/rules.ts";
import { type CorpusPair, loadCorpus, scoreCorpus } from "../tests/conflicts/corpus.ts";

const corpus: CorpusPair[] = await loadCorpus();
const report = scoreCorpus(corpus, assessPair);

if (Deno.args.includes("--json")) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const { overall } = report;
  console.log(`conflict rule stage on ${corpus.length} pairs (${overall.positives} conflicts)`);
  console.log(
    `precision ${overall.precision.toFixed(3)}  recall ${overall.recall.toFixed(3)}  ` +
      `F1 ${overall.f1.toFixed(3)}  (tp ${overall.tp}, fp ${overall.fp}, fn ${overall.fn}, ` +
      `tn ${overall.tn})`,
  );
  for (const split of ["dev", "holdout"] as const) {
    const part = scoreCorpus(corpus.filter((pair) => pair.split === split), assessPair).overall;
    console.log(
      `  ${split.padEnd(8)} ${part.tp + part.fp + part.fn + part.tn} pairs: precision ` +
        `${part.precision.toFixed(3)}  recall ${part.recall.toFixed(3)}  F1 ${part.f1.toFixed(3)}`,
    );
  }
  console.log("\ncategory              label        pairs  flagged  rate");
  for (const row of report.categories) {
    const rate = row.label === "conflict"
      ? `recall ${row.rate.toFixed(2)}`
      : `FP rate ${row.rate.toFixed(2)}`;
    console.log(
      `${row.category.padEnd(22)}${row.label.padEnd(13)}${String(row.pairs).padStart(5)}` +
        `${String(row.flagged).padStart(9)}  ${rate}`,
    );
  }
  console.log(`\nmisclassified (${report.misclassified.length}):`);
  for (const miss of report.misclassified) {
    console.log(`- ${miss.id} [${miss.label}] got ${miss.candidate ? "candidate" : "dropped"}`);
    console.log(`    a: ${miss.a}\n    b: ${miss.b}\n    why: ${miss.reasons.join("; ")}`);
  }
}
