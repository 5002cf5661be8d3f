/**
 * Readers of other memory tools' exports, one module per format, each turning a file into
 * the import units `importUnits` stores (see docs/import-export.md, "Coming from another tool").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readExport } from "./mod.ts";
 *
 * const read = readExport("mem0", '{"results": [{"id": "m1", "memory": "Likes tea"}, 7]}', {
 *   path: "mem0.json",
 *   workspacePer: "project",
 * });
 * assert.equal(read.units.length, 1);
 * assert.equal(read.skipped[0].at, "$.results[1]");
 * ```
 * @module
 */
import { chatgptUnits } from "./chatgpt.ts";
import { claudeUnits } from "./claude.ts";
import { mcpMemoryServiceUnits } from "./mcp_memory_service.ts";
import { mem0Units } from "./mem0.ts";
import type { FormatOptions, FormatRead, ImportFormat } from "./types.ts";

export { basicMemoryUnit, readNoteSemantics } from "./basic_memory.ts";
export {
  type FormatOptions,
  type FormatRead,
  IMPORT_FORMATS,
  type ImportFormat,
  WORKSPACE_PER,
  type WorkspacePer,
} from "./types.ts";

/** The formats read from one JSON file (basic-memory is a folder of notes). */
export type JsonExportFormat = Exclude<ImportFormat, "basic-memory">;

const READERS: Record<JsonExportFormat, (text: string, options: FormatOptions) => FormatRead> = {
  "mem0": mem0Units,
  "mcp-memory-service": mcpMemoryServiceUnits,
  "claude": claudeUnits,
  "chatgpt": chatgptUnits,
};

/** Reads one JSON export of `format`: its units, and its bad records with their JSON paths. */
export function readExport(
  format: JsonExportFormat,
  text: string,
  options: FormatOptions,
): FormatRead {
  return READERS[format](text, options);
}

/** The file a folder holds for a format whose export is a folder (`conversations.json`). */
export const EXPORT_FILE_IN_FOLDER: Partial<Record<JsonExportFormat, string>> = {
  claude: "conversations.json",
  chatgpt: "conversations.json",
};
