/**
 * The install root of PGlite (PostgreSQL compiled to WebAssembly), pinned by `pglite.lock`. Only
 * the tests of the pgvector path use it, through scripts/pglite_server.ts. JavaScript for the
 * reason `playwright.js` gives.
 * @module
 */
// deno-lint-ignore no-import-prefix -- on purpose: in deno.json it would install for every run
import "npm:@electric-sql/pglite@0.5.15";
