/**
 * The overview page: counts, capability state, jobs, doctor findings with fix hints, and the
 * library's topics (the `clusters` view agents get from memory_review).
 * @module
 */
import { overviewView } from "../../views/overview.ts";
import { type ClustersView, clustersView } from "../../views/clusters.ts";
import { statusView } from "../../views/status.ts";
import { html } from "../html.ts";
import { badge, metaList, when } from "../layout.ts";
import type { ConsoleScope, PageResult } from "../scope.ts";

/** Topics the overview shows: a glance, not an inventory (memory_review clusters goes to 20). */
const OVERVIEW_TOPICS = 6;

function topicsCard(topics: ClustersView) {
  return html`<div class="card" id="topics"><h2>Topics</h2>${
    topics.clusters.length === 0
      ? html`<p class="muted">not enough memories with words in common yet</p>`
      : html`<table><tr><th>topic</th><th>memories</th><th>for example</th></tr>${
        topics.clusters.map((topic) =>
          html`
            <tr class="topic">
              <td class="value">${topic.label}</td>
              <td class="key">${topic.size}</td>
              <td class="small value">${topic.samples.map((sample) =>
                html`
                  <a href="./memories/${sample.id}">${sample.subject}</a>
                `
              )}</td>
            </tr>
          `
        )
      }</table>${
        topics.sampled
          ? html`<p class="small muted">the newest ${topics.clustered} of ${topics.memories} memories</p>`
          : ""
      }`
  }</div>`;
}

function countTable(title: string, counts: Record<string, number>) {
  const rows = Object.entries(counts);
  return html`<div class="card"><h2>${title}</h2>${
    rows.length === 0 ? html`<p class="muted">none</p>` : html`<table>${
      rows.map(([key, n]) =>
        html`
          <tr>
            <td class="value">${key}</td>
            <td class="key">${n}</td>
          </tr>
        `
      )
    }</table>`
  }</div>`;
}

/** GET / */
export async function overviewPage(scope: ConsoleScope): Promise<PageResult> {
  const view = await overviewView(scope.ctx);
  const status = await statusView(scope.ctx);
  const doctor = await scope.env.doctor();
  const topics = await clustersView(scope.ctx, { k: OVERVIEW_TOPICS });
  const caps = view.capabilities;
  const jobs = Object.entries(view.jobs).flatMap(([kind, byStatus]) =>
    Object.entries(byStatus).map(([state, n]) => ({ kind, state, n }))
  );
  const findings = [...doctor.findings].sort((a, b) =>
    ["critical", "warning", "info"].indexOf(a.severity) -
    ["critical", "warning", "info"].indexOf(b.severity)
  );
  const body = html`
    <h1>Overview</h1>
    <div class="grid">
    ${["active", "pending", "superseded", "retired"].map((s) =>
      html`
        <div class="card">
          <div class="muted small">${s} memories</div>
          <div class="stat">${view.memories.byStatus[s] ?? 0}</div>
        </div>
      `
    )}
    <div class="card"><div class="muted small">unresolved conflicts</div><div class="stat"><a href="./conflicts">${view
      .conflicts.openConflicts + view.conflicts.applyingConflicts}</a></div></div>
    <div class="card"><div class="muted small">scan queue</div><div class="stat"><a href="./scan-queue">${view
      .conflicts.scanQueuePending}</a></div></div>
    </div>
    <div class="side">
      <div class="card"><h2>Capabilities</h2>${metaList([
        [
          "recall mode",
          html`${badge(caps.mode, caps.degraded ? "warning" : "info")}${
            caps.degraded
              ? html`
                <span class="muted small">degraded</span>
              `
              : ""
          }`,
        ],
        ["database", html`<code>${status.database}</code>`],
        ["writable", caps.writable ? "yes" : badge("read-only", "critical")],
        ["full-text index", status.store.fts ? "FTS5" : badge("unavailable", "warning")],
        [
          "sqlite-vec",
          status.store.vec
            ? `loaded ${status.store.vecVersion ?? ""}`
            : badge("not loaded", "warning"),
        ],
        ["embedding model", status.vector.modelId ?? "none (lexical recall)"],
        [
          "vector index",
          html`${badge(caps.vectorState)} ${caps.embeddedRows} of ${caps.rows} rows`,
        ],
        ["history versions", view.historyVersions],
        ["pending notices", view.conflicts.pendingNotices],
        [
          "JSONL backup",
          view.backup.pendingEntries > 0
            ? html`${
              badge(`${view.backup.pendingEntries} to replay`, "warning")
            } <code>${view.backup.path}</code>`
            : "nothing to replay",
        ],
      ])}${caps.warnings.length > 0
        ? html`<ul class="small">${caps.warnings.map((w) => html`<li>${w}</li>`)}</ul>`
        : ""}</div>
      <div class="card"><h2>Jobs</h2>${jobs.length === 0
        ? html`<p class="muted">no background work queued</p>`
        : html`<table><tr><th>kind</th><th>state</th><th>jobs</th></tr>${
          jobs.map((j) =>
            html`
              <tr>
                <td>${j.kind}</td>
                <td>${badge(j.state)}</td>
                <td>${j.n}</td>
              </tr>
            `
          )
        }</table>`}</div>
    </div>
    <div class="card" id="doctor">
      <h2>Doctor</h2>
      <table><tr><th>severity</th><th>finding</th><th>how to fix</th></tr>${findings.map((f) =>
        html`
          <tr>
            <td>${badge(f.severity)}</td>
            <td class="value"><strong>${f.title}</strong><div class="small muted">${f
              .detail}</div></td>
            <td class="small value">${f.fix_hint ?? ""}</td>
          </tr>
        `
      )}</table>
    </div>
    ${topicsCard(topics)}
    <div class="side">
    ${countTable("Active memories by workspace", view.memories.byWorkspace)}
    ${countTable("Active memories by source", view.memories.bySourceType)}
    </div>
    <div class="card">
      <h2>Recent changes</h2>
      <table><tr><th>when</th><th>action</th><th>memory</th><th>by</th></tr>${view.recentAudit.map((
        row,
      ) =>
        html`
          <tr>
            <td class="key">${when(row.at)}</td>
            <td class="key">${row.action}</td>
            <td class="key">${row.memoryId === null
              ? "—"
              : html`<a href="./memories/${row.memoryId}">${row.memoryId}</a>`}</td>
            <td class="key">${row.client}/${row.agentId}</td>
          </tr>
        `
      )}</table>
    </div>
  `;
  return { title: "Overview", active: "overview", body };
}
