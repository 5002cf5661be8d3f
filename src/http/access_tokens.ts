/**
 * HTTP access tokens bound to an identity and the workspaces it may use: the file format
 * (`http_tokens.json`), its validation, and how a token is made and recognised. The file holds
 * only the SHA-256 of each token; the token itself is shown once, when it is made, and never
 * stored, logged or audited. Pure: reading and writing the file is `access_token_file.ts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findToken, newTokenSecret, parseTokenFile, sha256Hex } from "./access_tokens.ts";
 *
 * const secret = newTokenSecret();
 * const file = parseTokenFile(
 *   JSON.stringify({
 *     format: "mema-http-tokens/1",
 *     tokens: [{
 *       name: "ci",
 *       sha256: await sha256Hex(secret),
 *       client: "ci",
 *       agent_id: "ci-bot",
 *       workspaces: ["alpha"],
 *       created_at: "2026-12-04T00:00:00.000Z",
 *     }],
 *   }),
 *   "http_tokens.json",
 * );
 * assert.equal((await findToken(file, secret))?.name, "ci");
 * ```
 * @module
 */
import { z } from "zod";
import { IDENTITY_PATTERN } from "../config/mod.ts";
import { MemaError } from "../errors/mod.ts";
import { canonicalWorkspace, WORKSPACE_MAX_CHARS } from "../core/workspace_names.ts";
import { sameSecret } from "./guards.ts";
import {
  HTTP_TOKEN_NAME_MAX_CHARS,
  HTTP_TOKEN_PREFIX,
  HTTP_TOKEN_RANDOM_BYTES,
} from "./access_token_constants.ts";

/** The `format` every token file carries, so a future layout is recognised, not misread. */
export const TOKEN_FILE_FORMAT = "mema-http-tokens/1";

/** Every workspace: what `--any-workspace` stores instead of a list. */
export const ANY_WORKSPACE = "*";

/** One token as the file stores it (snake_case, like the config file). */
export interface HttpTokenRecord {
  /** The label `token list` shows and `token revoke` takes; unique in the file. */
  name: string;
  /** Lowercase hex SHA-256 of the token's UTF-8 bytes. */
  sha256: string;
  client: string;
  agent_id: string;
  /** The workspaces it may use, as given, or `"*"` for any. */
  workspaces: string[] | typeof ANY_WORKSPACE;
  created_at: string;
}

/** The whole file. */
export interface HttpTokenFile {
  format: typeof TOKEN_FILE_FORMAT;
  tokens: HttpTokenRecord[];
}

const identity = (max: number) =>
  z.string().min(1).max(max).regex(IDENTITY_PATTERN, "use only letters, digits and . _ : @ -");

const recordSchema = z.object({
  name: identity(HTTP_TOKEN_NAME_MAX_CHARS),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "a lowercase hex SHA-256"),
  client: identity(64),
  agent_id: identity(128),
  workspaces: z.union([z.literal(ANY_WORKSPACE), z.array(identity(WORKSPACE_MAX_CHARS)).min(1)]),
  created_at: z.string().min(1),
}).strict();

const fileSchema = z.object({
  format: z.literal(TOKEN_FILE_FORMAT),
  tokens: z.array(recordSchema),
}).strict();

/** An empty token file. */
export function emptyTokenFile(): HttpTokenFile {
  return { format: TOKEN_FILE_FORMAT, tokens: [] };
}

/**
 * Parses and checks a token file's text. Anything malformed (bad JSON, an unknown field, a
 * repeated name or hash) is a `config_invalid` naming the file: a token file that cannot be
 * understood must never be half-applied.
 */
export function parseTokenFile(text: string, path: string): HttpTokenFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new MemaError("config_invalid", `the token file ${path} is not valid JSON`, {
      field: "http_tokens_file",
      hint: "fix or remove it; `mema token add` writes a new one",
      cause: error,
    });
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MemaError(
      "config_invalid",
      `the token file ${path} is malformed at ${
        issue.path.join(".") || "the top"
      }: ${issue.message}`,
      { field: "http_tokens_file", hint: "fix it, or manage it only with `mema token`" },
    );
  }
  const file = parsed.data as HttpTokenFile;
  const names = new Set<string>();
  const hashes = new Set<string>();
  for (const token of file.tokens) {
    if (names.has(token.name) || hashes.has(token.sha256)) {
      throw new MemaError(
        "config_invalid",
        `the token file ${path} holds token "${token.name}" twice`,
        { field: "http_tokens_file", hint: "remove the repeated entry" },
      );
    }
    names.add(token.name);
    hashes.add(token.sha256);
  }
  return file;
}

/** The file's text: stable key order, one token per block, a final newline. */
export function serializeTokenFile(file: HttpTokenFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** A new random token: a recognisable prefix, then 256 bits in base64url. */
export function newTokenSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(HTTP_TOKEN_RANDOM_BYTES));
  // base64url: header-safe and inside the bearer alphabet the shared token uses too.
  const base64 = btoa(String.fromCharCode(...bytes));
  return `${HTTP_TOKEN_PREFIX}${
    base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")
  }`;
}

/** Lowercase hex SHA-256 of a string's UTF-8 bytes. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The token whose hash matches `secret`, or undefined. Every entry is compared, each in
 * constant time, so how long the search takes says nothing about which entry (if any) matched.
 */
export async function findToken(
  file: HttpTokenFile,
  secret: string,
): Promise<HttpTokenRecord | undefined> {
  const hash = await sha256Hex(secret);
  let found: HttpTokenRecord | undefined;
  for (const token of file.tokens) {
    if (sameSecret(hash, token.sha256) && found === undefined) found = token;
  }
  return found;
}

/** The canonical workspaces a token may use, or undefined for any. */
export function tokenWorkspaces(token: HttpTokenRecord): string[] | undefined {
  return token.workspaces === ANY_WORKSPACE
    ? undefined
    : token.workspaces.map((name) => canonicalWorkspace(name));
}
