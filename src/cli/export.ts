/**
 * `mema export DIR [--format md|jsonl] [--workspace W] [--include-history]`: the facts in
 * force as one Markdown file per memory (`DIR/<workspace>/<id>-<subject>.md`) or one JSONL
 * file (`DIR/memories.jsonl`, optionally with every earlier version). Files appear only once
 * complete (written beside, then renamed); a Markdown export appears only once every file is
 * written, and a failure leaves DIR as it was.
 * @module
 */
import { loadConfig } from "../config/mod.ts";
import { MemaError } from "../errors/mod.ts";
import {
  ensureDir,
  listEntries,
  makeTempDirIn,
  removeTreeIfExists,
} from "../platform/directories.ts";
import {
  openTextWriter,
  renamePath,
  type TextFileWriter,
  writeTextAtomic,
} from "../platform/files.ts";
import { absolutePath, pathExists, pathKind } from "../platform/paths.ts";
import { stderrIsTerminal } from "../platform/terminal.ts";
import { EXPORT_PAGE_MEMORIES } from "../portability/constants.ts";
import { exportPage, jsonlHeader, jsonlLine, markdownFile } from "../portability/export.ts";
import type { Store } from "../store/mod.ts";
import { openDatabase } from "../app/mod.ts";
import { createStreamProgress } from "./stream_progress.ts";
import { type CommandSpec, parseCommandArgs, UsageError } from "./command.ts";
import { reportFailure } from "./output.ts";
import { exportServerMemoryTo } from "./server_memory.ts";

/** The name of the JSONL file inside the export directory. */
export const JSONL_EXPORT_NAME = "memories.jsonl";

/** `mema export`: its help and flags. */
export const exportSpec: CommandSpec = {
  name: "export",
  summary: "write the facts in force out as Markdown files or one JSONL file",
  usage: [
    "export DIR [--format md|jsonl|server-memory] [--workspace W] [--include-history] [--quiet] [--db PATH]",
  ],
  description: [
    "One Markdown file per memory (DIR/<workspace>/<id>-<subject>.md, with frontmatter), or",
    "with --format jsonl one file, DIR/memories.jsonl (--include-history adds every version).",
    "Files appear only once complete; a failed export leaves DIR as it was. Names longer than",
    "200 bytes are shortened with a hash suffix (the frontmatter keeps the real names).",
    "Export only reads the database.",
  ].join("\n"),
  positionals: [{ name: "DIR", help: "the directory to write into (created if missing)" }],
  flags: {
    format: {
      type: "string",
      value: "md|jsonl|server-memory",
      help: "file format (default md); server-memory: DIR/memory.jsonl of the MCP memory server",
    },
    workspace: { type: "string", value: "W", help: "export one workspace only" },
    "include-history": { type: "boolean", help: "with --format jsonl: every earlier version" },
    quiet: { type: "boolean", short: "q", help: "no progress display on a terminal" },
    db: { type: "string", value: "PATH", help: "database file (default MEMA_DB_PATH)" },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
  },
  exitCodes: {
    0: "exported",
    1: "the export failed (the reason is on stderr)",
    2: "bad command line",
  },
  run: exportCommand,
};

/** The name prefix of the hidden folder a Markdown export is written into before it is moved. */
const STAGING_PREFIX = ".mema-export-";

/** A file-system failure while exporting as a clear error saying what became of DIR. */
function writeFailure(error: unknown, dir: string): unknown {
  if (error instanceof MemaError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new MemaError(
    "storage_error",
    `cannot write the export into ${dir}: ${reason}; nothing was exported (${dir} holds what it held before)`,
    { hint: "free space or choose another directory, then run mema export again" },
  );
}

/**
 * Moves a finished export from its staging folder into DIR: a workspace folder that DIR does
 * not have yet moves whole, otherwise file by file (replacing files of the same name). Every
 * clash with something that is not a folder is found before anything moves.
 */
function publishStaged(staging: string, dir: string): void {
  const folders = listEntries(staging).map((entry) => entry.name);
  for (const folder of folders) {
    const kind = pathKind(`${dir}/${folder}`);
    if (kind === "file") {
      throw new MemaError(
        "invalid_input",
        `${dir}/${folder} is a file; the export needs a folder of that name for its workspace; nothing was exported`,
        { hint: "move that file away or export into another directory" },
      );
    }
  }
  let moved = 0;
  try {
    for (const folder of folders) {
      if (pathKind(`${dir}/${folder}`) === undefined) {
        renamePath(`${staging}/${folder}`, `${dir}/${folder}`);
        moved += listEntries(`${dir}/${folder}`).length;
        continue;
      }
      for (const file of listEntries(`${staging}/${folder}`)) {
        renamePath(`${staging}/${folder}/${file.name}`, `${dir}/${folder}/${file.name}`);
        moved++;
      }
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MemaError(
      "storage_error",
      `the export stopped while moving its files into ${dir}: ${reason}; ${moved} file(s) were moved (each complete), the rest were not`,
      { hint: "run mema export again: it rewrites every file" },
    );
  }
}

/** Runs `mema export`. */
export async function exportCommand(args: string[]): Promise<number> {
  const flags = parseCommandArgs(exportSpec, args);
  const positionals = flags.positionals;
  const values = {
    format: flags.string("format") ?? "md",
    workspace: flags.string("workspace"),
    "include-history": flags.boolean("include-history"),
    quiet: flags.boolean("quiet"),
    db: flags.string("db"),
    config: flags.string("config"),
  };
  if (positionals.length !== 1) {
    throw new UsageError(
      "name exactly one directory to export into (mema export ~/mema-export [--format md|jsonl])",
      "export",
    );
  }
  const format = values.format;
  if (format !== "md" && format !== "jsonl" && format !== "server-memory") {
    throw new UsageError(
      `--format must be md, jsonl or server-memory, not "${format}"`,
      "export",
    );
  }
  if (values["include-history"] && format !== "jsonl") {
    throw new UsageError(
      "--include-history needs --format jsonl (a Markdown file holds one version)",
      "export",
    );
  }
  let store: Store | undefined;
  try {
    const dir = absolutePath(positionals[0]);
    if (pathKind(dir) === "file") {
      throw new MemaError("invalid_input", `${dir} is a file; export writes into a directory`);
    }
    const config = loadConfig({ flags: { dbPath: values.db, configPath: values.config } });
    // Export only reads: it never creates a database that is not there.
    if (config.dbUrl === undefined && !pathExists(config.dbPath)) {
      throw new MemaError("not_found", `no database at ${config.dbPath}: nothing to export`, {
        hint: "name the database with --db PATH (or MEMA_DB_PATH, db_path in the config file)",
      });
    }
    store = await openDatabase(config, { skipVec: true });
    if (format === "server-memory") {
      return await exportServerMemoryTo(store, dir, { workspace: values.workspace });
    }
    const progress = createStreamProgress({
      isTty: stderrIsTerminal() && !values.quiet,
      label: "exporting",
    });
    const includeHistory = values["include-history"];
    let writer: TextFileWriter | undefined;
    // Markdown files are written into a hidden staging folder inside DIR (same file system,
    // skipped by import) and moved into place only once every file is written: a failure
    // leaves DIR as it was.
    let staging: string | undefined;
    let memories = 0;
    let versions = 0;
    try {
      ensureDir(dir);
      if (format === "jsonl") {
        writer = openTextWriter(`${dir}/${JSONL_EXPORT_NAME}`);
        writer.write(`${jsonlHeader({ workspace: values.workspace, includeHistory })}\n`);
      } else {
        staging = makeTempDirIn(dir, STAGING_PREFIX);
      }
      let total: number | undefined;
      for (let afterId = 0;;) {
        const page = await exportPage(store, {
          workspace: values.workspace,
          includeHistory,
          afterId,
          limit: EXPORT_PAGE_MEMORIES,
          knownTotal: total,
        });
        total = page.total;
        // One write per page: a million memories are 2,000 writes, not a million.
        const lines: string[] = [];
        for (const memory of page.memories) {
          if (writer) {
            lines.push(`${jsonlLine(memory)}\n`);
          } else {
            const file = markdownFile(memory);
            const path = `${staging}/${file.path}`;
            ensureDir(path.slice(0, path.lastIndexOf("/")));
            writeTextAtomic(path, file.text);
          }
          memories++;
          versions += memory.history?.length ?? 0;
        }
        if (writer && lines.length > 0) writer.write(lines.join(""));
        progress.update({ done: memories, share: page.total === 0 ? 1 : memories / page.total });
        if (!page.hasMore) break;
        afterId = page.lastId;
      }
      writer?.commit();
      if (staging !== undefined) publishStaged(staging, dir);
    } catch (error) {
      writer?.abort();
      throw writeFailure(error, dir);
    } finally {
      progress.finish();
      if (staging !== undefined) removeTreeIfExists(staging);
    }
    const target = writer ? `${dir}/${JSONL_EXPORT_NAME}` : dir;
    const history = includeHistory ? ` and ${versions} earlier version(s)` : "";
    console.log(`exported ${memories} memories${history} to ${target}`);
    return 0;
  } catch (error) {
    return reportFailure(error);
  } finally {
    await store?.close();
  }
}
