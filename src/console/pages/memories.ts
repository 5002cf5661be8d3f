/**
 * The memories page: search with the same `find` agents use, filters and paging.
 * @module
 */
import { isMemaError } from "../../errors/mod.ts";
import {
  MEMORY_STATUSES,
  type MemoryStatus,
  SOURCE_TYPES,
  type SourceType,
} from "../../store/mod.ts";
import { findPage } from "../../views/recall_page.ts";
import { MEMORIES_PAGE_SIZE, RESULT_PREVIEW_CHARS } from "../constants.ts";
import { html, query } from "../html.ts";
import { badge } from "../layout.ts";
import { prefixByUnits } from "../../text/code_points.ts";
import type { ConsoleScope, PageResult } from "../scope.ts";

/** The statuses a search may ask for ("deleted" is never shown). */
const STATUS_CHOICES: readonly string[] = [
  ...MEMORY_STATUSES.filter((s) => s !== "deleted"),
  "any",
];

function preview(content: string): string {
  return content.length <= RESULT_PREVIEW_CHARS
    ? content
    : `${prefixByUnits(content, RESULT_PREVIEW_CHARS)}…`;
}

function options(values: readonly string[], selected: string, blank: string) {
  return [
    html`<option value="" ${selected === "" ? "selected" : ""}>${blank}</option>`,
    ...values.map((v) =>
      html`<option value="${v}" ${selected === v ? "selected" : ""}>${v}</option>`
    ),
  ];
}

/** GET /memories */
export async function memoriesPage(scope: ConsoleScope): Promise<PageResult> {
  const params = scope.url.searchParams;
  const q = params.get("q") ?? "";
  const status = params.get("status") ?? "";
  const source = params.get("source") ?? "";
  const tag = params.get("tag") ?? "";
  const after = params.get("after") ?? "";
  const before = params.get("before") ?? "";
  const offset = Math.max(0, Math.min(10_000, Number.parseInt(params.get("offset") ?? "0") || 0));
  const form = html`
    <form method="get" action="./memories" class="card filters" role="search">
      <label>Search<input type="search" name="q" value="${q}" size="36" placeholder="words, names, numbers…"></label>
      <label>Status<select name="status">${options(
        STATUS_CHOICES,
        status,
        "active",
      )}</select></label>
      <label>Source<select name="source">${options(SOURCE_TYPES, source, "any")}</select></label>
      <label>Tag<input type="text" name="tag" value="${tag}" size="12"></label>
      <label>After<input type="text" name="after" value="${after}" size="11" placeholder="2026-01-31"></label>
      <label>Before<input type="text" name="before" value="${before}" size="11"></label>
      <button type="submit">Search</button>
    </form>
  `;
  let results;
  let error: string | undefined;
  const statuses: string[] = [...STATUS_CHOICES];
  if (status !== "" && !statuses.includes(status)) error = `unknown status "${status}"`;
  else if (source !== "" && !(SOURCE_TYPES as readonly string[]).includes(source)) {
    error = `unknown source "${source}"`;
  } else {try {
      results = await findPage(scope.ctx, {
        query: q,
        workspace: scope.workspace,
        status: status === "" ? undefined : status as MemoryStatus | "any",
        sourceType: source === "" ? undefined : [source as SourceType],
        tagsFilter: tag === "" ? undefined : [tag],
        afterTime: after === "" ? undefined : after,
        beforeTime: before === "" ? undefined : before,
        limit: MEMORIES_PAGE_SIZE,
        offset,
      });
    } catch (cause) {
      if (!isMemaError(cause)) throw cause;
      error = `${cause.reason}${cause.hint ? ` (${cause.hint})` : ""}`;
    }}
  const link = (at: number) =>
    `./memories${query({ q, status, source, tag, after, before, offset: at || undefined })}`;
  const body = html`<h1>Memories${
    scope.workspace
      ? html`
        <span class="muted small">in ${scope.workspace}</span>
      `
      : ""
  }</h1>
${form}
${error ? html`<div class="flash error" role="alert">${error}</div>` : ""}
${
    results
      ? html`<div class="card"><p class="muted small" id="result-count">${
        results.page.items.length === 0
          ? "No memories match."
          : `${offset + 1}–${offset + results.page.items.length} of ${
            results.page.hasMore ? "at least " : ""
          }${Math.max(results.page.totalEstimate, offset + results.page.items.length)}`
      }${results.page.hint ? ` · ${results.page.hint}` : ""}</p>
${
        results.page.items.map(({ memory, score }) => {
          const conflicts = results.conflicts.get(memory.id);
          return html`
            <div class="result" data-memory-id="${memory.id}">
              <div class="title"><a href="./memories/${memory.id}">${memory.subject}</a> ${badge(
                memory.status,
              )} ${conflicts
                ? html`<a href="./conflicts/${conflicts[0].conflictId}">${
                  badge("in conflict", "open")
                }</a>`
                : ""}</div>
              <div>${preview(memory.content)}</div>
              <div
                class="small muted">#${memory.id} · ${memory.workspaceCanonical} · ${memory
                  .sourceType} · v${memory.version}${memory.tags.length
                  ? ` · ${memory.tags.join(", ")}`
                  : ""}${q ? ` · score ${score.toFixed(3)}` : ""}</div>
            </div>
          `;
        })
      }
<div class="pager">${
        offset > 0
          ? html`<a href="${link(Math.max(0, offset - MEMORIES_PAGE_SIZE))}">← previous</a>`
          : ""
      }${
        results.page.hasMore ? html`<a href="${link(offset + MEMORIES_PAGE_SIZE)}">next →</a>` : ""
      }</div></div>`
      : ""
  }`;
  return {
    title: q ? `Search: ${q}` : "Memories",
    active: "memories",
    body,
    status: error ? 400 : 200,
  };
}
