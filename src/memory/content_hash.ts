/**
 * Content fingerprints: the hex SHA-256 of the UTF-8 bytes, so an agent can
 * compute `expected_content_hash` itself.
 *
 * @example
 * ```ts
 * import { contentSha } from "./src/memory/content_hash.ts";
 * contentSha("hello").startsWith("2cf24dba"); // true
 * ```
 * @module
 */
import { createHash } from "node:crypto";

/** Hex SHA-256 of the UTF-8 encoding of `content`. */
export function contentSha(content: string): string {
  return createHash("sha256").update(content, "utf8").digest("hex");
}
