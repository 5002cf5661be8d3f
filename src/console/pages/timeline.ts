/**
 * A subject's timeline: each value its memories held, with its validity window and the version
 * that set it (src/views/subject_timeline.ts). Linked from the memory page.
 * @module
 */
import { subjectTimeline } from "../../views/subject_timeline.ts";
import { type Html, html } from "../html.ts";
import { badge, when } from "../layout.ts";
import type { ConsoleScope, PageResult } from "../scope.ts";
import { checkInScope } from "../workspace.ts";

/** A window as the console writes it: "from … until …", "—" for an edge not known. */
export function windowText(validFrom: string | null, validTo: string | null): string {
  if (validFrom === null && validTo === null) return "not stated";
  return `${when(validFrom)} → ${validTo === null ? "now" : when(validTo)}`;
}

/** GET /memories/:id/timeline */
export async function timelinePage(scope: ConsoleScope, memoryId: number): Promise<PageResult> {
  const timeline = await subjectTimeline(scope.ctx, { memoryId });
  checkInScope(scope, timeline.workspace, `memory ${memoryId}`);
  const now = new Date().toISOString();
  const rows: Html[] = timeline.entries.map((entry) => {
    const ended = entry.validTo !== null && entry.validTo <= now;
    return html`
      <tr data-memory-id="${entry.memoryId}" data-version="${entry.version}">
        <td class="key">${windowText(entry.validFrom, entry.validTo)}${ended
          ? html`
            ${badge("ended", "muted")}
          `
          : ""}</td>
        <td class="value">${entry.content}</td>
        <td class="key"><a href="./memories/${entry.memoryId}">#${entry.memoryId}</a> v${entry
          .version}${entry.current
          ? html`
            ${badge(entry.status)}
          `
          : ""}</td>
        <td class="key">${when(entry.setAt)} · ${entry.setBy}</td>
      </tr>
    `;
  });
  const body = html`
    <h1>Timeline: ${timeline.subject} <span class="muted small">${timeline.workspace}</span></h1>
    <p><a href="./memories/${memoryId}">Back to memory #${memoryId}</a></p>
    <div class="card">
      <table
        id="timeline"><tr><th>valid</th><th>value</th><th>set by version</th><th>written</th></tr>${rows}</table>
    </div>
  `;
  return { title: `Timeline: ${timeline.subject}`, active: "memories", body };
}
