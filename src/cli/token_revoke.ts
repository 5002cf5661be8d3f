/**
 * `mema token revoke LABEL`: removes a token from the file. A running server re-reads the file
 * on its next request, so the token stops working there and then, without a restart.
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { updateTokenFile } from "../http/access_token_file.ts";

/** Runs `mema token revoke` against the token file at `path`; returns the exit code. */
export function revokeToken(path: string, name: string): number {
  const left = updateTokenFile(path, (file) => {
    const index = file.tokens.findIndex((token) => token.name === name);
    if (index < 0) {
      throw new MemaError("not_found", `no token named "${name}" in ${path}`, {
        field: "name",
        hint: "list them with: mema token list",
      });
    }
    file.tokens.splice(index, 1);
    return file.tokens.length;
  });
  console.error(
    `mema: token "${name}" revoked${
      left === 0 ? "; no token is left, so the HTTP server refuses every request" : ""
    }`,
  );
  return 0;
}
