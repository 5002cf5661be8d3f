/**
 * Write-time conflict detection (docs/SPEC.md §8): after a memory is written, compare
 * its rows with rows of other active memories in the same scope that share
 * words with it, keep the pairs the rule stage says look like a change of
 * fact, ask the NLI judge about them when one is installed, and record a
 * conflict group plus a notice for each surviving pair. Idempotent: a pair
 * already recorded (or dismissed) is never recorded again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberMemory } from "../memory/remember.ts";
 * import { detectConflicts } from "./detect.ts";
 * import { defaultStages } from "./stages.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * await rememberMemory(ctx, {
 *   content: "The Atlas deadline is Friday.",
 *   subject: "atlas deadline",
 *   workspace: "atlas",
 * });
 * const { memoryId } = await rememberMemory(ctx, {
 *   content: "The Atlas deadline moved to Monday.",
 *   subject: "atlas deadline",
 *   workspace: "atlas",
 * });
 * const report = await detectConflicts(ctx, memoryId, defaultStages());
 * assert.equal(report.recorded.length, 1);
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { createHash } from "node:crypto";
import { evidenceRowsFor } from "../evidence/rows.ts";
import { markupSpans, readClaim } from "./claims.ts";
import { differentDocuments } from "./documents.ts";
import { noticeVectorDuplicate } from "./duplicates.ts";
import { writeBackEvents } from "./event_writes.ts";
import { type EventSide, groupValues, joinOpenEvent, noticeJoin, writtenIn } from "./events.ts";
import type { ServiceContext } from "../core/context.ts";
import { nowIso } from "../platform/clock.ts";
import { sharedWordCandidates } from "../recall/lexical.ts";
import { queryTerms } from "../recall/query_terms.ts";
import type {
  ConflictMember,
  ConflictTables,
  EvidenceRowRecord,
  MemoryRecord,
  Store,
} from "../store/mod.ts";
import { DEFAULT_WORKSPACE } from "../core/workspace_names.ts";
import {
  CONFLICT_TABLES_KEY,
  DETECT_JUDGE_MIN_SHARED_SHARE,
  DETECT_JUDGE_MIN_SIMILARITY,
  DETECT_MAX_CONTENT_CHARS,
  DETECT_MAX_JUDGE_ONLY_PAIRS,
  DETECT_MAX_NOTICES,
  DETECT_MAX_PAIRS,
  DETECT_MAX_ROWS,
  DETECT_NEIGHBOURS,
  DETECT_POSTINGS_BUDGET,
  DETECT_QUERY_TERMS,
  DETECT_VECTOR_NEIGHBOURS,
  PREFILTER_SHARED_SHARE,
} from "./constants_pipeline.ts";
import type { JudgeVerdictLike, PairAssessment, PairAssessor, PairJudge } from "./types.ts";

/** The stages detection runs. */
export interface DetectionStages {
  assess: PairAssessor;
  judge?: PairJudge;
  /** Neighbours by meaning, when an embedding model is set up and its index searchable. */
  vectors?: VectorNeighbours;
}

/** A memory near a text by meaning. */
export interface VectorNeighbour {
  memoryId: number;
  /** Cosine of its nearest row, scaled so the model's relevance floor is 0 and 1 is 1. */
  similarity: number;
}

/** The vector side of neighbour search (src/conflicts/neighbours.ts wraps the semantic index). */
export interface VectorNeighbours {
  /** Active memories in `workspaces` near `text`, best first; [] when the index cannot answer. */
  near(text: string, workspaces: string[] | undefined): Promise<VectorNeighbour[]>;
  /** False when `near` cannot answer now (no embedding model): the check then skips it. */
  searchable?(): Promise<boolean>;
}

/** One content row with its offsets. */
export interface RowView {
  text: string;
  start: number | null;
  end: number | null;
  /** What the segmenter cut it as (`sentence`, `heading`, `table_row`), when known. */
  kind?: string;
}

/** The content rows of a memory's current version (stored, or cut now). */
export async function rowsOf(store: Store, memory: MemoryRecord): Promise<RowView[]> {
  return rowViews(memory, await store.rowsOfMemory(memory.id));
}

/** A memory's content rows from its stored evidence rows, or cut now when none are stored. */
function rowViews(memory: MemoryRecord, stored: readonly EvidenceRowRecord[]): RowView[] {
  const content = stored.filter((row) => row.kind !== "subject");
  const rows = content.length > 0
    ? content
    : evidenceRowsFor(memory.subject, memory.content).filter((row) => row.kind !== "subject");
  return rows.map((row) => ({
    text: row.text,
    start: row.startOffset,
    end: row.endOffset,
    kind: row.kind,
  }));
}

/** A pair worth recording. */
export interface SuspectPair {
  a: MemoryRecord;
  b: MemoryRecord;
  rowA: RowView;
  rowB: RowView;
  assessment: PairAssessment;
  /** Not flagged by the rules: sent to the judge as a close neighbour. */
  judgeOnly?: boolean;
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

/** The workspaces a memory is compared within: its own plus the default pool. */
export function scopeOf(memory: MemoryRecord): string[] | undefined {
  return memory.workspaceCanonical === DEFAULT_WORKSPACE
    ? undefined
    : [memory.workspaceCanonical, DEFAULT_WORKSPACE];
}

/** Memories in scope that share words with `memory` (its workspace plus the default pool). */
export async function neighboursOf(
  store: Store,
  memory: MemoryRecord,
  limit: number,
  snapshot?: Map<number, MemoryRecord>,
): Promise<MemoryRecord[]> {
  const workspaces = scopeOf(memory);
  const found = await sharedWordCandidates(
    store,
    `${memory.subject} ${memory.content.slice(0, 2000)}`,
    {
      filters: { statuses: ["active"], workspaces },
      pool: limit + 1,
      maxTerms: DETECT_QUERY_TERMS,
      budget: DETECT_POSTINGS_BUDGET,
    },
  );
  const ids = found.filter((id) => id !== memory.id).slice(0, limit);
  if (snapshot === undefined) return [...(await store.getMemories(ids)).values()];
  // Records read earlier in the same snapshot are the rows as they are now.
  const missing = ids.filter((id) => !snapshot.has(id));
  if (missing.length > 0) {
    for (const [id, record] of await store.getMemories(missing)) snapshot.set(id, record);
  }
  return ids.flatMap((id) => snapshot.get(id) ?? []);
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
 * A row the segmenter cut from markup: a heading (stored without its "#", so the line test in
 * `claims.ts` cannot see it: "Example for SOCKS 'bind' command" / "… 'connect' command" in two
 * files of one package read as one attribute with two values), a chunk of fenced code (a
 * comment line in it reads as a sentence) or of an HTML comment.
 */
function markupRow(row: RowView, code: readonly (readonly [number, number])[]): boolean {
  if (row.kind === "heading") return true;
  const start = row.start;
  return start !== null && code.some(([from, to]) => start >= from && start < to);
}

/**
 * The rows of a memory that are claims ({@link readClaim}): rows that state nothing
 * (questions, exclamations) can never be half of a conflict, so they are never compared.
 */
export async function claimRowsOf(
  store: Store,
  memory: MemoryRecord,
  memo?: DetectionMemo,
): Promise<ClaimRow[]> {
  const key = claimsKey(memory);
  const known = memo?.claims.get(key);
  if (known) return known;
  const claims = claimsAmong(memory, await rowsOf(store, memory));
  memo?.claims.set(key, claims);
  return claims;
}

function claimsKey(memory: MemoryRecord): string {
  return `${memory.id}:v${memory.version}`;
}

/** The claims among a memory's rows, with their terms. */
function claimsAmong(memory: MemoryRecord, rows: readonly RowView[]): ClaimRow[] {
  const code = markupSpans(memory.content);
  return rows.slice(0, DETECT_MAX_ROWS)
    .filter((row) => !markupRow(row, code) && !readClaim(row.text).notAClaim)
    .map((row) => ({ row, terms: new Set(queryTerms(row.text)) }));
}

/**
 * Reads the claim rows of `memories` not in `memo` yet with one store call (a check compares
 * its memory with up to a dozen neighbours: on PostgreSQL one round trip instead of one each).
 */
export async function readClaimRows(
  store: Store,
  memories: readonly MemoryRecord[],
  memo: DetectionMemo,
): Promise<void> {
  const missing = memories.filter((memory) => !memo.claims.has(claimsKey(memory)));
  if (missing.length === 0) return;
  const stored = await store.rowsOfMemories(missing.map((memory) => memory.id));
  for (const memory of missing) {
    memo.claims.set(
      claimsKey(memory),
      claimsAmong(memory, rowViews(memory, stored.get(memory.id) ?? [])),
    );
  }
}

/**
 * What the checks of many memories share (the planned check of an import's batches,
 * batch_check.ts): each memory version's claim rows, and the pairs of versions already compared
 * that gave no suspect, so the second memory of a pair that finds the first does not compare
 * them again. Both are facts of immutable versions; the owner bounds them.
 */
export interface DetectionMemo {
  claims: Map<string, ClaimRow[]>;
  /** Keys of {@link comparedKey}: compared, either way round, with no suspect and no judge pair. */
  quiet: Map<string, true>;
  /**
   * Records read in the read (one snapshot) the checks run in now, by id: set by a planned run
   * for each slice of checks that share one read (alike memories have the same neighbours), and
   * dropped when the read ends.
   */
  snapshot?: Map<number, MemoryRecord>;
}

/** The key of two memory versions compared, the same either way round. */
export function comparedKey(a: MemoryRecord, b: MemoryRecord): string {
  const [first, second] = a.id < b.id ? [a, b] : [b, a];
  return `${first.id}:v${first.version}|${second.id}:v${second.version}`;
}

/**
 * The best suspect pair between two memories, if the rule stage finds one. `rowsA` are
 * `a`'s claim rows when the caller already has them (one memory against many neighbours).
 */
export async function bestPair(
  store: Store,
  a: MemoryRecord,
  b: MemoryRecord,
  stages: {
    assess: PairAssessor;
    budget: { pairs: number };
    rowsA?: readonly ClaimRow[];
    memo?: DetectionMemo;
  },
): Promise<SuspectPair | undefined> {
  let best: SuspectPair | undefined;
  // Each sentence of a document is about the document's topic: two documents about different
  // things (two packages' READMEs) hold no claim about one thing.
  if (differentDocuments(a, b)) return undefined;
  const rowsB = await claimRowsOf(store, b, stages.memo);
  if (rowsB.length === 0) return undefined;
  const rowsA = stages.rowsA ?? await claimRowsOf(store, a);
  let stated: { a: Set<string>; b: Set<string> } | undefined;
  for (const { row: rowA, terms: termsA } of rowsA) {
    for (const { row: rowB, terms: termsB } of rowsB) {
      // The same sentence told at the same time states one fact, whatever else the memories say
      // (the rule stage read some of them as two time windows: "staffed in the morning, 8:00 to
      // 12:00" twice). A library of repeated conversations is mostly such pairs.
      if (rowA.text === rowB.text && a.eventTime === b.eventTime) continue;
      // Cheap pre-check before the rule stage: rows about the same attribute share words.
      if (!sharesEnough(termsA, termsB)) continue;
      if (stages.budget.pairs-- <= 0) return best;
      const assessment = stages.assess(
        { subject: a.subject, text: rowA.text, eventTime: a.eventTime ?? undefined },
        { subject: b.subject, text: rowB.text, eventTime: b.eventTime ?? undefined },
      );
      if (assessment.candidate && (!best || assessment.score > best.assessment.score)) {
        // A memory that states both rows holds them as two facts, not two values of one: two
        // versions of a README each define "v4-in-v6" and "6to4", and the one line of each
        // compared with the other line of the other is no disagreement between them.
        stated ??= { a: statedTexts(rowsA), b: statedTexts(rowsB) };
        if (stated.a.has(sameText(rowB.text)) || stated.b.has(sameText(rowA.text))) continue;
        best = { a, b, rowA, rowB, assessment };
      }
    }
  }
  return best;
}

/** A row's text as a sentence, whatever its line breaks and indentation (rewrapped versions). */
function sameText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function statedTexts(rows: readonly ClaimRow[]): Set<string> {
  return new Set(rows.map(({ row }) => sameText(row.text)));
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
export async function recordSuspectPair(
  ctx: ServiceContext,
  pair: SuspectPair,
  options: {
    source: "write_time" | "scan" | "agent";
    verdict?: JudgeVerdictLike;
    /** The unit's conflict tables, when it writes its joins at its end (event_writes.ts). */
    tables?: ConflictTables;
  },
): Promise<number | undefined> {
  const key = pairKey(pair);
  const now = nowIso();
  const values = pair.assessment.values ?? { a: pair.rowA.text, b: pair.rowB.text };
  // A pair already in an event is done; one that contradicts a member of an open event joins it.
  if (await ctx.store.conflicts.byKey(key) !== undefined) return undefined;
  const sides: [EventSide, EventSide] = [
    { member: member(pair.a, pair.rowA), value: writtenIn(pair.rowA.text, values.a) },
    { member: member(pair.b, pair.rowB), value: writtenIn(pair.rowB.text, values.b) },
  ];
  const event = await joinOpenEvent(ctx, { key, sides }, now, options.tables);
  if (event) {
    const confident = options.verdict?.verdict === "conflict";
    if (event.joined) await noticeJoin(ctx, event.conflictId, event.joined, now, confident);
    return event.joined ? event.conflictId : undefined;
  }
  const conflictId = await ctx.store.conflicts.insert({
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
  await ctx.store.conflicts.insertNotice({
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

/**
 * The row pair of two memories that says the most alike, for the judge: the pair sharing the
 * largest share of the shorter row's terms. Undefined when no pair shares enough
 * ({@linkcode sharesEnough}) and the memories are not near by meaning either.
 */
async function closestRows(
  store: Store,
  a: MemoryRecord,
  b: MemoryRecord,
  rowsA: readonly ClaimRow[],
  nearByMeaning: boolean,
  memo?: DetectionMemo,
): Promise<SuspectPair | undefined> {
  let best: { pair: SuspectPair; share: number } | undefined;
  for (const { row: rowB, terms: termsB } of await claimRowsOf(store, b, memo)) {
    for (const { row: rowA, terms: termsA } of rowsA) {
      const [small, large] = termsA.size <= termsB.size ? [termsA, termsB] : [termsB, termsA];
      let shared = 0;
      for (const term of small) if (large.has(term)) shared++;
      const share = shared / Math.max(1, small.size);
      if (!nearByMeaning && share < DETECT_JUDGE_MIN_SHARED_SHARE) continue;
      if (!best || share > best.share) {
        const assessment: PairAssessment = {
          candidate: false,
          score: 0,
          reasons: ["a close neighbour the rule stage did not flag, sent to the judge"],
        };
        best = { pair: { a, b, rowA, rowB, assessment, judgeOnly: true }, share };
      }
    }
  }
  return best?.pair;
}

/** The suspect pairs one memory's check found, before the judge and before recording. */
export interface CheckFindings {
  memoryId: number;
  suspects: SuspectPair[];
  /** Row pairs the rule stage assessed. */
  checked: number;
  /** {@link comparedKey}s of neighbours compared with no suspect (for a {@link DetectionMemo}). */
  quiet: string[];
}

/**
 * A memory as stored now, through the store's record cache (shared, frozen): a planned check
 * reads its memory twice or three times (the batch's currency test, then the check's reads), one
 * query at most.
 */
export async function currentRecord(
  store: Store,
  memoryId: number,
): Promise<MemoryRecord | undefined> {
  return (await store.getMemories([memoryId])).get(memoryId);
}

/**
 * The read half of a check of `target` (a memory id, or its record as the caller just read it):
 * the memory's claim rows, its neighbours (by words, and by meaning
 * when `stages.vectors` is set), and the pairs the rule stage flags. With a `memo`, claim rows
 * read before are reused and a neighbour already compared from its side without a suspect is
 * skipped (the rule stage reads a pair the same either way round).
 */
export async function findSuspects(
  ctx: ServiceContext,
  target: number | MemoryRecord,
  stages: DetectionStages,
  memo?: DetectionMemo,
): Promise<CheckFindings> {
  const { store } = ctx;
  const memoryId = typeof target === "number" ? target : target.id;
  const none = { memoryId, suspects: [], checked: 0, quiet: [] };
  const opening = async () => {
    // A record the caller has just read (a planned check reads its members a window at a
    // time): recording re-reads both memories' versions, so one read a little earlier finds
    // what one read now would.
    const memory = typeof target === "number" ? await currentRecord(store, memoryId) : target;
    if (!memory || memory.status !== "active" || memory.content.length > DETECT_MAX_CONTENT_CHARS) {
      return undefined;
    }
    // A memory that claims nothing (chat: questions, exclamations, greetings) cannot
    // contradict anything: no neighbour search at all.
    const claims = await claimRowsOf(store, memory, memo);
    return claims.length === 0 ? undefined : { memory, claims };
  };
  const vectors = stages.vectors && (await stages.vectors.searchable?.() ?? true)
    ? stages.vectors
    : undefined;
  if (!vectors) {
    // Nothing to embed between the reads: one snapshot for the whole check.
    return await store.read(async () => {
      const start = await opening();
      return start ? await compareNeighbours(store, start, { stages, near: [], memo }) : none;
    });
  }
  const start = await store.read(opening);
  if (!start) return none;
  const claimText = start.claims.map(({ row }) => row.text).join("\n");
  // Neighbours by meaning find rewordings that share few words ("stores its data in MySQL" /
  // "was migrated off MySQL"); the embedding runs outside any read so the store stays free.
  const near = (await vectors.near(claimText, scopeOf(start.memory)))
    .filter((hit) => hit.memoryId !== memoryId).slice(0, DETECT_VECTOR_NEIGHBOURS);
  // The same lookup finds a fact repeated in other words (remember's hint sees shared words only).
  await noticeVectorDuplicate(ctx, start.memory, near);
  return await store.read(async () => {
    const memory = await currentRecord(store, memoryId);
    if (!memory || memory.version !== start.memory.version || memory.status !== "active") {
      return none;
    }
    return await compareNeighbours(store, { memory, claims: start.claims }, { stages, near, memo });
  });
}

/**
 * The rest of {@linkcode findSuspects}, inside its read: the memory's neighbours by words (and
 * `near`, by meaning), each compared with it by the rule stage (and picked for the judge).
 */
async function compareNeighbours(
  store: Store,
  start: { memory: MemoryRecord; claims: ClaimRow[] },
  options: { stages: DetectionStages; near: readonly VectorNeighbour[]; memo?: DetectionMemo },
): Promise<CheckFindings> {
  const { memory, claims } = start;
  const { stages, near, memo } = options;
  const claimText = claims.map(({ row }) => row.text).join("\n");
  const budget = { pairs: DETECT_MAX_PAIRS };
  const suspects: SuspectPair[] = [];
  const judgeOnly: SuspectPair[] = [];
  const quiet: string[] = [];
  const query = { ...memory, content: claimText };
  const lexical = await neighboursOf(store, query, DETECT_NEIGHBOURS, memo?.snapshot);
  const similarity = new Map(near.map((hit) => [hit.memoryId, hit.similarity]));
  const seen = new Set(lexical.map((neighbour) => neighbour.id));
  const byMeaning = near.length === 0 ? [] : [
    ...(await store.getMemories(near.map((hit) => hit.memoryId).filter((id) => !seen.has(id))))
      .values(),
  ].filter((neighbour) => neighbour.status === "active");
  const neighbours = [...lexical, ...byMeaning];
  // Claim rows read once for every neighbour not compared before (a check without a memo
  // keeps them for itself).
  const rows = memo ?? { claims: new Map(), quiet: new Map() };
  const unseen = memo
    ? neighbours.filter((neighbour) => !memo.quiet.has(comparedKey(memory, neighbour)))
    : neighbours;
  await readClaimRows(store, unseen, rows);
  for (const neighbour of unseen) {
    const compared = comparedKey(memory, neighbour);
    const pair = await bestPair(store, memory, neighbour, {
      assess: stages.assess,
      budget,
      rowsA: claims,
      memo: rows,
    });
    let candidate: SuspectPair | undefined;
    if (pair) suspects.push(pair);
    else if (stages.judge) {
      // With a judge, every close neighbour is judged, not only what the rules flag: the
      // rules are tuned for precision offline and miss rewordings a model reads.
      const close = (similarity.get(neighbour.id) ?? 0) >= DETECT_JUDGE_MIN_SIMILARITY;
      candidate = await closestRows(store, memory, neighbour, claims, close, rows);
      if (candidate) judgeOnly.push(candidate);
    }
    // A pair cut short by the budget was not fully compared.
    if (!pair && !candidate && budget.pairs > 0) quiet.push(compared);
    if (budget.pairs <= 0) break;
  }
  suspects.sort((x, y) => y.assessment.score - x.assessment.score);
  return {
    memoryId: memory.id,
    suspects: [
      ...suspects.slice(0, DETECT_MAX_NOTICES),
      ...judgeOnly.slice(0, DETECT_MAX_JUDGE_ONLY_PAIRS),
    ],
    checked: DETECT_MAX_PAIRS - budget.pairs,
    quiet,
  };
}

/** The judge's verdict on each suspect (undefined each without a judge). */
export async function judgeSuspects(
  stages: DetectionStages,
  suspects: readonly SuspectPair[],
): Promise<(JudgeVerdictLike | undefined)[]> {
  if (!stages.judge || suspects.length === 0) return suspects.map(() => undefined);
  return await stages.judge.judge(
    suspects.map((pair) => ({ a: pair.rowA.text, b: pair.rowB.text })),
  );
}

/**
 * The write half of a check (call inside a unit of work): records each suspect the judge did
 * not clear, when both memories are still at the versions compared; returns the groups opened
 * or joined.
 */
export async function recordFindings(
  ctx: ServiceContext,
  suspects: readonly SuspectPair[],
  verdicts: readonly (JudgeVerdictLike | undefined)[],
): Promise<number[]> {
  const { store } = ctx;
  const recorded: number[] = [];
  // A check's unit runs beside remembers (`concurrent`); units that record conflict groups and
  // their notices run one at a time among themselves, so a pair is recorded once and an open
  // group is joined by one of them at a time. A memory's version cannot change meanwhile:
  // update, retire and merge run alone.
  if (suspects.length === 0) return recorded;
  await store.claimKeys([CONFLICT_TABLES_KEY]);
  // Versions read once in the unit (a run's suspects share memories), and the events joined
  // written once at its end.
  const versions = new Map<number, number | undefined>();
  const versionOf = async (id: number) => {
    if (!versions.has(id)) versions.set(id, (await store.getMemory(id))?.version);
    return versions.get(id);
  };
  const events = writeBackEvents(store.conflicts);
  for (const [index, pair] of suspects.entries()) {
    const verdict = verdicts[index];
    if (verdict?.verdict === "no_conflict") continue;
    // A pair only the judge looked at needs the judge's word to be recorded.
    if (pair.judgeOnly && verdict === undefined) continue;
    // The memory may have changed while the judge ran: only current versions are recorded.
    if (
      await versionOf(pair.a.id) !== pair.a.version ||
      await versionOf(pair.b.id) !== pair.b.version
    ) continue;
    const id = await recordSuspectPair(ctx, pair, {
      source: "write_time",
      verdict,
      tables: events.tables,
    });
    if (id !== undefined) recorded.push(id);
  }
  await events.flush();
  return recorded;
}

/**
 * Runs detection for one memory's current version. With a `memo` (the job worker's, shared
 * with the planned checks of batch_check.ts), claim rows read by earlier checks are reused and
 * a pair of versions an earlier check compared without a suspect is not compared again: the
 * checks of one conversation's turns meet the same neighbours.
 */
export async function detectConflicts(
  ctx: ServiceContext,
  memoryId: number,
  stages: DetectionStages,
  memo?: DetectionMemo,
): Promise<DetectionReport> {
  const found = await findSuspects(ctx, memoryId, stages, memo);
  const report = {
    memoryId,
    pairsChecked: found.checked,
    suspects: found.suspects.length,
    recorded: [] as number[],
  };
  // Most writes have no suspect: no transaction (and no fsync) for them.
  if (found.suspects.length === 0) {
    rememberQuiet(memo, found);
    return report;
  }
  const verdicts = await judgeSuspects(stages, found.suspects);
  // Findings of a queued check: a power cut that loses them loses the job's completion
  // too (WAL keeps commit order), so the check runs again.
  report.recorded = await ctx.store.write(
    async () => await recordFindings(ctx, found.suspects, verdicts),
    { durable: false, concurrent: true },
  );
  rememberQuiet(memo, found);
  return report;
}

/** Keeps the pairs a check compared without a suspect, once what it found is committed. */
function rememberQuiet(memo: DetectionMemo | undefined, found: CheckFindings): void {
  for (const key of found.quiet) memo?.quiet.set(key, true);
}
