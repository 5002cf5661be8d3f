/**
 * Console sessions as capability URLs. Opening the printed `/?token=…` URL starts a session whose
 * secret lives in the path (`/s/<secret>/…`); every page links relative to it, and the browser
 * holds nothing else: no cookie, which any other program serving on 127.0.0.1 would receive (a
 * cookie is scoped to a host, not a port) and could replay with whatever headers it likes. The
 * session's other state (its CSRF value, the workspace in view) stays here, server-side, where
 * another local app cannot toss a cookie over it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConsoleSessions, sessionPath, splitSessionPath } from "./session.ts";
 * const sessions = new ConsoleSessions(() => crypto.randomUUID());
 * const session = sessions.open();
 * const where = splitSessionPath(`${sessionPath(session)}/memories/12`);
 * assert.equal(sessions.find(where!.secret), session);
 * assert.equal(where!.inner, "/memories/12");
 * ```
 * @module
 */
import { sameSecret } from "../http/guards.ts";
import { MAX_CONSOLE_SESSIONS, MAX_RETURN_PATH_CHARS, SESSION_PATH_PREFIX } from "./constants.ts";

/** One opening of the console in a browser. */
export interface ConsoleSession {
  /** The capability: whoever knows it is the user. */
  readonly secret: string;
  /** The value every state-changing form of this session carries. */
  readonly csrf: string;
  /** The picker's choice: `*` (all), a canonical workspace name, or undefined (the default). */
  workspace?: string;
}

/** The sessions of one console process (gone when it stops). */
export class ConsoleSessions {
  /** Least recently used first. */
  #sessions: ConsoleSession[] = [];

  constructor(private readonly randomSecret: () => string) {}

  /** Starts a session; past {@linkcode MAX_CONSOLE_SESSIONS} the least recently used ends. */
  open(): ConsoleSession {
    const session: ConsoleSession = { secret: this.randomSecret(), csrf: this.randomSecret() };
    this.#sessions.push(session);
    if (this.#sessions.length > MAX_CONSOLE_SESSIONS) this.#sessions.shift();
    return session;
  }

  /**
   * The session with this secret, or undefined. Every session is compared in constant time
   * (a handful at most), so the time taken says nothing about how much of a guess was right.
   */
  find(secret: string): ConsoleSession | undefined {
    let found: ConsoleSession | undefined;
    for (const session of this.#sessions) {
      if (sameSecret(secret, session.secret)) found = session;
    }
    if (found) {
      this.#sessions.splice(this.#sessions.indexOf(found), 1);
      this.#sessions.push(found);
    }
    return found;
  }
}

/** The session's root path, without the trailing slash: `/s/<secret>`. */
export function sessionPath(session: ConsoleSession): string {
  return `${SESSION_PATH_PREFIX}${session.secret}`;
}

/** A request path split into the session secret it names and the page path inside it. */
export interface SessionRequestPath {
  secret: string;
  /** The path inside the session, from its `/` (empty when the URL stops at the secret). */
  inner: string;
}

/** Splits `/s/<secret>/inner…`; undefined for a path outside any session. */
export function splitSessionPath(pathname: string): SessionRequestPath | undefined {
  if (!pathname.startsWith(SESSION_PATH_PREFIX)) return undefined;
  const rest = pathname.slice(SESSION_PATH_PREFIX.length);
  const slash = rest.indexOf("/");
  const secret = slash === -1 ? rest : rest.slice(0, slash);
  if (secret === "") return undefined;
  return { secret, inner: slash === -1 ? "" : rest.slice(slash) };
}

/**
 * Characters a return path may hold: RFC 3986's path and query characters, `%` only before two
 * hex digits. Everything else is refused, not cleaned: browsers drop tabs and newlines from URLs
 * (so `/\t/host` becomes `//host`), read `\` as `/`, and a space or quote has no business in a
 * URL the console itself made.
 */
const RETURN_PATH = /^\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/;

/** Where a return path must lead: the console's origin and the session's root (`/s/<secret>`). */
export interface ReturnScope {
  origin: string;
  root: string;
}

/**
 * `inner` when it is a page path inside the session that leads nowhere else, or undefined: it
 * must start with one `/`, hold only {@linkcode RETURN_PATH}'s characters, no `//` and no
 * `.`/`..` segment in its path part, and come out of URL parsing unchanged, on the console's
 * origin under the session's root. The caller falls back to the overview.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { safeReturnPath } from "./session.ts";
 * const within = { origin: "http://127.0.0.1:8766", root: "/s/abc" };
 * assert.equal(safeReturnPath("/memories?q=office", within), "/memories?q=office");
 * assert.equal(safeReturnPath("/\t/evil.example/", within), undefined);
 * ```
 */
export function safeReturnPath(
  inner: string | null | undefined,
  within: ReturnScope,
): string | undefined {
  if (typeof inner !== "string" || inner.length > MAX_RETURN_PATH_CHARS) return undefined;
  if (!RETURN_PATH.test(inner)) return undefined;
  const path = inner.split("?")[0];
  if (path.includes("//")) return undefined;
  if (path.split("/").some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))) return undefined;
  const wanted = `${within.root}${inner}`;
  let resolved: URL;
  try {
    resolved = new URL(wanted, within.origin);
  } catch {
    return undefined;
  }
  if (resolved.origin !== new URL(within.origin).origin) return undefined;
  if (`${resolved.pathname}${resolved.search}` !== wanted) return undefined;
  return inner;
}
