/**
 * Conflicts: the list, and one group side by side — members, value groups, detection evidence,
 * the suggested plan — with judge, apply, replan and resolve forms.
 * @module
 */
import { PLAN_ACTIONS } from "../../conflicts/resolution_plan.ts";
import type { ConflictRecord, PlanStep } from "../../store/mod.ts";
import {
  conflictDetail,
  conflictList,
  type ConflictListStatus,
  type ConflictMemberView,
} from "../../views/conflicts.ts";
import { CONFLICTS_PAGE_SIZE } from "../constants.ts";
import { type Html, html, type HtmlValue, query } from "../html.ts";
import { badge, csrfField, metaList, when } from "../layout.ts";
import type { ConsoleScope, PageResult } from "../scope.ts";
import { checkInScope } from "../workspace.ts";

const LIST_TABS: [ConflictListStatus, string][] = [
  ["unresolved", "Unresolved"],
  ["open", "Open"],
  ["applying", "Applying"],
  ["resolved", "Resolved"],
  ["not_a_conflict", "Not a conflict"],
  ["all", "All"],
];

/** GET /conflicts */
export async function conflictsPage(scope: ConsoleScope): Promise<PageResult> {
  const params = scope.url.searchParams;
  const requested = params.get("status") ?? "unresolved";
  const status = LIST_TABS.find(([key]) => key === requested)?.[0] ?? "unresolved";
  const offset = Math.max(0, Number.parseInt(params.get("offset") ?? "0") || 0);
  const view = await conflictList(scope.ctx, {
    status,
    workspace: scope.workspace,
    limit: CONFLICTS_PAGE_SIZE,
    offset,
  });
  const body = html`<h1>Conflicts${
    scope.workspace
      ? html`
        <span class="muted small">in ${scope.workspace}</span>
      `
      : ""
  }</h1>
<p class="tabs">${
    LIST_TABS.map(([key, label]) =>
      html`<a href="./conflicts${
        query({ status: key === "unresolved" ? undefined : key })
      }" class="${key === status ? "active" : ""}">${label}</a>`
    )
  }</p>
<div class="card">${
    view.conflicts.length === 0
      ? html`<p class="muted" id="no-conflicts">No conflicts here.</p>`
      : html`<table><tr><th>#</th><th>status</th><th>values</th><th>members</th><th>workspace</th><th>found by</th><th>created</th></tr>${
        view.conflicts.map((group) =>
          html`
            <tr data-conflict-id="${group.id}">
              <td class="key"><a href="./conflicts/${group.id}">#${group.id}</a></td>
              <td class="key">${badge(group.status)}</td>
              <td class="value">${group.valueGroups.map((g) => html`<div>“${g.value}”</div>`)}</td>
              <td class="members">${group.members.map((m) =>
                html`
                  <a href="./memories/${m.memory_id}">#${m.memory_id}</a>
                `
              )}</td>
              <td>${group.workspaceCanonical}</td>
              <td class="key">${group.source}</td>
              <td class="key">${when(group.createdAt)}</td>
            </tr>
          `
        )
      }</table>`
  }
<div class="pager">${
    offset > 0
      ? html`<a href="./conflicts${
        query({ status, offset: Math.max(0, offset - CONFLICTS_PAGE_SIZE) || undefined })
      }">← previous</a>`
      : ""
  }${
    view.hasMore
      ? html`<a href="./conflicts${
        query({ status, offset: offset + CONFLICTS_PAGE_SIZE })
      }">next →</a>`
      : ""
  }</div></div>`;
  return { title: "Conflicts", active: "conflicts", body };
}

/** The member's disagreeing row marked inside its content. */
function markedContent(view: ConflictMemberView): Html {
  const content = view.memory?.content;
  if (content === undefined) return html`<pre class="content">${view.member.row_text}</pre>`;
  const { start_offset: start, end_offset: end } = view.member;
  if (start === null || end === null || view.changedSince || end > content.length) {
    return html`<pre class="content">${content}</pre>`;
  }
  return html`<pre class="content">${content.slice(0, start)}<mark>${
    content.slice(start, end)
  }</mark>${content.slice(end)}</pre>`;
}

function memberCard(group: ConflictRecord, view: ConflictMemberView, winner?: number): Html {
  const { member, memory } = view;
  const values = group.valueGroups.filter((g) => g.memory_ids.includes(member.memory_id));
  return html`<div class="card member" data-member-id="${member.memory_id}">
<h2><a href="./memories/${member.memory_id}">#${member.memory_id} ${
    memory?.subject ?? "(gone)"
  }</a>${
    winner === member.memory_id
      ? html`
        ${badge("suggested", "info")}
      `
      : ""
  }</h2>
${
    metaList([
      [
        "value",
        values.length
          ? values.map((g) =>
            html`
              <strong>“${g.value}”</strong>
            `
          )
          : "—",
      ],
      ["source", memory ? memory.sourceType : "—"],
      ["when", when(memory?.eventTime ?? memory?.ingestTime)],
      ["stored by", memory ? `${memory.client}/${memory.agentId}` : "—"],
      [
        "version",
        view.changedSince
          ? html`v${member.version} at detection, now v${memory?.version} ${
            badge("changed", "warning")
          }`
          : `v${member.version}`,
      ],
    ])
  }
<div class="mt">${markedContent(view)}</div>
</div>`;
}

function planTable(plan: readonly PlanStep[] | readonly { memory_id: number; action: string }[]) {
  return html`<table><tr><th>memory</th><th>action</th><th>status</th></tr>${
    plan.map((step) => {
      const s = step as PlanStep;
      return html`
        <tr>
          <td class="key"><a href="./memories/${s.memory_id}">#${s.memory_id}</a></td>
          <td class="key">${s.action}</td>
          <td class="value">${s.status ? badge(s.status) : ""}${s.error
            ? html`<div class="small">${s.error}</div>`
            : ""}</td>
        </tr>
      `;
    })
  }</table>`;
}

function judgeForms(scope: ConsoleScope, group: ConflictRecord, suggested?: string): Html {
  const choices = [...new Set(group.valueGroups.map((g) => g.value))];
  const preselect = suggested ?? choices[0];
  return html`
    <div class="actions">
      <form method="post" action="./conflicts/${group.id}/judge" class="stack" id="judge-form">
    ${csrfField(scope.csrf)}
    <input type="hidden" name="expected_revision" value="${group.revision}">
    <strong>Which value is current?</strong>
    ${choices.map((value, i) =>
      html`<label><input type="radio" name="choice" value="${value}" id="choice-${i}" ${
        value === preselect ? "checked" : ""
      }> “${value}”${
        value === suggested
          ? html`
            <span class="muted">(suggested)</span>
          `
          : ""
      }</label>`
    )}
    <label><input type="radio" name="choice" value="" ${choices.length === 0
      ? "checked"
      : ""}> another value:</label>
    <input type="text" name="custom_value" size="30">
    <label for="judge-reason">Reason (optional)</label>
    <input type="text" id="judge-reason" name="reason" size="30">
    <label><input type="checkbox" name="preserve_history" value="1"> keep the other memories as history (do not correct them)</label>
    <label><input type="checkbox" name="apply" value="1" id="judge-apply"> apply the plan and resolve in one step</label>
    <div><button type="submit" name="verdict" value="conflict">Judge and plan</button></div>
      </form>
      <form method="post" action="./conflicts/${group.id}/judge" class="stack">
    ${csrfField(scope.csrf)}
    <input type="hidden" name="expected_revision" value="${group.revision}">
    <strong>Not a conflict</strong>
    <div class="small muted">The memories do not disagree; close the group.</div>
    <label for="nac-reason">Reason (optional)</label>
    <input type="text" id="nac-reason" name="reason" size="30">
    <div><button type="submit" name="verdict" value="not_a_conflict" class="secondary">Not a conflict</button></div>
      </form>
    </div>
  `;
}

function applyForms(scope: ConsoleScope, group: ConflictRecord, members: ConflictMemberView[]) {
  const failed = group.plan.some((s) => s.status === "failed");
  const pending = group.plan.filter((s) => s.status === "pending");
  const forms: Html[] = [];
  if (!failed) {
    for (const step of pending) {
      const memory = members.find((m) => m.member.memory_id === step.memory_id)?.memory;
      forms.push(
        html`<form method="post" action="./conflicts/${group.id}/apply" class="stack apply-step">
${csrfField(scope.csrf)}
<input type="hidden" name="expected_revision" value="${group.revision}">
<input type="hidden" name="memory_id" value="${step.memory_id}">
<strong>#${step.memory_id}: ${step.action}</strong>
${
          step.action === "update_current_claim"
            ? html`
              <div
                class="small muted">Puts “${group
                  .chosenValue}” in place of this memory's old value. To word it yourself, write the corrected content (it must contain “${group
                  .chosenValue}”):</div>
              <textarea id="content-${step
                .memory_id}" name="content" placeholder="${memory?.content ?? ""}"></textarea>
            `
            : step.action === "append_superseded_context"
            ? html`<div class="small muted">Appends a note that “${group.chosenValue}” is the current value.</div>`
            : step.action === "use_as_resolution"
            ? html`<div class="small muted">Records this memory as the resolution.</div>`
            : html`<div class="small muted">Keeps this memory as a historical record.</div>`
        }
<div><button type="submit">Apply step</button></div>
</form>`,
      );
    }
  }
  if (failed) {
    forms.push(html`<form method="post" action="./conflicts/${group.id}/replan" class="stack">
${csrfField(scope.csrf)}
<input type="hidden" name="expected_revision" value="${group.revision}">
<strong>Replan</strong>
<div class="small muted">A step failed; choose each member's action again (done steps stay done).</div>
${
      group.plan.map((step) =>
        html`<label>#${step.memory_id}<select name="step_${step.memory_id}">${
          PLAN_ACTIONS.map((a) =>
            html`<option value="${a}" ${
              a === step.action && step.status !== "failed" ? "selected" : ""
            }>${a}</option>`
          )
        }</select></label>`
      )
    }
<div><button type="submit">Replan</button></div>
</form>`);
  }
  if (group.plan.every((s) => s.status === "done")) {
    forms.push(html`<form method="post" action="./conflicts/${group.id}/resolve" class="stack">
${csrfField(scope.csrf)}
<input type="hidden" name="expected_revision" value="${group.revision}">
<strong>Every step is done</strong>
<div class="small muted">Close the conflict with “${group.chosenValue}” as the current value.</div>
<div><button type="submit" id="resolve">Resolve</button></div>
</form>`);
  }
  return html`<div class="actions">${forms}</div>`;
}

/** What detection recorded: the rule's kind, score and reasons, the judge's verdict, by whom. */
function evidence(detection: Record<string, unknown>): Html {
  const rule = detection.rule as
    | { kind?: string; score?: number; reasons?: string[] }
    | undefined;
  const judge = detection.judge as { label?: string; score?: number } | null | undefined;
  const by = detection.detected_by as { client?: string; agent_id?: string } | undefined;
  const rows: [string, HtmlValue][] = [];
  if (rule?.kind) {
    rows.push(["rule", `${rule.kind}${rule.score !== undefined ? ` (score ${rule.score})` : ""}`]);
  }
  if (rule?.reasons?.length) {
    rows.push([
      "reasons",
      html`<ul class="small">${rule.reasons.map((r) => html`<li>${r}</li>`)}</ul>`,
    ]);
  }
  rows.push([
    "judge",
    judge
      ? `${judge.label ?? "?"}${judge.score !== undefined ? ` (${judge.score})` : ""}`
      : "no judge model",
  ]);
  if (by) rows.push(["detected on a write by", `${by.client ?? "?"}/${by.agent_id ?? "?"}`]);
  return html`
    ${metaList(rows)}<details class="mt">
      <summary class="small">everything recorded</summary>
      <pre>${JSON.stringify(detection, null, 2)}</pre>
    </details>
  `;
}

/** GET /conflicts/:id */
export async function conflictPage(scope: ConsoleScope, conflictId: number): Promise<PageResult> {
  const { group, members, suggestion } = await conflictDetail(scope.ctx, conflictId);
  checkInScope(scope, group.workspaceCanonical, `conflict ${group.id}`);
  const body = html`
    <h1>Conflict #${group.id} ${badge(group.status)} <span class="muted small">revision ${group
      .revision}</span></h1>
    ${metaList([
      ["workspace", group.workspaceCanonical],
      ["found by", group.source],
      ["created", when(group.createdAt)],
      [
        "values",
        group.valueGroups.map((g) =>
          html`
            <strong>“${g.value}”</strong> (${g.memory_ids.map((id) => `#${id}`).join(", ")})
          `
        ),
      ],
      ["chosen value", group.chosenValue ? html`<strong>“${group.chosenValue}”</strong>` : "—"],
      [
        "decided by",
        group.decidedBy
          ? `${group.decidedBy}${group.decisionReason ? `: ${group.decisionReason}` : ""}`
          : "—",
      ],
    ])}
    <h2>Members side by side</h2>
    <div class="side">${members.map((m) => memberCard(group, m, suggestion?.winnerMemoryId))}</div>
    <div class="side">
      <div class="card">
        <h2>Detection evidence</h2>
        ${evidence(group.detection)}
      </div>
      <div class="card"><h2>Suggested plan</h2>${suggestion
        ? html`<p>${suggestion.explanation}</p><p>Current value: <strong>“${suggestion.chosenValue}”</strong></p>${
          planTable(suggestion.plan)
        }`
        : html`<p class="muted">No suggestion: fewer than two members still exist.</p>`}</div>
    </div>
    ${group.status === "open"
      ? html`<h2>Judge</h2>${judgeForms(scope, group, suggestion?.chosenValue)}`
      : group.status === "applying"
      ? html`<h2>Plan</h2><div class="card">${planTable(group.plan)}</div>${
        applyForms(scope, group, members)
      }`
      : group.plan.length > 0
      ? html`
        <h2>Plan</h2>
        <div class="card">${planTable(group.plan)}</div>
      `
      : ""}
  `;
  return { title: `Conflict #${group.id}`, active: "conflicts", body };
}
