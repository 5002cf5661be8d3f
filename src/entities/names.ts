/**
 * What makes two names one entity: the key a name folds to (case, width, spacing, a leading
 * "the", a possessive) and a small built-in table of names that are known to be the same thing
 * (Postgres = PostgreSQL = PG). The library adds its own aliases ("Kubernetes (K8s)"), read by
 * extract.ts; governance merges and splits what neither saw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { aliasKeys, nameKey } from "./names.ts";
 *
 * assert.equal(nameKey("The  Payments API's"), "payments api");
 * assert.deepEqual(aliasKeys("PG"), ["pg", "postgresql", "postgres", "psql"]);
 * ```
 * @module
 */

/**
 * Spellings whose keys are kept (a graph write folds the same few names many times: one
 * memory's clusters, lookups and relations; a bulk import's batch repeats its speakers).
 */
const KEYS_KEPT = 4_096;
const keys = new Map<string, string>();

/** The folded form two spellings of one name share. */
export function nameKey(words: string): string {
  let key = keys.get(words);
  if (key === undefined) {
    key = foldName(words);
    // Dropped whole when full: simpler than an order, and refilled within a batch.
    if (keys.size >= KEYS_KEPT) keys.clear();
    keys.set(words, key);
  }
  return key;
}

function foldName(words: string): string {
  return words.normalize("NFKC").toLowerCase()
    .replace(/[\u2019']s$/u, "")
    .replace(/\s+/gu, " ")
    .replace(/^(?:the|a|an) /u, "")
    .replace(/[.,;:!?]+$/u, "")
    .trim();
}

/**
 * Names known to be one thing. Only widely used spellings whose short form is not an ordinary
 * word in a technical note ("go", "es" and "node" alone are left out: they are words).
 */
const KNOWN_ALIASES: readonly (readonly string[])[] = [
  ["postgresql", "postgres", "pg", "psql"],
  ["kubernetes", "k8s", "kube"],
  ["javascript", "js", "ecmascript"],
  ["typescript", "ts"],
  ["mongodb", "mongo"],
  ["node.js", "nodejs"],
  ["amazon web services", "aws"],
  ["google cloud platform", "gcp", "google cloud"],
  ["microsoft azure", "azure"],
  ["sql server", "mssql", "microsoft sql server"],
  ["rabbitmq", "rabbit"],
  ["elasticsearch", "elastic search"],
  ["react", "react.js", "reactjs"],
  ["vue", "vue.js", "vuejs"],
  ["golang", "go language"],
  ["github", "gh"],
  ["visual studio code", "vs code", "vscode"],
];

const GROUP_OF = new Map<string, readonly string[]>();
for (const group of KNOWN_ALIASES) for (const key of group) GROUP_OF.set(key, group);

/** The keys a name may be stored under: its own first, then the built-in table's. */
export function aliasKeys(words: string): string[] {
  const key = nameKey(words);
  const group = GROUP_OF.get(key);
  return group === undefined ? [key] : [key, ...group.filter((other) => other !== key)];
}
