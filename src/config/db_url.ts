/**
 * The `db_url` setting: a `postgres://` URL naming a shared PostgreSQL database
 * (docs/SPEC.md §15), and the redaction that keeps its credentials out of logs, `status`,
 * `doctor` and errors.
 *
 * Credentials reach PostgreSQL from the URL's password, `PGPASSWORD` or a password file
 * (`PGPASSFILE`, `~/.pgpass`); only the first two pass through mema's hands, so those are what
 * {@linkcode redactDbSecrets} removes from any text that might quote them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkDbUrl, redactDbUrl } from "./db_url.ts";
 *
 * const url = checkDbUrl("postgres://team:s3cret@db.example:5432/mema", "db_url");
 * assert.equal(redactDbUrl(url), "postgres://team:***@db.example:5432/mema");
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { envVar } from "../platform/env.ts";

/** What stands in for a credential wherever text would have shown it. */
export const REDACTED = "***";

/** URL schemes PostgreSQL's own clients accept. */
const SCHEMES = new Set(["postgres:", "postgresql:"]);

/** Query parameters that carry a secret (libpq's names). */
const SECRET_PARAMETERS = new Set(["password", "sslpassword"]);

/** True when `value` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * `value` when it is a usable `postgres://` URL; otherwise a `config_invalid` naming `origin`
 * (the setting it came from), whose message shows the URL without its password.
 */
export function checkDbUrl(value: string, origin: string): string {
  const fail = (reason: string) =>
    new MemaError("config_invalid", `${origin} ${reason} (got "${redactDbUrl(value)}")`, {
      field: origin,
      hint:
        "use postgres://USER@HOST:PORT/DATABASE (the password from PGPASSWORD or ~/.pgpass, or in the URL), or leave db_url unset for the SQLite file",
    });
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fail("is not a URL");
  }
  if (!SCHEMES.has(url.protocol)) throw fail("must start with postgres:// or postgresql://");
  if (url.hostname === "" && !url.searchParams.get("host")) {
    throw fail("names no host (give HOST, or ?host=/socket/dir for a unix socket)");
  }
  if (url.port !== "" && !(Number(url.port) >= 1 && Number(url.port) <= 65_535)) {
    throw fail("has a port outside 1-65535");
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (database === "" || database.includes("/")) {
    throw fail("names no database (end the URL with /DATABASE)");
  }
  return value;
}

/** `url` with its password and secret query parameters replaced by {@linkcode REDACTED}. */
export function redactDbUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Unparseable: nothing tells where a password would sit, so only the scheme is shown.
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? "";
    return `${scheme}${REDACTED}`;
  }
  if (parsed.password !== "") parsed.password = REDACTED;
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMETERS.has(name.toLowerCase())) parsed.searchParams.set(name, REDACTED);
  }
  // URL escapes "*" in a password; the marker reads better as typed.
  return parsed.href.replaceAll("%2A%2A%2A", REDACTED);
}

/** The secrets of `url` and the environment that text must never show. */
function secretsOf(url: string | undefined): string[] {
  const secrets: string[] = [];
  const add = (value: string | null | undefined) => {
    if (value) secrets.push(value, encodeURIComponent(value));
  };
  if (url !== undefined) {
    try {
      const parsed = new URL(url);
      add(parsed.password);
      add(decodeURIComponent(parsed.password));
      for (const [name, value] of parsed.searchParams) {
        if (SECRET_PARAMETERS.has(name.toLowerCase())) add(value);
      }
    } catch {
      // An unparseable URL: redactDbUrl below still masks its user-info part.
    }
  }
  add(envVar("PGPASSWORD"));
  // Longest first, so a secret that contains another is masked whole.
  return [...new Set(secrets)].sort((a, b) => b.length - a.length);
}

/**
 * `text` (an error message, a log line) with every credential of `url` and `PGPASSWORD` replaced
 * by {@linkcode REDACTED}, and the URL itself, where quoted, shown redacted.
 */
export function redactDbSecrets(text: string, url?: string): string {
  let out = url === undefined ? text : text.replaceAll(url, redactDbUrl(url));
  for (const secret of secretsOf(url)) out = out.replaceAll(secret, REDACTED);
  return out;
}
