/**
 * Facts from a summary (issue 39, `memory` action `extract`) against what LoCoMo ships: each
 * dev conversation's session summaries go through `extractFacts`, and the candidates are
 * compared with the session's observations (the facts the data set's authors drew from the
 * session, one per line, per speaker).
 *
 * Matching, fixed before any tuning: a candidate and an observation match when they share at
 * least half of the observation's content words and at least 30% of the candidate's (content
 * words: lower-cased, stopwords and one- or two-letter words out, inflections folded by the
 * recall stemmer). Recall: observations matched by some candidate; precision: candidates that
 * match some observation. The keep threshold is chosen on conv-26 (best F1 over 0–0.9) and
 * reported on conv-30 and conv-41, beside every clause kept (the ceiling a summary allows:
 * summaries leave out much of what the observations hold).
 *
 *   deno run -A bench/extract_facts.ts [--data PATH] [--tune conv-26]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { extractFacts } from "../src/extract/fact_candidates.ts";
import { KEEP_SCORE } from "../src/extract/constants.ts";
import { stemTerm } from "../src/recall/stem.ts";
import { isStopword, textTokens } from "../src/text/words.ts";
import { loadLocomo, LOCOMO_DEV, sessionTime } from "./helpers/locomo.ts";
import { markdownTable, writeResult } from "./helpers/stats.ts";

interface Session {
  conversation: string;
  summary: string;
  observations: string[];
  now: number;
}

function contentWords(text: string): Set<string> {
  return new Set(
    textTokens(text).filter((t) => !isStopword(t) && [...t].length >= 3).map(stemTerm),
  );
}

function matches(candidate: Set<string>, observation: Set<string>): boolean {
  let shared = 0;
  for (const word of observation) if (candidate.has(word)) shared++;
  return shared >= 0.5 * observation.size && shared >= 0.3 * candidate.size;
}

function sessions(path: string): Session[] {
  const out: Session[] = [];
  for (const conv of loadLocomo(path) as unknown as Record<string, Record<string, unknown>>[]) {
    const summaries = conv.session_summary as Record<string, string>;
    const observations = conv.observation as Record<string, Record<string, [string, string][]>>;
    const times = conv.conversation as Record<string, unknown>;
    for (const [key, summary] of Object.entries(summaries)) {
      const n = /session_(\d+)_summary/.exec(key)?.[1];
      const observed = observations[`session_${n}_observation`];
      if (!observed) continue;
      const time = sessionTime(String(times[`session_${n}_date_time`] ?? ""));
      out.push({
        conversation: String(conv.sample_id),
        summary,
        observations: Object.values(observed).flat().map(([text]) => text),
        now: time ? Date.parse(time) : Date.UTC(2023, 0, 1),
      });
    }
  }
  return out;
}

function score(selected: readonly Session[], keepScore: number) {
  let observed = 0, found = 0, candidates = 0, right = 0;
  for (const session of selected) {
    const facts = extractFacts(session.summary, {
      now: session.now,
      timeZone: "UTC",
      keepScore,
      limit: 1000,
    }).map((f) => contentWords(f.text));
    const wanted = session.observations.map(contentWords);
    observed += wanted.length;
    found += wanted.filter((o) => facts.some((c) => matches(c, o))).length;
    candidates += facts.length;
    right += facts.filter((c) => wanted.some((o) => matches(c, o))).length;
  }
  const recall = observed ? found / observed : 0;
  const precision = candidates ? right / candidates : 0;
  const f1 = recall + precision ? (2 * recall * precision) / (recall + precision) : 0;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    sessions: selected.length,
    observations: observed,
    candidates,
    recall: round(recall),
    precision: round(precision),
    f1: round(f1),
  };
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    data: { type: "string", default: LOCOMO_DEV },
    tune: { type: "string", default: "conv-26" },
  },
});
const all = sessions(values.data);
const tune = all.filter((s) => s.conversation === values.tune);
const held = all.filter((s) => s.conversation !== values.tune);
const grid = Array.from({ length: 10 }, (_, i) => i / 10);
const tuning = grid.map((keep) => ({ keep, ...score(tune, keep) }));
const best = tuning.reduce((a, b) => (b.f1 > a.f1 ? b : a));
console.log(`tuning on ${values.tune}:`);
console.log(markdownTable(tuning));
console.log(`best keep score on ${values.tune}: ${best.keep} (shipped: ${KEEP_SCORE})`);
const report = [
  { on: "held out", keep: `${best.keep} (tuned)`, ...score(held, best.keep) },
  { on: "held out", keep: `${KEEP_SCORE} (shipped)`, ...score(held, KEEP_SCORE) },
  { on: "held out", keep: "every clause", ...score(held, -Infinity) },
];
console.log(`held out (${[...new Set(held.map((s) => s.conversation))].join(", ")}):`);
console.log(markdownTable(report));
console.log(`results: ${writeResult("extract_facts", { tuning, best: best.keep, report })}`);
