/**
 * The page shell: navigation, the workspace picker, messages, and small shared fragments.
 * @module
 */
import { CSRF_FIELD } from "./constants.ts";
import { type Html, html, type HtmlValue } from "./html.ts";

/** What every page is rendered with. */
export interface PageFrame {
  title: string;
  /** The nav entry to highlight. */
  active: "overview" | "memories" | "conflicts" | "scan" | "settings" | "";
  /** The workspace in view, or undefined for "All workspaces". */
  workspace?: string;
  workspaces: string[];
  /** True when "All workspaces" may be offered (isolation `none`/`weak`). */
  allowAll: boolean;
  /**
   * The session's root path with its trailing slash (`/s/<secret>/`): the page's `<base>`, so
   * every link and form (all relative, `./…`) stays inside the session.
   */
  base: string;
  /** The session's CSRF value, for the workspace picker's form. */
  csrf: string;
  /** The current page path inside the session, with its query, to return to after a switch. */
  here: string;
  flash?: string;
  error?: string;
}

const NAV: [PageFrame["active"], string, string][] = [
  ["overview", "./", "Overview"],
  ["memories", "./memories", "Memories"],
  ["conflicts", "./conflicts", "Conflicts"],
  ["scan", "./scan-queue", "Scan queue"],
  ["settings", "./settings", "Settings"],
];

/** A whole HTML document. */
export function layout(frame: PageFrame, body: Html): Html {
  const options: Html[] = [];
  if (frame.allowAll) {
    options.push(
      html`<option value="*" ${
        frame.workspace === undefined ? "selected" : ""
      }>All workspaces</option>`,
    );
  }
  for (const name of frame.workspaces) {
    options.push(
      html`<option value="${name}" ${frame.workspace === name ? "selected" : ""}>${name}</option>`,
    );
  }
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <base href="${frame.base}">
        <title>${frame.title} · mema console</title>
        <link rel="stylesheet" href="/static/console.css">
        <script src="/static/console.js" defer></script>
      </head>
      <body>
        <header class="top">
          <span class="brand">mema console</span>
          <nav>${NAV.map(([key, href, label]) =>
            html`<a href="${href}" class="${frame.active === key ? "active" : ""}">${label}</a>`
          )}</nav>
          <form method="post" action="./workspace" aria-label="workspace">
            ${csrfField(frame.csrf)}
            <label for="ws-pick" class="small">Workspace</label>
            <select id="ws-pick" name="ws" data-autosubmit>${options}</select>
            <input type="hidden" name="back" value="${frame.here}">
            <button type="submit" class="secondary" data-js-hidden>Show</button>
          </form>
        </header>
        <main>
    ${frame.flash ? html`<div class="flash" role="status">${frame.flash}</div>` : ""}
    ${frame.error ? html`<div class="flash error" role="alert">${frame.error}</div>` : ""}
    ${body}
        </main>
      </body>
    </html>
  `;
}

/** A status badge. */
export function badge(text: string, kind = text): Html {
  return html`<span class="badge ${kind}">${text}</span>`;
}

/** The hidden CSRF field every state-changing form carries. */
export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">`;
}

/** A small definition list. */
export function metaList(rows: [string, HtmlValue][]): Html {
  return html`<dl class="meta">${
    rows.map(([term, value]) =>
      html`
        <dt>${term}</dt>
        <dd>${value}</dd>
      `
    )
  }</dl>`;
}

/** An ISO time shortened for tables (seconds, no zone suffix noise). */
export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  return iso.replace("T", " ").replace(/\.\d+Z$/, "Z");
}
