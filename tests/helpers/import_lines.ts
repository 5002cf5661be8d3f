/**
 * Imports JSONL lines given as objects through the import's own path (`importUnits`), numbered
 * as a file's lines would be.
 * @module
 */
import type { ServiceContext } from "../../src/core/context.ts";
import { importUnits } from "../../src/portability/import.ts";
import { readJsonlUnits } from "../../src/portability/sources.ts";

/** Imports `lines` (one JSONL object each) as the file `import.jsonl`. */
export async function importLines(ctx: ServiceContext, lines: readonly object[]) {
  const source = lines.map((line, index) => ({ line: index + 1, text: JSON.stringify(line) }));
  return await importUnits(ctx, readJsonlUnits(source, "import.jsonl"));
}
