/**
 * Keeps every tool answer under {@linkcode ANSWER_MAX_BYTES} (serialized, both
 * copies together), the one policy for stdio and HTTP: an answer that would
 * pass it is cut where the content is, and says how to read the rest.
 *
 * - A single memory's `content` (`read`) becomes a page: `span` with
 *   `span.end < span.total_chars`, `truncated: true`, and
 *   `next: {tool: "memory", action: "read", data: {memory_id, span}}` for the
 *   rest. Pages never end inside a surrogate pair, so the pages put together are
 *   the content exactly.
 * - A list of memories (`batch_read` `memories`, `find` / `batch_find`
 *   `results`) keeps each content whole while it fits, in order; the others
 *   drop `content` for `content_omitted: true`, keep `content_chars`, and carry
 *   the `next` call that reads them. The answer lists those ids in
 *   `read_separately`.
 * - Earlier versions (`read` with `include_history`) come after the current
 *   content and are dropped the same way, without a `next`: no call reads one
 *   earlier version alone (the `memory_review` history view returns them all).
 * - Whatever still does not fit (a view with no content to cut) becomes a
 *   `resource_limit_exceeded` error: never a line the client cannot read.
 *
 * Every cut adds `truncated: true` to `data` and a warning saying why.
 *
 * @example
 * ```ts
 * import { fitAnswer } from "./answer_budget.ts";
 * import assert from "node:assert/strict";
 * const envelope = {
 *   ok: true, mode: "lexical" as const, degraded: false, warnings: [],
 *   data: { memory_id: 1, content_chars: 10_000, content: "x".repeat(10_000) },
 * };
 * const fitted = fitAnswer(envelope, {
 *   maxBytes: 4_000,
 *   measure: (answer: unknown) => JSON.stringify(answer).length * 2,
 * });
 * assert.equal(fitted.data.truncated, true);
 * ```
 * @module
 */
import { estimateTokens } from "../recall/size.ts";
import { answerCost, fittingEnd } from "./answer_bytes.ts";
import { ANSWER_MAX_BYTES } from "./answer_constants.ts";
import type { Envelope } from "./envelope.ts";

/** Options for {@linkcode fitAnswer}. */
export interface FitOptions {
  /** Largest answer in bytes; default {@linkcode ANSWER_MAX_BYTES}. */
  maxBytes?: number;
  /** The serialized size of the whole answer an envelope becomes, in bytes. */
  measure: (envelope: Envelope) => number;
}

type Item = Record<string, unknown>;

/** One content the answer may cut, in the order contents keep their place. */
interface Slot {
  holder: Item;
  content: string;
  /** A read page (cut to a prefix) rather than a list item (kept whole or dropped). */
  pageable: boolean;
  /** An earlier version (read with include_history): no call reads it alone, so no `next`. */
  history?: boolean;
  /** The call that reads this content when it is dropped. */
  next?: Item;
  memoryId: number;
}

/**
 * Bytes kept back from the room a cut computes: the page's numbers are
 * measured at their widest, but a span that starts inside a surrogate pair
 * costs a few bytes the per-character count does not see.
 */
const CUT_SLACK_BYTES = 1024;

/** `{start, end}` of a span object, or undefined. */
function spanOf(item: Item): { start: number; end: number; total: number } | undefined {
  const span = item.span as { start?: unknown; end?: unknown; total_chars?: unknown } | undefined;
  if (
    !span || typeof span.start !== "number" || typeof span.end !== "number" ||
    typeof span.total_chars !== "number"
  ) return undefined;
  return { start: span.start, end: span.end, total: span.total_chars };
}

/** The `next` call that reads a memory, or a span of it (the shape every answer uses). */
export function readCall(memoryId: number, span?: { start: number; end: number }): Item {
  return {
    tool: "memory",
    action: "read",
    data: span ? { memory_id: memoryId, span } : { memory_id: memoryId },
  };
}

/** Every content of `data` the budget may cut, in the order they keep their place. */
function slotsOf(data: Item): Slot[] {
  const slots: Slot[] = [];
  if (typeof data.content === "string" && typeof data.memory_id === "number") {
    slots.push({
      holder: data,
      content: data.content,
      pageable: true,
      memoryId: data.memory_id,
    });
  }
  for (const key of ["memories", "results"]) {
    const list = data[key];
    if (!Array.isArray(list)) continue;
    list.forEach((item: Item, index) => {
      if (typeof item?.content !== "string" || typeof item.memory_id !== "number") return;
      const span = spanOf(item);
      const copy = { ...item };
      list[index] = copy;
      slots.push({
        holder: copy,
        content: item.content,
        pageable: false,
        next: readCall(item.memory_id, span && { start: span.start, end: span.end }),
        memoryId: item.memory_id,
      });
    });
  }
  if (Array.isArray(data.history) && typeof data.memory_id === "number") {
    const memoryId = data.memory_id;
    const history = data.history as Item[];
    history.forEach((entry, index) => {
      if (typeof entry?.content !== "string") return;
      const copy = { ...entry };
      history[index] = copy;
      slots.push({
        holder: copy,
        content: entry.content,
        pageable: false,
        memoryId,
        history: true,
      });
    });
  }
  return slots;
}

/** A copy of `data` whose lists are copies too, so slots can be edited in place. */
function copyData(data: Item): Item {
  const copy: Item = { ...data };
  for (const key of ["memories", "results", "history"]) {
    if (Array.isArray(copy[key])) copy[key] = [...copy[key] as unknown[]];
  }
  return copy;
}

/** Marks a dropped list content: its length stays, the call that reads it is given. */
function omit(slot: Slot): void {
  delete slot.holder.content;
  slot.holder.content_chars = slot.content.length;
  slot.holder.content_omitted = true;
  if (slot.next) slot.holder.next = slot.next;
}

function keep(slot: Slot): void {
  slot.holder.content = slot.content;
  delete slot.holder.content_omitted;
  delete slot.holder.next;
}

/** The read page `[from, from + length)` of a content whose span is `within`. */
function page(
  slot: Slot,
  within: { start: number; end: number; total: number },
  length: number,
): void {
  const end = within.start + length;
  slot.holder.content = slot.content.slice(0, length);
  slot.holder.span = { start: within.start, end, total_chars: within.total };
  slot.holder.truncated = true;
  slot.holder.next = readCall(slot.memoryId, { start: end, end: within.end });
}

/** Lowers a recall page's `size` block by what was dropped from it. */
function shrinkSize(data: Item, dropped: readonly string[]): void {
  const size = data.size as
    | { returned_chars?: number; tokens_estimate?: number }
    | undefined;
  if (!size || dropped.length === 0) return;
  const chars = dropped.reduce((sum, content) => sum + content.length, 0);
  const tokens = dropped.reduce((sum, content) => sum + estimateTokens(JSON.stringify(content)), 0);
  data.size = {
    ...size,
    ...(typeof size.returned_chars === "number"
      ? { returned_chars: Math.max(0, size.returned_chars - chars) }
      : {}),
    ...(typeof size.tokens_estimate === "number"
      ? { tokens_estimate: Math.max(0, size.tokens_estimate - tokens) }
      : {}),
  };
}

function overBudget(bytes: number, maxBytes: number): Envelope["data"] {
  return {
    error: "resource_limit_exceeded",
    reason: `the answer would be ${bytes} bytes; an answer may be at most ${maxBytes} bytes ` +
      `(MCP clients close the session past 10 MiB)`,
    hint:
      "ask for less: one memory at a time with read (it pages long content), a span, fewer ids, or content_mode preview",
    actual_bytes: bytes,
    max_bytes: maxBytes,
  };
}

/**
 * The envelope to send: `envelope` itself when its answer fits, otherwise a
 * copy cut as the module documentation says. Never mutates `envelope`.
 */
export function fitAnswer(envelope: Envelope, options: FitOptions): Envelope {
  const maxBytes = options.maxBytes ?? ANSWER_MAX_BYTES;
  const whole = options.measure(envelope);
  if (whole <= maxBytes) return envelope;
  const data = copyData(envelope.data);
  const slots = slotsOf(data);
  const warning =
    `the answer was cut to stay under ${maxBytes} bytes (MCP clients close the session past 10 MiB); ` +
    "data.next / read_separately say how to read the rest";
  const cut: Envelope = { ...envelope, warnings: [...envelope.warnings, warning], data };
  if (slots.length > 0) {
    // Measure the answer with every content out and every marker in, its numbers at their
    // widest: what is left is the room the contents share.
    data.truncated = true;
    data.read_separately = slots.filter((s) => !s.pageable && !s.history).map((s) => s.memoryId);
    for (const slot of slots) {
      if (!slot.pageable) omit(slot);
      else {
        const total = spanOf(slot.holder)?.total ?? slot.content.length;
        page(slot, { start: total, end: total, total }, 0);
      }
    }
    let room = maxBytes - options.measure(cut) - CUT_SLACK_BYTES;
    const separately: number[] = [];
    const dropped: string[] = [];
    let cutAny = false;
    let fits = true;
    for (const slot of slots) {
      const cost = answerCost(slot.content);
      if (!slot.pageable) {
        if (cost <= room) {
          keep(slot);
          room -= cost;
        } else {
          if (!slot.history) separately.push(slot.memoryId);
          dropped.push(slot.content);
          cutAny = true;
        }
        continue;
      }
      const original = spanOf(envelope.data);
      const within = original ?? { start: 0, end: slot.content.length, total: slot.content.length };
      if (cost <= room) {
        keep(slot);
        delete slot.holder.truncated;
        if (original) slot.holder.span = envelope.data.span;
        else delete slot.holder.span;
        room -= cost;
        continue;
      }
      const length = fittingEnd(slot.content, 0, Math.max(0, room));
      if (length === 0) {
        fits = false;
        break;
      }
      page(slot, within, length);
      room -= answerCost(slot.content, 0, length);
      cutAny = true;
    }
    if (separately.length > 0) data.read_separately = [...new Set(separately)];
    else delete data.read_separately;
    if (cutAny) data.truncated = true;
    else {
      delete data.truncated;
      cut.warnings = envelope.warnings;
    }
    shrinkSize(data, dropped);
    if (fits && options.measure(cut) <= maxBytes) return cut;
  }
  return {
    ok: false,
    mode: envelope.mode,
    degraded: envelope.degraded,
    warnings: envelope.warnings,
    data: overBudget(whole, maxBytes),
  };
}
