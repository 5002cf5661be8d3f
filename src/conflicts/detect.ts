/**
 * Write-time conflict detection (SPEC §8): after a memory is written, compare
 * its rows with rows of other active memories in the same scope that share
 * words with it, keep the pairs the rule stage says look like a change of
 * fact, ask the NLI judge about them when one is installed, and record a
 * conflict group plus a notice for each surviving pair. Idempotent: a pair
 * already recorded (or dismissed) is never recorded again.
 *
 * @example
 * ```ts
 * import { detectConflicts } from "./src/conflicts/detect.ts";
 * // await detectConflicts(ctx, 12, { assess: assessPair });
 * ```
 * @module
 */
import { createHash } from "node:crypto";
import { evidenceRowsFor } from "../evidence/rows.ts";
import { readClaim } from "./claims.ts";
import { type EventSide, groupValues, joinOpenEvent, noticeJoin, writtenIn } from "./events.ts";
import type { ServiceContext } from "../memory/context.ts";
import { nowIso } from "../platform/mod.ts";
import { lexicalCandidates } from "../recall/lexical.ts";
import { queryTerms } from "../recall/tokens.ts";
import type { ConflictMember, MemoryRecord, Store } from "../store/mod.ts";
import { DEFAULT_WORKSPACE } from "../workspaces/canonical.ts";
import {
  DETECT_MAX_CONTENT_CHARS,
  DETECT_MAX_NOTICES,
  DETECT_MAX_PAIRS,
  DETECT_MAX_ROWS,
  DETECT_NEIGHBOURS,
  DETECT_POSTINGS_BUDGET,
  DETECT_QUERY_TERMS,
  PREFILTER_SHARED_SHARE,
} from "./constants_pipeline.ts";
import type { JudgeVerdictLike, PairAssessment, PairAssessor, PairJudge } from "./types.ts";

/** The stages detection runs. */
export interface DetectionStages {
  assess: PairAssessor;
  judge?: PairJudge;
}

/** One content row with its offsets. */
export interface RowView {
  text: string;
  start: number | null;
  end: number | null;
}

/** The content rows of a memory's current version (stored, or cut now). */
export function rowsOf(store: Store, memory: MemoryRecord): RowView[] {
  const stored = store.rowsOfMemory(memory.id).filter((row) => row.kind !== "subject");
  const rows = stored.length > 0
    ? stored.map((row) => ({ text: row.text, start: row.startOffset, end: row.endOffset }))
    : evidenceRowsFor(memory.subject, memory.content)
      .filter((row) => row.kind !== "subject")
      .map((row) => ({ text: row.text, start: row.startOffset, end: row.endOffset }));
  return rows;
}

/** A pair worth recording. */
export interface SuspectPair {
  a: MemoryRecord;
  b: MemoryRecord;
  rowA: RowView;
  rowB: RowView;
  assessment: PairAssessment;
}

/** Stable key of a pair of rows: the same two passages are recorded once. */
export function pairKey(pair: SuspectPair): string {
  const [first, second] = pair.a.id < pair.b.id
    ? [[pair.a, pair.rowA], [pair.b, pair.rowB]] as const
    : [[pair.b, pair.rowB], [pair.a, pair.rowA]] as const;
  const digest = createHash("sha256").update(`${first[1].text}\u0000${second[1].text}`).digest(
    "hex",
  );
  return `pair:${first[0].id}:${second[0].id}:${digest.slice(0, 16)}`;
}

/** Memories in scope that share words with `memory` (its workspace plus the default pool). */
export function neighboursOf(store: Store, memory: MemoryRecord, limit: number): MemoryRecord[] {
  const workspaces = memory.workspaceCanonical === DEFAULT_WORKSPACE
    ? undefined
    : [memory.workspaceCanonical, DEFAULT_WORKSPACE];
  const found = lexicalCandidates(store, `${memory.subject} ${memory.content.slice(0, 2000)}`, {
    filters: { statuses: ["active"], workspaces },
    pool: limit + 1,
    maxTerms: DETECT_QUERY_TERMS,
    budget: DETECT_POSTINGS_BUDGET,
  });
  const records = store.getMemories(found.ids.filter((id) => id !== memory.id).slice(0, limit));
  return [...records.values()];
}

/**
 * True when two rows share at least {@linkcode PREFILTER_SHARED_SHARE} of the
 * smaller row's words (and at least one). The rule stage asks for half of the
 * shorter row's attribute words, so this looser bar drops only pairs it would drop.
 */
export function sharesEnough(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const term of small) if (large.has(term)) shared++;
  return shared >= 1 && shared >= Math.ceil(PREFILTER_SHARED_SHARE * small.size);
}

/** A row that states something, with its terms for the word-overlap pre-check. */
export interface ClaimRow {
  row: RowView;
  terms: Set<string>;
}

/**
 * The rows of a memory that are claims ({@link readClaim}): rows that state nothing
 * (questions, exclamations) can never be half of a conflict, so they are never compared.
 */
export function claimRowsOf(store: Store, memory: MemoryRecord): ClaimRow[] {
  return rowsOf(store, memory).slice(0, DETECT_MAX_ROWS)
    .filter((row) => !readClaim(row.text).notAClaim)
    .map((row) => ({ row, terms: new Set(queryTerms(row.text)) }));
}

/**
 * The best suspect pair between two memories, if the rule stage finds one. `rowsA` are
 * `a`'s claim rows when the caller already has them (one memory against many neighbours).
 */
export function bestPair(
  store: Store,
  a: MemoryRecord,
  b: MemoryRecord,
  stages: { assess: PairAssessor; budget: { pairs: number }; rowsA?: readonly ClaimRow[] },
): SuspectPair | undefined {
  let best: SuspectPair | undefined;
  const rowsB = claimRowsOf(store, b);
  if (rowsB.length === 0) return undefined;
  for (const { row: rowA, terms: termsA } of stages.rowsA ?? claimRowsOf(store, a)) {
    for (const { row: rowB, terms: termsB } of rowsB) {
      // Cheap pre-check before the rule stage: rows about the same attribute share words.
      if (!sharesEnough(termsA, termsB)) continue;
      if (stages.budget.pairs-- <= 0) return best;
      const assessment = stages.assess(
        { subject: a.subject, text: rowA.text, eventTime: a.eventTime ?? undefined },
        { subject: b.subject, text: rowB.text, eventTime: b.eventTime ?? undefined },
      );
      if (assessment.candidate && (!best || assessment.score > best.assessment.score)) {
        best = { a, b, rowA, rowB, assessment };
      }
    }
  }
  return best;
}

function member(memory: MemoryRecord, row: RowView): ConflictMember {
  return {
    memory_id: memory.id,
    version: memory.version,
    row_text: row.text,
    start_offset: row.start,
    end_offset: row.end,
  };
}

/** Records a suspect pair as a conflict group and its notice; returns the group id. */
export function recordSuspectPair(
  ctx: ServiceContext,
  pair: SuspectPair,
  options: { source: "write_time" | "scan" | "agent"; verdict?: JudgeVerdictLike },
): number | undefined {
  const key = pairKey(pair);
  const now = nowIso();
  const values = pair.assessment.values ?? { a: pair.rowA.text, b: pair.rowB.text };
  // A pair already in an event is done; one that contradicts a member of an open event joins it.
  if (ctx.store.conflicts.byKey(key) !== undefined) return undefined;
  const sides: [EventSide, EventSide] = [
    { member: member(pair.a, pair.rowA), value: writtenIn(pair.rowA.text, values.a) },
    { member: member(pair.b, pair.rowB), value: writtenIn(pair.rowB.text, values.b) },
  ];
  const event = joinOpenEvent(ctx, { key, sides }, now);
  if (event) {
    const confident = options.verdict?.verdict === "conflict";
    if (event.joined) noticeJoin(ctx, event.conflictId, event.joined, now, confident);
    return event.joined ? event.conflictId : undefined;
  }
  const conflictId = ctx.store.conflicts.insert({
    workspaceCanonical: pair.a.workspaceCanonical,
    status: "open",
    source: options.source,
    candidateKey: key,
    members: sides.map((side) => ({ ...side.member, value: side.value })),
    valueGroups: groupValues(sides.map((side) => ({
      memoryId: side.member.memory_id,
      value: side.value,
    }))),
    detection: {
      rule: {
        kind: pair.assessment.kind ?? null,
        score: pair.assessment.score,
        reasons: pair.assessment.reasons,
      },
      judge: options.verdict
        ? {
          verdict: options.verdict.verdict,
          probabilities: options.verdict.probabilities,
          model_id: options.verdict.modelId,
          thresholds: options.verdict.thresholds,
        }
        : null,
      detected_by: { agent_id: ctx.caller.agentId, client: ctx.caller.client },
    },
    createdAt: now,
  });
  if (conflictId === undefined) return undefined;
  const confident = options.verdict?.verdict === "conflict";
  ctx.store.conflicts.insertNotice({
    kind: confident ? "conflict" : "possible_conflict",
    severity: confident ? "normal" : "info",
    conflictId,
    dedupeKey: `notice:${key}`,
    title: confident
      ? `Memories ${pair.a.id} and ${pair.b.id} contradict each other`
      : `Memories ${pair.a.id} and ${pair.b.id} may disagree`,
    message:
      `"${pair.rowA.text}" (memory ${pair.a.id}) vs "${pair.rowB.text}" (memory ${pair.b.id}): ${
        pair.assessment.reasons.join("; ") || "a different value for the same fact"
      }.`,
    payload: { memory_ids: [pair.a.id, pair.b.id], values },
    createdAt: now,
  });
  return conflictId;
}

/** What one detection run found. */
export interface DetectionReport {
  memoryId: number;
  pairsChecked: number;
  suspects: number;
  recorded: number[];
}

/** Runs detection for one memory's current version. */
export async function detectConflicts(
  ctx: ServiceContext,
  memoryId: number,
  stages: DetectionStages,
): Promise<DetectionReport> {
  const { store } = ctx;
  const found = store.read(() => {
    const memory = store.getMemory(memoryId);
    if (!memory || memory.status !== "active" || memory.content.length > DETECT_MAX_CONTENT_CHARS) {
      return { suspects: [], checked: 0 };
    }
    // A memory that claims nothing (chat: questions, exclamations, greetings) cannot
    // contradict anything: no neighbour search at all.
    const claims = claimRowsOf(store, memory);
    if (claims.length === 0) return { suspects: [], checked: 0 };
    const budget = { pairs: DETECT_MAX_PAIRS };
    const suspects: SuspectPair[] = [];
    const query = { ...memory, content: claims.map(({ row }) => row.text).join("\n") };
    for (const neighbour of neighboursOf(store, query, DETECT_NEIGHBOURS)) {
      const pair = bestPair(store, memory, neighbour, {
        assess: stages.assess,
        budget,
        rowsA: claims,
      });
      if (pair) suspects.push(pair);
      if (budget.pairs <= 0) break;
    }
    suspects.sort((x, y) => y.assessment.score - x.assessment.score);
    return {
      suspects: suspects.slice(0, DETECT_MAX_NOTICES),
      checked: DETECT_MAX_PAIRS - budget.pairs,
    };
  });
  let verdicts: (JudgeVerdictLike | undefined)[] = found.suspects.map(() => undefined);
  if (stages.judge && found.suspects.length > 0) {
    verdicts = await stages.judge.judge(
      found.suspects.map((pair) => ({ a: pair.rowA.text, b: pair.rowB.text })),
    );
  }
  const recorded: number[] = [];
  // Most writes have no suspect: no transaction (and no fsync) for them.
  if (found.suspects.length === 0) {
    return { memoryId, pairsChecked: found.checked, suspects: 0, recorded };
  }
  await store.write(() => {
    found.suspects.forEach((pair, index) => {
      const verdict = verdicts[index];
      if (verdict?.verdict === "no_conflict") return;
      // The memory may have changed while the judge ran: only current versions are recorded.
      const a = store.getMemory(pair.a.id);
      const b = store.getMemory(pair.b.id);
      if (a?.version !== pair.a.version || b?.version !== pair.b.version) return;
      const id = recordSuspectPair(ctx, pair, { source: "write_time", verdict });
      if (id !== undefined) recorded.push(id);
    });
  });
  return { memoryId, pairsChecked: found.checked, suspects: found.suspects.length, recorded };
}
