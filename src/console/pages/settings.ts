/**
 * The settings page: the configuration, read-only, each value with where it came from.
 * @module
 */
import { settingsView } from "../../views/settings.ts";
import { html } from "../html.ts";
import { badge } from "../layout.ts";
import type { ConsoleScope, PageResult } from "../scope.ts";

/** GET /settings */
export function settingsPage(scope: ConsoleScope): PageResult {
  const view = settingsView(scope.ctx, scope.env.config);
  const body = html`
    <h1>Settings</h1>
    <p
      class="muted">Read-only. Config file: <code>${view.configPath}</code> (${view.configFileFound
        ? "found"
        : "not found: defaults in use"}). Change a value in the config file, the environment or on the command line, then restart.</p>
    ${view.groups.map((group) =>
      html`
        <div class="card">
          <h2>${group.title}</h2>
          <table class="fixed"><tr><th>setting</th><th>value</th><th>from</th></tr>${group.settings
            .map((s) =>
              html`
                <tr>
                  <td><code>${s.key}</code></td>
                  <td>${s.value}${s.note
                    ? html`
                      <span class="muted small">(${s.note})</span>
                    `
                    : ""}</td>
                  <td>${badge(s.source, s.source === "default" ? "" : "info")}</td>
                </tr>
              `
            )}</table>
        </div>
      `
    )}
  `;
  return { title: "Settings", active: "settings", body };
}
