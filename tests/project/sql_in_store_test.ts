/**
 * SQL lives only in `src/store/`: no other source file opens SQLite or holds the text of a
 * statement, a PRAGMA, or FTS5 query syntax. Services hand the store values; the store's
 * backend decides how they become a query (docs/ARCHITECTURE.md, "The store seam").
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";

/** Source files under `src/`, store excluded, relative to the repository. */
function sourcesOutsideStore(dir = "src"): string[] {
  const files: string[] = [];
  for (const entry of Deno.readDirSync(`${ROOT}/${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && path !== "src/store") files.push(...sourcesOutsideStore(path));
    if (entry.isFile && entry.name.endsWith(".ts")) files.push(path);
  }
  return files;
}

/**
 * What SQL looks like inside a string literal. Each pattern needs the shape of a statement
 * (a keyword and what must follow it), so prose such as "PRAGMA quick_check passed" in a
 * finding's title or a constant named `DATE_MATCH_WEIGHT` does not count.
 */
const SQL_SHAPES: [string, RegExp][] = [
  ["SELECT … FROM / SELECT fn()", /\bSELECT\s+(?:[\w*.,\s()]+?\s+FROM\b|\w+\s*\()/],
  ["INSERT INTO", /\bINSERT\s+(?:OR\s+\w+\s+)?INTO\s+\w+/],
  ["UPDATE … SET", /\bUPDATE\s+\w+\s+SET\b/],
  ["DELETE FROM", /\bDELETE\s+FROM\s+\w+/],
  ["CREATE TABLE / INDEX / VIRTUAL TABLE", /\bCREATE\s+(?:VIRTUAL\s+|TEMP\s+)?(?:TABLE|INDEX)\b/],
  ["PRAGMA name = / PRAGMA name;", /\bPRAGMA\s+\w+\s*(?:=|\(|;|$)/m],
  ["FTS5 MATCH", /\bMATCH\s+\?|\bMATCH\s+'/],
  ["FTS5 boolean operators joining terms", /^\s*(?:OR|AND|NOT)\s*$/],
  ["BEGIN / COMMIT / ROLLBACK", /^\s*(?:BEGIN(?:\s+IMMEDIATE)?|COMMIT|ROLLBACK)\s*$/],
];

/** The contents of the string and template literals of a TypeScript source. */
function stringLiterals(source: string): string[] {
  const out: string[] = [];
  const literal = /"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g;
  for (const match of source.matchAll(literal)) out.push(match[1] ?? match[2] ?? match[3]);
  return out;
}

/** Comments go: they may quote SQL to explain a choice. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

Deno.test("no source file outside src/store opens SQLite or holds SQL text", () => {
  const found: string[] = [];
  for (const path of sourcesOutsideStore()) {
    const source = withoutComments(Deno.readTextFileSync(`${ROOT}/${path}`));
    if (/from\s+["']node:sqlite["']/.test(source)) found.push(`${path}: imports node:sqlite`);
    for (const text of stringLiterals(source)) {
      for (const [name, shape] of SQL_SHAPES) {
        if (shape.test(text)) {
          found.push(`${path}: ${name} in ${JSON.stringify(text.slice(0, 80))}`);
        }
      }
    }
  }
  assert.deepEqual(found, [], `SQL belongs in src/store/:\n${found.join("\n")}`);
});

Deno.test("the SQL shapes recognise the statements they are meant to catch", () => {
  const caught = (text: string) => SQL_SHAPES.some(([, shape]) => shape.test(text));
  for (
    const sql of [
      "SELECT vec_version() AS v",
      "SELECT count(*) AS n FROM memories",
      "CREATE VIRTUAL TABLE t USING fts5(x)",
      "PRAGMA quick_check;",
      "PRAGMA busy_timeout = 5000",
      "INSERT INTO meta(key, value) VALUES (?, ?)",
      "UPDATE memories SET status = ?",
      "DELETE FROM notices WHERE id = ?",
      "memories_terms MATCH ?",
      " OR ",
    ]
  ) assert.ok(caught(sql), sql);
  for (
    const prose of [
      "PRAGMA quick_check passed",
      "select a workspace",
      "Or pick another",
      "update the memory first",
    ]
  ) assert.ok(!caught(prose), prose);
});
