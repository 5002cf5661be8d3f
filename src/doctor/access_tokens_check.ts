/**
 * Doctor's check of the per-caller HTTP token file: absent (info: HTTP callers name themselves
 * in headers), unreadable or malformed (critical: `mema serve --http` refuses to start and a
 * running server refuses every request), readable by other local users (warning: the file holds
 * only hashes, but who may call as whom is nobody else's business), or in order (info: how many
 * tokens, how many may use every workspace). Never prints a hash.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { httpTokenFindings } from "./access_tokens_check.ts";
 * const [finding] = httpTokenFindings({ tokensFile: "/nonexistent/http_tokens.json" });
 * assert.equal(finding.check_id, "http.tokens");
 * assert.equal(finding.severity, "info");
 * ```
 * @module
 */
import { isMemaError } from "../errors/mod.ts";
import { readTokenFile } from "../http/access_token_file.ts";
import { ANY_WORKSPACE } from "../http/access_tokens.ts";
import { filePermissions } from "../platform/file_info.ts";
import type { Finding } from "./mod.ts";

/** What the check needs of the configuration. */
export interface TokenFileLocation {
  /** The token file's path (`http.tokensFile` of the config). */
  tokensFile: string;
}

/** One or two findings about the token file. */
export function httpTokenFindings(config: TokenFileLocation): Finding[] {
  const path = config.tokensFile;
  let file;
  try {
    file = readTokenFile(path);
  } catch (error) {
    return [{
      check_id: "http.tokens",
      severity: "critical",
      title: "the HTTP token file cannot be read",
      detail: `${path}: ${isMemaError(error) ? error.reason : String(error)}`,
      fix_hint: isMemaError(error) && error.hint
        ? error.hint
        : "fix or remove the file; `mema token list` shows what mema reads from it",
    }];
  }
  if (file === undefined) {
    return [{
      check_id: "http.tokens",
      severity: "info",
      title: "no per-caller HTTP tokens: HTTP callers name themselves in headers",
      detail: `${path} does not exist`,
      fix_hint:
        "for a server several people share, give each one a token: `mema token add --client C --agent-id A --workspace W`",
    }];
  }
  const everywhere = file.tokens.filter((token) => token.workspaces === ANY_WORKSPACE).length;
  const findings: Finding[] = [{
    check_id: "http.tokens",
    severity: "info",
    title: `${file.tokens.length} per-caller HTTP token(s)`,
    detail: `${path}; ${everywhere} may use every workspace`,
  }];
  const permissions = filePermissions(path);
  if (permissions !== undefined && (permissions & 0o077) !== 0) {
    findings.push({
      check_id: "http.tokens_permissions",
      severity: "warning",
      title: "other local users can read the HTTP token file",
      detail: `${path} has mode ${permissions.toString(8).padStart(3, "0")}`,
      fix_hint: `chmod 600 ${path}`,
    });
  }
  return findings;
}
