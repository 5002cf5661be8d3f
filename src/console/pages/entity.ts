/**
 * One entity (issue 35): its kind, workspace and other names, the facts that name it (each a
 * link to its memory page) and its one-hop graph: every relation it is an end of, the other end
 * linked to its own page, with the fact each came from.
 * @module
 */
import { entityPageView } from "../../views/entities.ts";
import { type Html, html } from "../html.ts";
import { badge, metaList } from "../layout.ts";
import type { ConsoleScope, PageResult } from "../scope.ts";
import { checkInScope } from "../workspace.ts";

function endLink(end: { id: number; name: string }, self: number): Html {
  return end.id === self
    ? html`<strong>${end.name}</strong>`
    : html`<a href="./entities/${end.id}" class="entity-link">${end.name}</a>`;
}

/** GET /entities/:id */
export async function entityPage(scope: ConsoleScope, entityId: number): Promise<PageResult> {
  const view = await entityPageView(scope.ctx, entityId);
  const { entity } = view;
  checkInScope(scope, entity.workspace, `entity ${entity.id}`);
  const body = html`
    <h1>${entity.name} <span class="muted small">entity #${entity.id}</span> ${badge(
      entity.kind,
      "info",
    )}</h1>
    <div class="card">${metaList([
      ["workspace", entity.workspace],
      ["also named", view.aliases.length === 0 ? "—" : view.aliases.join(", ")],
      ["facts", view.factsTotal],
    ])}</div>
    <h2>Relations</h2>
    <div class="card" id="relations">${view.relations.length === 0
      ? html`<p class="muted">No relation names this entity.</p>`
      : html`<table><tr><th>from</th><th>relation</th><th>to</th><th>fact</th><th>origin</th></tr>${
        view.relations.map((relation) =>
          html`
            <tr class="relation">
              <td class="value">${endLink(relation.from, entity.id)}</td>
              <td class="key">${relation.type}</td>
              <td class="value">${endLink(relation.to, entity.id)}</td>
              <td class="key"><a href="./memories/${relation.memoryId}">#${relation
                .memoryId}</a></td>
              <td class="key">${relation.origin}</td>
            </tr>
          `
        )
      }</table>`}</div>
    <h2>Facts</h2>
    <div class="card" id="facts">${view.facts.map((fact) =>
      html`
        <div class="result fact" data-memory-id="${fact.memoryId}">
          <div class="title"><a href="./memories/${fact.memoryId}">${fact.subject}</a>
            <span class="muted small">#${fact.memoryId}</span></div>
          <div class="small">${fact.text}</div>
        </div>
      `
    )}${view.factsTotal > view.facts.length
      ? html`<p class="muted small">${view.factsTotal - view.facts.length} more not shown.</p>`
      : ""}</div>
  `;
  return { title: entity.name, active: "memories", body };
}
