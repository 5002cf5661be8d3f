/**
 * The console's HTTP server: loopback only, the MCP transport's Host/Origin guards, a random
 * token (printed in the URL) that starts a session, sessions as capability URLs (`/s/<secret>/…`,
 * see `session.ts`; no cookie), and on every state-changing request a POST with the session's
 * CSRF value and a same-origin check.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadConfig } from "../config/mod.ts";
 * import { runDoctor } from "../doctor/mod.ts";
 * import { startConsole } from "./server.ts";
 * import { openStore } from "../store/mod.ts";
 * import { composeMemoryEvents } from "../app/memory_events.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * const ctx = {
 *   store,
 *   caller: { client: "docs", agentId: "docs-agent" },
 *   settings: { workspaceIsolation: "none" as const, includeSize: false },
 *   events: composeMemoryEvents(),
 * };
 * const flags = { dbPath: `${dir}/mema.sqlite3`, configPath: `${dir}/config.json` };
 * const env = { config: loadConfig({ flags }), doctor: () => runDoctor({ flags }) };
 * const server = startConsole(ctx, env, { port: 0 }); // 0 picks a free port
 * const page = await fetch(server.url);
 * assert.equal(page.status, 200);
 * await page.body?.cancel();
 * await server.shutdown();
 * store.close();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { entityPage } from "./pages/entity.ts";
import { isMemaError, type MemaError } from "../errors/mod.ts";
import {
  checkHostHeader,
  checkOriginHeader,
  readBodyWithin,
  type Refusal,
  sameSecret,
} from "../http/guards.ts";
import type { ServiceContext } from "../core/context.ts";
import { logWarn } from "../platform/log.ts";
import { type ActionOutcome, DONE_MESSAGES, runAction } from "./actions.ts";
import { CONSOLE_CSS, CONSOLE_JS } from "./assets.ts";
import {
  CONSOLE_BODY_LIMIT_BYTES,
  CONSOLE_BODY_TIMEOUT_MS,
  CONSOLE_HOST,
  CSRF_FIELD,
  TOKEN_BYTES,
} from "./constants.ts";
import { type Html, html } from "./html.ts";
import { layout, type PageFrame } from "./layout.ts";
import { conflictPage, conflictsPage } from "./pages/conflicts.ts";
import { memoriesPage } from "./pages/memories.ts";
import { memoryPage } from "./pages/memory.ts";
import { timelinePage } from "./pages/timeline.ts";
import { overviewPage } from "./pages/overview.ts";
import { scanQueue } from "./pages/scan_queue.ts";
import { settingsPage } from "./pages/settings.ts";
import type { ConsoleEnv, ConsoleScope, PageResult } from "./scope.ts";
import {
  type ConsoleSession,
  ConsoleSessions,
  safeReturnPath,
  sessionPath,
  splitSessionPath,
} from "./session.ts";
import {
  chooseWorkspace,
  pickWorkspace,
  scopedContext,
  type WorkspaceChoice,
} from "./workspace.ts";

/** A running console. */
export interface ConsoleServer {
  /** The URL to open, with the token. */
  url: string;
  port: number;
  /** Stops listening; resolves when the server has stopped. */
  shutdown(): Promise<void>;
  finished: Promise<void>;
}

/** Options of {@linkcode startConsole}. */
export interface ConsoleOptions {
  /** 0 picks a free port. */
  port: number;
  /** A fixed token (tests); random by default. */
  token?: string;
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(TOKEN_BYTES));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    // base-uri 'self': each page's <base> is its session's root (/s/<secret>/).
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  // Every console URL carries a secret (the token, then the session's): no other origin may see
  // one in a Referer. (Not "no-referrer": with it, Chromium sends "Origin: null" on the
  // console's own form posts.)
  "Referrer-Policy": "same-origin",
  "Cache-Control": "no-store",
};

function respond(body: string | Html, status: number, headers: Record<string, string> = {}) {
  return new Response(String(body), {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8", ...SECURITY_HEADERS, ...headers },
  });
}

function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, {
    status: 303,
    headers: { Location: location, ...SECURITY_HEADERS, ...headers },
  });
}

function refusalPage(refusal: Refusal | { status: number; message: string }): Response {
  return respond(
    html`
      <!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8">
          <title>mema console: refused</title>
          <link rel="stylesheet" href="/static/console.css">
        </head>
        <body>
          <main>
            <h1>Refused</h1>
            <p>${refusal.message}</p>
          </main>
        </body>
      </html>
    `,
    refusal.status,
  );
}

function statusOf(error: MemaError): number {
  switch (error.code) {
    case "not_found":
      return 404;
    case "version_conflict":
      return 409;
    case "storage_busy":
      return 503;
    default:
      return 400;
  }
}

function describeError(error: MemaError): string {
  return `${error.reason}${error.hint ? ` (${error.hint})` : ""}`;
}

/** Starts the console over `base` (whose caller is `console/<user>`). */
export function startConsole(
  base: ServiceContext,
  env: ConsoleEnv,
  options: ConsoleOptions,
): ConsoleServer {
  const token = options.token ?? randomToken();
  const sessions = new ConsoleSessions(randomToken);
  let port = options.port;

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const host = checkHostHeader(request.headers.get("host"), port);
    if (!host.ok) return refusalPage(host);
    const origin = request.headers.get("origin");
    const originVerdict = checkOriginHeader(origin);
    if (!originVerdict.ok) return refusalPage(originVerdict);
    if (request.method === "GET" && url.pathname === "/static/console.css") {
      return respond(CONSOLE_CSS, 200, { "Content-Type": "text/css; charset=utf-8" });
    }
    if (request.method === "GET" && url.pathname === "/static/console.js") {
      return respond(CONSOLE_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" });
    }
    if (request.method === "GET" && url.pathname === "/favicon.ico") {
      return new Response(null, { status: 204, headers: SECURITY_HEADERS });
    }
    const inSession = splitSessionPath(url.pathname);
    if (inSession === undefined) return openSession(request, url);
    const session = sessions.find(inSession.secret);
    if (session === undefined) {
      return refusalPage({
        status: 401,
        message:
          "This console address is not (or no longer) valid: open the URL `mema console` printed (it holds ?token=…).",
      });
    }
    const root = sessionPath(session);
    // Relative links need the trailing slash: `/s/<secret>` alone goes to its overview.
    if (inSession.inner === "") return redirect(`${root}/`);
    const inner = inSession.inner;
    const choice = await chooseWorkspace(base, session.workspace, env.config.workspace);
    const scope: ConsoleScope = {
      ctx: scopedContext(base, choice.workspace),
      workspace: choice.workspace,
      strict: choice.strict,
      csrf: session.csrf,
      url,
      env,
    };
    const frame = (title: string, active: PageFrame["active"]): PageFrame => ({
      title,
      active,
      workspace: choice.workspace,
      workspaces: choice.workspaces,
      allowAll: choice.allowAll,
      base: `${root}/`,
      csrf: session.csrf,
      here: `${inner}${withoutFlash(url.search)}`,
    });
    if (request.method === "POST") {
      return await post(request, { url, inner, session, root, choice, scope, frame, origin });
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return refusalPage({ status: 405, message: `${request.method} is not served here` });
    }
    if (inner === "/workspace") {
      // Switching is a change of state: only the picker's POST (CSRF-checked) does it.
      return respond(
        layout(
          {
            ...frame("Not changed", ""),
            error: "The workspace changes only through the picker in the header (a form POST).",
          },
          html`<p><a href="./">Back to the overview</a></p>`,
        ),
        405,
        { Allow: "POST" },
      );
    }
    try {
      const result = await route(scope, inner);
      if (!result) return refusalPage({ status: 404, message: `nothing at ${inner}` });
      const done = url.searchParams.get("done");
      const flash = done !== null && done in DONE_MESSAGES
        ? DONE_MESSAGES[done as keyof typeof DONE_MESSAGES]
        : undefined;
      return respond(
        layout({ ...frame(result.title, result.active), flash }, result.body),
        result.status ?? 200,
      );
    } catch (error) {
      if (!isMemaError(error)) throw error;
      return respond(
        layout(
          { ...frame("Error", ""), error: describeError(error) },
          html`<p><a href="./">Back to the overview</a></p>`,
        ),
        statusOf(error),
      );
    }
  }

  /**
   * Outside a session only the printed URL is served: its token starts a session, and the
   * browser goes to the session's overview (the token leaves the address bar).
   */
  function openSession(request: Request, url: URL): Response {
    const given = url.searchParams.get("token");
    if (request.method !== "GET" || given === null) {
      return refusalPage({
        status: 401,
        message:
          "This console needs its token: open the URL `mema console` printed (it holds ?token=…).",
      });
    }
    if (!sameSecret(given, token)) {
      return refusalPage({
        status: 401,
        message: "This link's token is not valid: use the URL `mema console` printed.",
      });
    }
    // Always to the overview: the printed URL is `/?token=…`, and a path that came with a
    // token is nothing the console made, so nothing to keep (or to redirect by).
    return redirect(`${sessionPath(sessions.open())}/`);
  }

  async function post(request: Request, at: {
    url: URL;
    inner: string;
    session: ConsoleSession;
    root: string;
    choice: WorkspaceChoice;
    scope: ConsoleScope;
    frame: (title: string, active: PageFrame["active"]) => PageFrame;
    origin: string | null;
  }): Promise<Response> {
    const { url, inner, session, root, choice, scope, frame, origin } = at;
    // Same origin only: another local port is another origin.
    if (origin !== null && new URL(origin).port !== String(port)) {
      return refusalPage({
        status: 403,
        message: `Origin "${origin}" may not change anything here`,
      });
    }
    const type = request.headers.get("content-type") ?? "";
    if (!type.startsWith("application/x-www-form-urlencoded")) {
      return refusalPage({
        status: 415,
        message: "send a form (application/x-www-form-urlencoded)",
      });
    }
    const body = await readBodyWithin(request, CONSOLE_BODY_LIMIT_BYTES, {
      timeoutMs: CONSOLE_BODY_TIMEOUT_MS,
    });
    if (!body.ok) return refusalPage(body);
    const form = new URLSearchParams(body.text);
    const given = form.get(CSRF_FIELD);
    if (given === null || !sameSecret(given, session.csrf)) {
      return refusalPage({
        status: 403,
        message: "the form's CSRF token is missing or wrong: reload the page and try again",
      });
    }
    const referer = request.headers.get("referer");
    const back = returnFromReferer(referer, url.origin, root) ?? "/";
    const notChanged = (error: MemaError) =>
      respond(
        layout(
          { ...frame("Not changed", ""), error: `Nothing was changed: ${describeError(error)}` },
          html`<p><a href="${root}${back}">Back</a></p>`,
        ),
        statusOf(error),
      );
    if (inner === "/workspace") {
      try {
        session.workspace = pickWorkspace(choice, form.get("ws"));
      } catch (error) {
        if (!isMemaError(error)) throw error;
        return notChanged(error);
      }
      return redirect(
        `${root}${safeReturnPath(form.get("back"), { origin: url.origin, root }) ?? "/"}`,
      );
    }
    let outcome: ActionOutcome | undefined;
    try {
      outcome = await runAction(scope, inner, form);
    } catch (error) {
      if (!isMemaError(error)) throw error;
      return notChanged(error);
    }
    if (!outcome) return refusalPage({ status: 404, message: `no action at ${inner}` });
    const separator = outcome.location.includes("?") ? "&" : "?";
    return redirect(`${root}${outcome.location}${separator}done=${outcome.done}`);
  }

  const server = Deno.serve({
    hostname: CONSOLE_HOST,
    port: options.port,
    onListen: () => {},
  }, async (request) => {
    try {
      return await handle(request);
    } catch (error) {
      logWarn(`console: ${request.method} ${new URL(request.url).pathname} failed: ${error}`);
      return refusalPage({
        status: 500,
        message: "Something went wrong; the console's log (stderr) says what.",
      });
    }
  });
  port = (server.addr as Deno.NetAddr).port;
  return {
    url: `http://${CONSOLE_HOST}:${port}/?token=${token}`,
    port,
    finished: server.finished,
    async shutdown() {
      await server.shutdown();
    },
  };
}

/** A query without its `done` message, so a page returned to does not repeat it. */
function withoutFlash(search: string): string {
  const params = new URLSearchParams(search);
  if (!params.has("done")) return search;
  params.delete("done");
  const rest = params.toString();
  return rest === "" ? "" : `?${rest}`;
}

/** The page path inside the session a same-session `Referer` names, or undefined. */
function returnFromReferer(
  referer: string | null,
  origin: string,
  root: string,
): string | undefined {
  if (referer === null) return undefined;
  let from: URL;
  try {
    from = new URL(referer);
  } catch {
    return undefined;
  }
  if (from.origin !== origin || !from.pathname.startsWith(`${root}/`)) return undefined;
  return safeReturnPath(`${from.pathname.slice(root.length)}${from.search}`, { origin, root });
}

async function route(scope: ConsoleScope, path: string): Promise<PageResult | undefined> {
  if (path === "/") return await overviewPage(scope);
  if (path === "/memories") return await memoriesPage(scope);
  const memory = /^\/memories\/(\d+)$/.exec(path);
  if (memory) return await memoryPage(scope, Number(memory[1]));
  const entity = /^\/entities\/(\d+)$/.exec(path);
  if (entity) return await entityPage(scope, Number(entity[1]));
  const timeline = /^\/memories\/(\d+)\/timeline$/.exec(path);
  if (timeline) return await timelinePage(scope, Number(timeline[1]));
  if (path === "/conflicts") return await conflictsPage(scope);
  const conflict = /^\/conflicts\/(\d+)$/.exec(path);
  if (conflict) return await conflictPage(scope, Number(conflict[1]));
  if (path === "/scan-queue") return await scanQueue(scope);
  if (path === "/settings") return settingsPage(scope);
  return undefined;
}
