/**
 * One memory: content, provenance, version history with a rendered diff between any two
 * versions, the conflicts it belongs to, its audit trail, and retire / confirm / purge.
 * @module
 */
import { memoryPage as memoryPageView } from "../../views/memory_page.ts";
import { memoryEntities } from "../../views/entities.ts";
import { type Html, html } from "../html.ts";
import { badge, csrfField, metaList, when } from "../layout.ts";
import type { ConsoleScope, PageResult } from "../scope.ts";
import { checkInScope } from "../workspace.ts";
import { windowText } from "./timeline.ts";

/** Renders a unified diff line by line. */
export function renderDiff(unified: string): Html {
  const lines = unified.replace(/\n$/, "").split("\n");
  return html`<div class="diff" id="diff">${
    lines.map((line) => {
      const kind = line.startsWith("+++") || line.startsWith("---")
        ? "file"
        : line.startsWith("@@")
        ? "hunk"
        : line.startsWith("+")
        ? "add"
        : line.startsWith("-")
        ? "del"
        : "ctx";
      return html`<div class="${kind}">${line === "" ? " " : line}</div>`;
    })
  }</div>`;
}

function versionSelect(name: string, versions: number[], selected: number | undefined): Html {
  return html`<select name="${name}">${
    versions.map((v) =>
      html`<option value="${v}" ${v === selected ? "selected" : ""}>v${v}</option>`
    )
  }</select>`;
}

function parseVersion(value: string | null): number | undefined {
  if (value === null || value === "") return undefined;
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : -1;
}

/** GET /memories/:id */
export async function memoryPage(scope: ConsoleScope, memoryId: number): Promise<PageResult> {
  const params = scope.url.searchParams;
  const view = await memoryPageView(scope.ctx, {
    memoryId,
    fromVersion: parseVersion(params.get("from")),
    toVersion: parseVersion(params.get("to")),
  });
  const { memory, versions, diff, absorbed } = view.history;
  checkInScope(scope, memory.workspaceCanonical, `memory ${memory.id}`);
  const entities = await memoryEntities(scope.ctx, memory.id);
  const numbers = versions.map((v) => v.version);
  const live = memory.status === "active" || memory.status === "pending";
  const confirmed = memory.sourceType === "user_confirmed" && memory.protectionLevel === "locked";
  const actions: Html[] = [];
  if (live && !confirmed) {
    actions.push(html`<form method="post" action="./memories/${memory.id}/confirm" class="stack">
${csrfField(scope.csrf)}
<strong>Confirm</strong>
<div class="small muted">Mark as user-confirmed and lock it.</div>
<label for="confirm-reason">Reason (optional)</label>
<input type="text" id="confirm-reason" name="reason" size="28">
<div><button type="submit">Confirm</button></div>
</form>`);
  }
  if (live) {
    actions.push(html`
      <form method="post" action="./memories/${memory.id}/retire" class="stack"
        data-confirm="Retire memory ${memory.id}? It leaves default recall but stays readable.">
      ${csrfField(scope.csrf)}
      <strong>Retire</strong>
      <div class="small muted">Leaves default recall; stays readable here.</div>
      <label for="retire-reason">Reason (required)</label>
      <input type="text" id="retire-reason" name="reason" size="28" required>
      <label for="retire-by">Superseded by memory # (optional)</label>
      <input type="number" id="retire-by" name="superseded_by" min="1">
      <div><button type="submit" class="secondary">Retire</button></div>
      </form>
    `);
  }
  actions.push(html`
    <form method="post" action="./memories/${memory.id}/purge" class="stack"
      data-confirm="Permanently delete memory ${memory
        .id} and every earlier version? This cannot be undone.">
    ${csrfField(scope.csrf)}
    <strong>Purge</strong>
    <div class="small muted">Deletes the memory and all its versions for good.</div>
    <label for="purge-reason">Reason (required)</label>
    <input type="text" id="purge-reason" name="reason" size="28" required>
    <div><button type="submit" class="danger">Purge</button></div>
    </form>
  `);
  const body = html`
    <h1>${memory.subject} <span class="muted small">#${memory.id}</span> ${badge(
      memory.status,
    )}</h1>
    ${view.openConflicts.length > 0
      ? html`
        <div
          class="flash error">This memory belongs to unresolved conflict ${view.openConflicts.map((
            c,
          ) =>
            html`
              <a href="./conflicts/${c.conflictId}">#${c.conflictId}</a>
            `
          )}— judge it before relying on this memory.</div>
      `
      : ""}
    <div class="side">
      <div class="card">
        <h2>Content <span class="muted small">v${memory.version} · ${memory.content
          .length} characters</span></h2>
        <pre class="content" id="content">${memory.content}</pre>
      </div>
      <div class="card"><h2>Provenance</h2>${metaList([
        ["workspace", memory.workspaceCanonical],
        ["source", html`${badge(memory.sourceType, "")} ${memory.sourceRef ?? ""}`],
        ["protection", memory.protectionLevel],
        ["confidence", memory.confidence],
        ["tags", memory.tags.length ? memory.tags.join(", ") : "—"],
        [
          "entities",
          entities.length === 0 ? "—" : html`<span id="entities">${
            entities.map((entity) =>
              html`
                <a href="./entities/${entity.id}" class="entity-link" title="${entity
                  .kind}">${entity.name}</a>
              `
            )
          }</span>`,
        ],
        ["stored by", `${memory.client}/${memory.agentId}`],
        ["event time", when(memory.eventTime)],
        [
          "valid",
          html`
            ${windowText(memory.validFrom, memory.validTo)} · <a id="timeline-link"
              href="./memories/${memory.id}/timeline">timeline of this subject</a>
          `,
        ],
        ["stored", when(memory.ingestTime)],
        ["updated", when(memory.updatedAt)],
        [
          "follows",
          view.follows
            ? html`<a href="./memories/${view.follows.memoryId}">#${view.follows.memoryId} ${view.follows.subject}</a>`
            : "—",
        ],
        [
          "superseded by",
          memory.supersededBy === null
            ? "—"
            : html`<a href="./memories/${memory.supersededBy}">#${memory.supersededBy}</a>`,
        ],
        [
          "absorbed",
          absorbed.length === 0 ? "—" : absorbed.map((a) =>
            html`
              <a href="./memories/${a.memoryId}">#${a.memoryId}</a> ${a.subject} (${a.status})
            `
          ),
        ],
        [
          "metadata",
          Object.keys(memory.metadata).length === 0
            ? "—"
            : html`<pre>${JSON.stringify(memory.metadata, null, 2)}</pre>`,
        ],
      ])}</div>
    </div>
    ${actions.length > 0
      ? html`
        <h2>Actions</h2>
        <div class="actions">${actions}</div>
      `
      : ""}
    <h2>History</h2>
    <div
      class="card"><table><tr><th>version</th><th>subject</th><th>tags</th><th>valid</th><th>replaced</th><th>by</th><th>reason</th></tr>${[
        ...versions,
      ].reverse().map((v) =>
        html`
          <tr>
            <td class="key">v${v.version}${v.current
              ? html`
                ${badge("current", "info")}
              `
              : ""}</td>
            <td class="value">${v.subject}</td>
            <td class="value">${v.tags.join(", ")}</td>
            <td class="key">${windowText(v.validFrom, v.validTo)}</td>
            <td class="key">${when(v.replaced?.at)}</td>
            <td class="key">${v.replaced ? `${v.replaced.client}/${v.replaced.by}` : ""}</td>
            <td class="value">${v.replaced?.reason ?? ""}</td>
          </tr>
        `
      )}</table>
    ${versions.length > 1
      ? html`
        <form method="get" action="./memories/${memory.id}" class="filters mt">
          <label>From${versionSelect(
            "from",
            numbers,
            diff?.from ?? numbers[numbers.length - 2],
          )}</label>
          <label>To${versionSelect("to", numbers, diff?.to ?? memory.version)}</label>
          <button type="submit" class="secondary">Show diff</button>
        </form>
        <h2>Diff ${diff ? html`v${diff.from} → v${diff.to}` : ""}</h2>
        ${diff ? renderDiff(diff.unified) : html`<p class="muted">Pick two different versions.</p>`}
      `
      : html`<p class="muted">Only one version so far.</p>`}</div>
    <h2>Audit</h2>
    <div class="card">${view.audit.length === 0
      ? html`<p class="muted">No governance changes.</p>`
      : html`<table><tr><th>when</th><th>action</th><th>by</th><th>reason</th></tr>${
        view.audit.map((row) =>
          html`
            <tr>
              <td class="key">${when(row.at)}</td>
              <td class="key">${row.action}</td>
              <td class="key">${row.client}/${row.agentId}</td>
              <td class="value">${row.reason ?? ""}</td>
            </tr>
          `
        )
      }</table>`}</div>
  `;
  return { title: memory.subject, active: "memories", body };
}
