/**
 * Content fingerprints: the hex SHA-256 of the UTF-8 bytes, so an agent can
 * compute `expected_content_hash` itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentSha } from "./content_hash.ts";
 *
 * assert.ok(contentSha("hello").startsWith("2cf24dba"));
 * ```
 * @module
 */
import { createHash } from "node:crypto";

/** Hex SHA-256 of the UTF-8 encoding of `content`. */
export function contentSha(content: string): string {
  return createHash("sha256").update(content, "utf8").digest("hex");
}
