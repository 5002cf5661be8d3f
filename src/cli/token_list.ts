/**
 * `mema token list`: the tokens' labels, identities, workspaces and creation times. Never a
 * secret: the file has none, and the hash is left out too (it identifies nothing to a person).
 * @module
 */
import { readTokenFile } from "../http/access_token_file.ts";

/** Runs `mema token list` against the token file at `path`; returns the exit code. */
export function listTokens(path: string, options: { json: boolean }): number {
  const file = readTokenFile(path);
  const tokens = (file?.tokens ?? []).map((token) => ({
    name: token.name,
    client: token.client,
    agent_id: token.agent_id,
    workspaces: token.workspaces,
    created_at: token.created_at,
  }));
  if (options.json) {
    console.log(JSON.stringify({ file: path, exists: file !== undefined, tokens }, null, 2));
    return 0;
  }
  if (file === undefined) {
    console.error(`mema: no token file at ${path}: the HTTP server trusts identity headers`);
    return 0;
  }
  if (tokens.length === 0) {
    console.error(`mema: ${path} holds no tokens: the HTTP server refuses every request`);
    return 0;
  }
  const rows = [
    ["NAME", "CLIENT", "AGENT ID", "WORKSPACES", "CREATED"],
    ...tokens.map((token) => [
      token.name,
      token.client,
      token.agent_id,
      typeof token.workspaces === "string" ? "(any)" : token.workspaces.join(","),
      token.created_at,
    ]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows) {
    console.log(row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd());
  }
  return 0;
}
