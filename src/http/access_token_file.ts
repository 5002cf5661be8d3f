/**
 * Reading and rewriting the HTTP token file. A rewrite (add, revoke) holds a lock file beside
 * it, reads the current file, changes it and renames a new one into place (owner-only), so two
 * `mema token` commands at once both land and a server re-reading the file never sees half of it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTokenFile } from "./access_token_file.ts";
 *
 * assert.equal(readTokenFile("/nonexistent/http_tokens.json"), undefined); // no file, no tokens
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { sleepSync } from "../platform/clock.ts";
import { ensureDir } from "../platform/directories.ts";
import { modifiedAt } from "../platform/file_info.ts";
import {
  createFileExclusive,
  readTextIfExists,
  removeFileIfExists,
  writeTextPrivateAtomic,
} from "../platform/files.ts";
import { dirName } from "../platform/paths.ts";
import {
  TOKEN_FILE_LOCK_RETRY_MS,
  TOKEN_FILE_LOCK_STALE_MS,
  TOKEN_FILE_LOCK_WAIT_MS,
} from "./access_token_constants.ts";
import {
  emptyTokenFile,
  type HttpTokenFile,
  parseTokenFile,
  serializeTokenFile,
} from "./access_tokens.ts";

/** The token file at `path`, or undefined when there is none; malformed is `config_invalid`. */
export function readTokenFile(path: string): HttpTokenFile | undefined {
  const text = readTextIfExists(path);
  return text === undefined ? undefined : parseTokenFile(text, path);
}

function takeLock(lockPath: string): void {
  const deadline = Date.now() + TOKEN_FILE_LOCK_WAIT_MS;
  for (;;) {
    if (createFileExclusive(lockPath)) return;
    const since = modifiedAt(lockPath);
    if (since !== undefined && Date.now() - since > TOKEN_FILE_LOCK_STALE_MS) {
      removeFileIfExists(lockPath);
      continue;
    }
    if (Date.now() > deadline) {
      throw new MemaError("storage_busy", `the token file is locked by another process`, {
        field: "http_tokens_file",
        hint: `retry in a moment; if no \`mema token\` command is running, remove ${lockPath}`,
      });
    }
    sleepSync(TOKEN_FILE_LOCK_RETRY_MS);
  }
}

/**
 * Applies `change` to the current file (an empty one when there is none) and writes the result
 * in place, under the lock; returns what `change` returned. A throw from `change` writes nothing.
 */
export function updateTokenFile<T>(path: string, change: (file: HttpTokenFile) => T): T {
  ensureDir(dirName(path));
  const lockPath = `${path}.lock`;
  takeLock(lockPath);
  try {
    const file = readTokenFile(path) ?? emptyTokenFile();
    const result = change(file);
    writeTextPrivateAtomic(path, serializeTokenFile(file));
    return result;
  } finally {
    removeFileIfExists(lockPath);
  }
}
