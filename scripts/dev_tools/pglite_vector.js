/**
 * The install root of pgvector built for PGlite, pinned by `pglite_vector.lock`; with PGlite
 * (`pglite.js`) it serves the pgvector path's tests (scripts/pglite_server.ts). JavaScript for
 * the reason `playwright.js` gives.
 * @module
 */
// deno-lint-ignore no-import-prefix -- on purpose: in deno.json it would install for every run
import "npm:@electric-sql/pglite-pgvector@0.0.16";
