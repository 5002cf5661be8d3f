/**
 * The scan queue: suspect pairs found by the scheduled scan, best first; confirm or dismiss.
 * @module
 */
import { type ScanQueueSide, scanQueueView } from "../../views/scan_queue.ts";
import { SCAN_QUEUE_PAGE_SIZE } from "../constants.ts";
import { html, query } from "../html.ts";
import { csrfField } from "../layout.ts";
import type { ConsoleScope, PageResult } from "../scope.ts";

function side(label: string, s: ScanQueueSide) {
  return html`
    <div>
      <div
        class="small muted">${label}: <a href="./memories/${s.memory_id}">#${s
          .memory_id} ${s.subject ?? "(gone)"}</a> · ${s.source_type ?? ""} · v${s.version}</div>
      <pre class="content">${s.row_text}</pre>
    </div>
  `;
}

/** GET /scan-queue */
export async function scanQueue(scope: ConsoleScope): Promise<PageResult> {
  const token = scope.url.searchParams.get("page") ?? undefined;
  const page = await scanQueueView(scope.ctx, {
    pageSize: SCAN_QUEUE_PAGE_SIZE,
    pageToken: token,
    workspace: scope.workspace,
  });
  const items = page.items;
  const body = html`
    <h1>Scan queue <span class="muted small">${page.backlog} pending</span></h1>
    ${page.hiddenElsewhere > 0
      ? html`<p class="small muted">${page.hiddenElsewhere} pair(s) of this page belong to other workspaces.</p>`
      : ""}
    <p
      class="muted">Pairs the scheduled scan found suspect. Confirm turns a pair into a conflict to judge; dismiss never asks about it again.</p>
    ${items.length === 0
      ? html`
        <div class="card">
          <p class="muted">Nothing to review.</p>
        </div>
      `
      : items.map((item) =>
        html`
          <div class="card" data-item-id="${item.item_id}">
            <div class="small muted">item ${item.item_id} · score ${item.score}${item.kind
              ? ` · ${item.kind}`
              : ""}${item.reasons.length ? ` · ${item.reasons.join("; ")}` : ""}</div>
            <div class="side">${side("A", item.a)}${side("B", item.b)}</div>
            <div class="actions mt">
              <form method="post" action="./scan-queue/decide" class="inline">${csrfField(
                scope.csrf,
              )}
          <input type="hidden" name="item_id" value="${item.item_id}">
          <button type="submit" name="status" value="confirmed">Confirm conflict</button>
          <button type="submit" name="status" value="dismissed" class="secondary">Dismiss</button>
              </form>
            </div>
          </div>
        `
      )}
    ${page.nextPageToken
      ? html`<p><a href="./scan-queue${query({ page: page.nextPageToken })}">next page →</a></p>`
      : ""}
  `;
  return { title: "Scan queue", active: "scan", body };
}
