/**
 * The LoCoMo evidence-recall data set and its scoring, shared by the LoCoMo benchmarks: every
 * dialogue turn is one stored item; a question's recall@k is the share of its evidence turns
 * among the top k answers, MRR uses the rank of the first evidence turn.
 *
 * @example
 * ```ts
 * import { loadLocomo, scoreRanking } from "./bench/helpers/locomo.ts";
 * const conversations = loadLocomo("/work/shared/bench/locomo/locomo-dev.json");
 * scoreRanking(["D1:3", "D2:1"], new Set(["D2:1"]), "single-hop"); // {r5: 1, r10: 1, rr: 0.5}
 * ```
 * @module
 */
import { ROOT } from "./stats.ts";
import { MONTHS } from "../../src/recall/dates.ts";

/** One dialogue turn. */
export interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

/** One question with its evidence turn ids. */
export interface Question {
  question: string;
  evidence: string[];
  category: number;
}

/** One conversation of the data set. */
export interface Conversation {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Question[];
}

/** A turn with its session number and time. */
export interface SessionTurn {
  turn: Turn;
  session: number;
  time?: string;
  /** The text stored for the turn (speaker, words, shared photo caption). */
  content: string;
  diaId: string;
}

/** LoCoMo's categories; 5 (adversarial) has no evidence and is skipped. */
export const CATEGORY: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
};

/** Where the dev split lives in the shared folder. */
export const LOCOMO_DEV = `${ROOT}/../shared/bench/locomo/locomo-dev.json`;

/** Reads the data set. */
export function loadLocomo(path: string): Conversation[] {
  return JSON.parse(Deno.readTextFileSync(path)) as Conversation[];
}

/** "1:56 pm on 8 May, 2023" → ISO, or undefined. */
export function sessionTime(text: string): string | undefined {
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})/i.exec(text);
  if (!match) return undefined;
  let hour = Number(match[1]) % 12;
  if (match[3].toLowerCase() === "pm") hour += 12;
  const month = MONTHS.indexOf(match[5].toLowerCase());
  if (month < 0) return undefined;
  return new Date(Date.UTC(Number(match[6]), month, Number(match[4]), hour, Number(match[2])))
    .toISOString();
}

/** Evidence ids are sometimes malformed ("D:11:26", "D30:05"): normalize to "D<s>:<t>". */
export function normalizeDiaId(id: string): string {
  const numbers = id.match(/\d+/g);
  if (!numbers || numbers.length < 2) return id.trim();
  return `D${Number(numbers[0])}:${Number(numbers[1])}`;
}

/** Every turn of a conversation in order, with the text to store. */
export function sessionTurns(conversation: Conversation): SessionTurn[] {
  const out: SessionTurn[] = [];
  const c = conversation.conversation;
  for (let session = 1; Array.isArray(c[`session_${session}`]); session++) {
    const time = sessionTime(String(c[`session_${session}_date_time`] ?? ""));
    for (const turn of c[`session_${session}`] as Turn[]) {
      const content = turn.blip_caption
        ? `${turn.speaker}: ${turn.text} [shared a photo: ${turn.blip_caption}]`
        : `${turn.speaker}: ${turn.text}`;
      out.push({ turn, session, time, content, diaId: normalizeDiaId(turn.dia_id) });
    }
  }
  return out;
}

/** The questions that are scored: known category and at least one evidence turn. */
export function scoredQuestions(
  conversation: Conversation,
): { question: Question; category: string; evidence: Set<string> }[] {
  return conversation.qa.flatMap((question) => {
    const category = CATEGORY[question.category];
    const evidence = new Set(question.evidence.map(normalizeDiaId));
    return category && evidence.size > 0 ? [{ question, category, evidence }] : [];
  });
}

/** One question's score. */
export interface QuestionScore {
  category: string;
  r5: number;
  r10: number;
  rr: number;
}

/** Scores a ranking of turn ids (best first; undefined for answers that are not turns). */
export function scoreRanking(
  ranked: readonly (string | undefined)[],
  evidence: ReadonlySet<string>,
  category: string,
): QuestionScore {
  const hitsAt = (k: number) =>
    ranked.slice(0, k).filter((id) => id !== undefined && evidence.has(id)).length;
  const first = ranked.findIndex((id) => id !== undefined && evidence.has(id));
  return {
    category,
    r5: hitsAt(5) / evidence.size,
    r10: hitsAt(10) / evidence.size,
    rr: first < 0 ? 0 : 1 / (first + 1),
  };
}

/** Per-category means, "overall" first. */
export function scoreTable(
  scores: readonly QuestionScore[],
): { category: string; n: number; recall_at_5: number; recall_at_10: number; mrr: number }[] {
  const groups = new Map<string, QuestionScore[]>([["overall", [...scores]]]);
  for (const score of scores) {
    groups.set(score.category, [...(groups.get(score.category) ?? []), score]);
  }
  const mean = (list: QuestionScore[], key: "r5" | "r10" | "rr") =>
    Number((list.reduce((sum, s) => sum + s[key], 0) / Math.max(1, list.length)).toFixed(4));
  return [...groups].map(([category, list]) => ({
    category,
    n: list.length,
    recall_at_5: mean(list, "r5"),
    recall_at_10: mean(list, "r10"),
    mrr: mean(list, "rr"),
  }));
}
