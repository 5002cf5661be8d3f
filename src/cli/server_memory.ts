/**
 * `mema import FILE --format server-memory` and `mema export DIR --format server-memory`: the
 * MCP reference server-memory's `memory.jsonl` in and out (src/portability/server_memory.ts).
 * @module
 */
import type { ServiceContext } from "../core/context.ts";
import { readTextStrict, writeTextAtomic } from "../platform/files.ts";
import { ensureDir } from "../platform/directories.ts";
import {
  exportServerMemory,
  importServerMemory,
  parseServerMemory,
  serverMemoryLines,
} from "../portability/server_memory.ts";
import type { Store } from "../store/mod.ts";

/** The `--format` of import and export that reads and writes server-memory's graph. */
export const SERVER_MEMORY_FORMAT = "server-memory";

/** The file name server-memory keeps its graph in (its `MEMORY_FILE_PATH` default). */
export const SERVER_MEMORY_FILE = "memory.jsonl";

/** Imports each file; prints one summary line; resolves with the exit code. */
export async function importServerMemoryFiles(
  ctx: ServiceContext,
  files: readonly string[],
  options: { workspace?: string },
): Promise<number> {
  let [created, unchanged, skipped] = [0, 0, 0];
  for (const file of files) {
    const report = await importServerMemory(ctx, parseServerMemory(readTextStrict(file)), options);
    for (const entry of report.skipped) {
      console.error(`mema import: skipped ${file}:${entry.line}: ${entry.reason}`);
    }
    created += report.created;
    unchanged += report.unchanged;
    skipped += report.skipped.length;
  }
  console.log(
    `imported ${files.length} server-memory file(s): ${created} new, ${unchanged} unchanged; ${skipped} skipped`,
  );
  return skipped > 0 ? 1 : 0;
}

/** Writes DIR/memory.jsonl; prints one summary line. */
export async function exportServerMemoryTo(
  store: Store,
  dir: string,
  options: { workspace?: string },
): Promise<number> {
  const graph = await exportServerMemory(store, options);
  ensureDir(dir);
  const lines = serverMemoryLines(graph);
  writeTextAtomic(`${dir}/${SERVER_MEMORY_FILE}`, lines.length > 0 ? `${lines.join("\n")}\n` : "");
  console.log(
    `exported ${graph.entities.length} entities and ${graph.relations.length} relations to ${dir}/${SERVER_MEMORY_FILE}`,
  );
  return 0;
}
