/**
 * The install root of playwright-core, which drives Chromium in the console's browser tests and
 * `deno task screenshots` (`scripts/dev_tools.ts`), pinned by `playwright.lock`. Nothing imports
 * it, so `deno task start` never downloads it. JavaScript, not TypeScript, so that the
 * type-check of the scripts (their .ts files) never reads it: that would add the package to
 * deno.lock.
 * @module
 */
// deno-lint-ignore no-import-prefix -- on purpose: in deno.json it would install for every run
import "npm:playwright-core@1.65.1";
