/**
 * The labelled conflict corpus and how the rule stage is scored on it; shared by
 * `rules_test.ts` (which pins the figures) and `bench/conflict_rules.ts` (which prints them).
 *
 * `corpus.json` holds 311 pairs written for issue 14 across eleven domains (infra, people,
 * dates, prices, licenses, preferences, locations, limits, policies, versions and chat), in
 * English and Chinese, most of them reworded (the two rows use different sentence frames), and
 * 60 more (`v3-` ids) written before the rules for them: reversed instructions, schedule
 * windows and changes told as events, each family with near misses. Each
 * pair belongs to one half, decided by a stable hash of its id ({@link halfOf}): the rule stage
 * is tuned on the `tune` half only, and the `held` half is what the README reports.
 * `corpus_legacy.json` is the earlier corpus; every pair of it was used to shape the rules, so
 * it only counts as tune data.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { assessPair } from "../../src/conflicts/rules.ts";
 * import { loadCorpus, scoreCorpus } from "./corpus.ts";
 *
 * const corpus = await loadCorpus();
 * const held = scoreCorpus(corpus.filter((pair) => pair.half === "held"), assessPair);
 * assert.ok(held.overall.precision >= 0 && held.overall.precision <= 1);
 * ```
 * @module
 */
import { createHash } from "node:crypto";
import type { EvidenceSide, PairAssessment } from "../../src/conflicts/rules.ts";

/** One labelled pair. */
export interface CorpusPair {
  id: string;
  /** What the facts are about: infra, people, dates, prices, licenses, … chat. */
  domain: string;
  lang: "en" | "zh";
  /** `same`: one sentence frame with a different value; `reworded`: different frames. */
  frame: "same" | "reworded";
  label: "conflict" | "no_conflict";
  a: EvidenceSide;
  b: EvidenceSide;
  note: string;
  /**
   * Which half the pair is in ({@link halfOf}); never written in the file. `probe` pairs come
   * from `corpus_probe.json` and are tuned on like the tune half.
   */
  half: "tune" | "held" | "probe";
}

/**
 * The half a pair belongs to: the first byte of sha256(id), even → tune, odd → held. Stable
 * (a pair never changes half when others are added) and blind to the pair's content.
 */
export function halfOf(id: string): "tune" | "held" {
  return createHash("sha256").update(id).digest()[0] % 2 === 0 ? "tune" : "held";
}

/** Confusion counts and the derived figures. */
export interface CorpusScore {
  pairs: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  positives: number;
  precision: number;
  recall: number;
  f1: number;
}

/** A pair the rule stage got wrong. */
export interface Misclassified {
  id: string;
  half: CorpusPair["half"];
  label: CorpusPair["label"];
  candidate: boolean;
  a: string;
  b: string;
  reasons: string[];
}

/** Everything the bench prints. */
export interface CorpusReport {
  overall: CorpusScore;
  /** Per domain, per language and per frame. */
  groups: Record<string, CorpusScore>;
  misclassified: Misclassified[];
}

type RawPair = Omit<CorpusPair, "half" | "a" | "b"> & { a: string; b: string };

/** Reads `corpus.json` next to this module, each pair with its half. */
export async function loadCorpus(): Promise<CorpusPair[]> {
  const raw: RawPair[] = JSON.parse(
    await Deno.readTextFile(new URL("./corpus.json", import.meta.url)),
  );
  return raw.map((pair) => ({
    ...pair,
    a: { text: pair.a },
    b: { text: pair.b },
    half: halfOf(pair.id),
  }));
}

/**
 * Reads `corpus_probe.json`: pairs written later (mostly reworded conflicts and reworded
 * non-conflicts) to find general gaps without reading the held half. Tuned on, all `probe`.
 */
export async function loadProbeCorpus(): Promise<CorpusPair[]> {
  const raw: RawPair[] = JSON.parse(
    await Deno.readTextFile(new URL("./corpus_probe.json", import.meta.url)),
  );
  return raw.map((pair) => ({
    ...pair,
    a: { text: pair.a },
    b: { text: pair.b },
    half: "probe",
  }));
}

/** Reads `corpus_legacy.json` (the earlier, tuned-on corpus) in the same shape, all `tune`. */
export async function loadLegacyCorpus(): Promise<CorpusPair[]> {
  const raw: {
    id: string;
    a: EvidenceSide;
    b: EvidenceSide;
    label: CorpusPair["label"];
    category: string;
    note: string;
  }[] = JSON.parse(await Deno.readTextFile(new URL("./corpus_legacy.json", import.meta.url)));
  return raw.map((pair) => ({
    id: `legacy-${pair.id}`,
    domain: pair.category,
    lang: /\p{Script=Han}/u.test(pair.a.text) ? "zh" : "en",
    frame: "same",
    label: pair.label,
    a: pair.a,
    b: pair.b,
    note: pair.note,
    half: "tune",
  }));
}

function emptyScore(): CorpusScore {
  return { pairs: 0, tp: 0, fp: 0, fn: 0, tn: 0, positives: 0, precision: 0, recall: 0, f1: 0 };
}

function finish(score: CorpusScore): CorpusScore {
  const { tp, fp, fn } = score;
  score.positives = tp + fn;
  score.precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  score.recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  score.f1 = score.precision + score.recall === 0
    ? 0
    : (2 * score.precision * score.recall) / (score.precision + score.recall);
  return score;
}

/** Runs `assess` on every pair (a, b) and scores "candidate" against the label. */
export function scoreCorpus(
  corpus: CorpusPair[],
  assess: (a: EvidenceSide, b: EvidenceSide) => PairAssessment,
): CorpusReport {
  const overall = emptyScore();
  const groups: Record<string, CorpusScore> = {};
  const misclassified: Misclassified[] = [];
  for (const pair of corpus) {
    const result = assess(pair.a, pair.b);
    const positive = pair.label === "conflict";
    const cell = result.candidate ? (positive ? "tp" : "fp") : positive ? "fn" : "tn";
    for (const key of ["", `domain ${pair.domain}`, `lang ${pair.lang}`, `frame ${pair.frame}`]) {
      const score = key === "" ? overall : (groups[key] ??= emptyScore());
      score.pairs++;
      score[cell]++;
    }
    if (result.candidate !== positive) {
      misclassified.push({
        id: pair.id,
        half: pair.half,
        label: pair.label,
        candidate: result.candidate,
        a: pair.a.text,
        b: pair.b.text,
        reasons: result.reasons,
      });
    }
  }
  finish(overall);
  for (const score of Object.values(groups)) finish(score);
  return { overall, groups, misclassified };
}
