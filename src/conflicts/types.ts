/**
 * The shapes the conflict pipeline passes between its stages.
 * @module
 */

/** One side of a pair: a row of a memory. */
export interface PairSide {
  subject: string;
  text: string;
  eventTime?: string;
}

/** What the rule stage says about a pair. */
export interface PairAssessment {
  candidate: boolean;
  kind?: string;
  score: number;
  reasons: string[];
  values?: { a: string; b: string };
}

/** The rule stage. */
export type PairAssessor = (a: PairSide, b: PairSide) => PairAssessment;

/** What the NLI judge says about a pair. */
export interface JudgeVerdictLike {
  verdict: "conflict" | "no_conflict" | "possible_conflict";
  probabilities: Record<string, number>;
  modelId: string;
  thresholds: Record<string, number>;
}

/** The judge stage, when a model is installed. */
export interface PairJudge {
  judge(pairs: { a: string; b: string }[]): Promise<JudgeVerdictLike[]>;
}
