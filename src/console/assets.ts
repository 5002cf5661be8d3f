/**
 * The console's stylesheet and its small script. The script only enhances: forms that need a
 * second thought ask for it, and selects submit themselves; every page reads and every form
 * submits without it.
 * @module
 */

/** `/static/console.css`. */
export const CONSOLE_CSS = `
:root { --fg: #1d2330; --muted: #5d6675; --line: #d9dde4; --bg: #f6f7f9; --card: #fff;
  --accent: #2f5bd3; --bad: #b42318; --warn: #a15c00; --ok: #17703a; --mark: #fff1a8;
  --add: #e6f6ea; --del: #fde8e8; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: 16px; padding: 10px 24px;
  background: #1d2330; color: #fff; }
header.top a { color: #dfe6ff; text-decoration: none; padding: 4px 8px; border-radius: 4px; }
header.top a.active, header.top a:hover { background: #34405a; color: #fff; }
header.top .brand { font-weight: 700; color: #fff; margin-right: 8px; }
header.top form { margin-left: auto; display: flex; gap: 6px; align-items: center; }
header.top select { padding: 3px 6px; }
main { max-width: 1200px; margin: 0 auto; padding: 20px 24px 60px; }
h1 { font-size: 22px; margin: 4px 0 14px; }
h2 { font-size: 17px; margin: 26px 0 10px; }
a { color: var(--accent); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px;
  margin-bottom: 14px; }
.grid { display: grid; gap: 14px; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); }
.side { display: grid; gap: 14px; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr));
  align-items: start; }
.card > h2:first-child { margin-top: 0; }
.mt { margin-top: 10px; }
.stat { font-size: 26px; font-weight: 700; }
.muted { color: var(--muted); }
.small { font-size: 13px; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.fixed { table-layout: fixed; }
table.fixed th:nth-child(1) { width: 26%; }
table.fixed th:nth-child(3) { width: 12%; }
/* Long values (URLs, paths) wrap inside value cells only: ids, sources, dates and badges keep
   each word whole ("key" cells do not wrap at all), so a narrow table squeezes the value columns
   instead of breaking "#69" or "write_time" in two. A fixed table has set widths: any cell wraps. */
td { overflow-wrap: normal; }
td.value, table.fixed td { overflow-wrap: anywhere; }
td.key, td a { white-space: nowrap; }
th { font-size: 13px; color: var(--muted); font-weight: 600; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px;
  background: #e8ebf1; color: var(--fg); white-space: nowrap; }
.badge.critical, .badge.open, .badge.failed { background: #fde2e0; color: var(--bad); }
.badge.warning, .badge.applying, .badge.pending { background: #fff0d6; color: var(--warn); }
.badge.info, .badge.active, .badge.done, .badge.resolved { background: #dcf3e3; color: var(--ok); }
.badge.superseded, .badge.retired, .badge.not_a_conflict { background: #eceef2; color: var(--muted); }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; font: 13px/1.5 ui-monospace,
  SFMono-Regular, Menlo, monospace; }
pre.content { background: #fbfbfc; border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
mark { background: var(--mark); }
.diff { border: 1px solid var(--line); border-radius: 6px; overflow: hidden; background: #fff; }
.diff div { font: 13px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; padding: 0 10px;
  white-space: pre-wrap; word-break: break-word; }
.diff .add { background: var(--add); }
.diff .del { background: var(--del); }
.diff .hunk { background: #eef2fb; color: var(--muted); }
.diff .file { color: var(--muted); font-weight: 600; }
form.inline { display: inline; }
form.stack label { display: block; margin: 8px 0 4px; font-size: 13px; color: var(--muted); }
input[type=text], input[type=search], input[type=number], textarea, select { font: inherit;
  padding: 5px 8px; border: 1px solid #b9c0cc; border-radius: 5px; background: #fff; }
textarea { width: 100%; min-height: 120px; font: 13px/1.5 ui-monospace, monospace; }
button { font: inherit; padding: 5px 14px; border-radius: 5px; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
.result { padding: 10px 0; border-bottom: 1px solid var(--line); }
.result:last-child { border-bottom: 0; }
.result .title { font-weight: 600; }
.flash { padding: 10px 14px; border-radius: 6px; margin-bottom: 14px; background: #dcf3e3;
  border: 1px solid #a8dcb9; }
.flash.error { background: #fde2e0; border-color: #f1b0aa; }
.tabs a { margin-right: 10px; }
.tabs a.active { font-weight: 700; text-decoration: none; color: var(--fg); }
.pager { display: flex; gap: 14px; margin-top: 12px; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0; }
dl.meta dt { color: var(--muted); font-size: 13px; }
dl.meta dd { margin: 0; }
.actions { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; }
.actions form { background: #fbfbfc; border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
`;

/** `/static/console.js`: confirmation prompts and self-submitting selects. */
export const CONSOLE_JS = `
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) event.preventDefault();
});
document.addEventListener("change", (event) => {
  const field = event.target;
  if (field.matches("select[data-autosubmit]")) field.form.requestSubmit();
});
for (const button of document.querySelectorAll("[data-js-hidden]")) button.hidden = true;
`;
