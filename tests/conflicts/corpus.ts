/**
 * The labelled conflict corpus (`corpus.json`) and how the rule stage is scored on it; shared
 * by `rules_test.ts` (which pins the figures) and `bench/conflict_rules.ts` (which prints them).
 *
 * @example
 * ```ts
 * import { loadCorpus, scoreCorpus } from "./tests/conflicts/corpus.ts";
 * import { assessPair } from "./src/conflicts/rules.ts";
 * const report = scoreCorpus(await loadCorpus(), assessPair);
 * report.overall.precision;
 * ```
 * @module
 */
import type { EvidenceSide, PairAssessment } from "../../src/conflicts/rules.ts";

/** One labelled pair. */
export interface CorpusPair {
  id: string;
  a: { subject: string; text: string };
  b: { subject: string; text: string };
  label: "conflict" | "no_conflict";
  category: string;
  note: string;
  /**
   * `dev`: written alongside the rules and used to shape them; `holdout`: written after the
   * rules were frozen and measured once before any further change (see the README figures).
   */
  split: "dev" | "holdout";
}

/** Confusion counts and the derived figures. */
export interface CorpusScore {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  positives: number;
  precision: number;
  recall: number;
  f1: number;
}

/** Per category: how many pairs were flagged as candidates. */
export interface CategoryScore {
  category: string;
  label: CorpusPair["label"];
  pairs: number;
  flagged: number;
  /** Recall for a conflict category, false-positive rate for a no-conflict one. */
  rate: number;
}

/** A pair the rule stage got wrong. */
export interface Misclassified {
  id: string;
  label: CorpusPair["label"];
  candidate: boolean;
  a: string;
  b: string;
  reasons: string[];
}

/** Everything the bench prints. */
export interface CorpusReport {
  overall: CorpusScore;
  categories: CategoryScore[];
  misclassified: Misclassified[];
}

/** Reads `corpus.json` next to this module. */
export async function loadCorpus(): Promise<CorpusPair[]> {
  return JSON.parse(await Deno.readTextFile(new URL("./corpus.json", import.meta.url)));
}

/** Runs `assess` on every pair (a, b) and scores "candidate" against the label. */
export function scoreCorpus(
  corpus: CorpusPair[],
  assess: (a: EvidenceSide, b: EvidenceSide) => PairAssessment,
): CorpusReport {
  let tp = 0, fp = 0, fn = 0, tn = 0;
  const categories = new Map<string, CategoryScore>();
  const misclassified: Misclassified[] = [];
  for (const pair of corpus) {
    const result = assess(pair.a, pair.b);
    const positive = pair.label === "conflict";
    if (result.candidate && positive) tp++;
    else if (result.candidate) fp++;
    else if (positive) fn++;
    else tn++;
    const row = categories.get(pair.category) ??
      { category: pair.category, label: pair.label, pairs: 0, flagged: 0, rate: 0 };
    row.pairs++;
    if (result.candidate) row.flagged++;
    categories.set(pair.category, row);
    if (result.candidate !== positive) {
      misclassified.push({
        id: pair.id,
        label: pair.label,
        candidate: result.candidate,
        a: pair.a.text,
        b: pair.b.text,
        reasons: result.reasons,
      });
    }
  }
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  for (const row of categories.values()) row.rate = row.flagged / row.pairs;
  return {
    overall: { tp, fp, fn, tn, positives: tp + fn, precision, recall, f1 },
    categories: [...categories.values()].sort((x, y) =>
      x.label === y.label ? x.category.localeCompare(y.category) : x.label.localeCompare(y.label)
    ),
    misclassified,
  };
}
