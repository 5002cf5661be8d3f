/**
 * `mema import PATH… [--workspace W] [--split headings|file] [--source-type T] [--dry-run]
 * [--authorized]`: Markdown notes (files and folders, recursively) and JSONL exports into the
 * database, through the write path. A progress bar on a terminal, one summary line on stdout;
 * each skipped source is reported on stderr as `path:line: reason`. Exit 0 when everything
 * was imported, 1 when something was skipped (the rest is stored).
 * @module
 */
import { loadConfig } from "../config/mod.ts";
import { MemaError } from "../errors/mod.ts";
import type { ServiceContext } from "../memory/context.ts";
import { listEntries, pathKind, readTextStrict, stderrIsTerminal } from "../platform/mod.ts";
import { MARKDOWN_EXTENSIONS } from "../portability/constants.ts";
import { importUnits } from "../portability/import.ts";
import { type ImportUnit, type SkippedSource, SourceError } from "../portability/import_types.ts";
import { jsonlUnits, markdownUnit, type SplitMode } from "../portability/sources.ts";
import { openStore, SOURCE_TYPES, type SourceType, type Store } from "../store/mod.ts";
import { createCountProgress } from "./count_progress.ts";
import { type CommandSpec, parseCommandArgs } from "./command.ts";
import { reportFailure } from "./output.ts";

/** One file to read, with how it is named. */
interface SourceFile {
  /** Where it is read from. */
  file: string;
  /** As reported to the user. */
  shown: string;
  /** Relative to the folder imported, or the file name. */
  ref: string;
  kind: "markdown" | "jsonl";
}

function kindOf(name: string): SourceFile["kind"] | undefined {
  const lower = name.toLowerCase();
  if (MARKDOWN_EXTENSIONS.some((extension) => lower.endsWith(extension))) return "markdown";
  if (lower.endsWith(".jsonl")) return "jsonl";
  return undefined;
}

/** Every note and JSONL file under a folder, in name order; hidden entries are skipped. */
function walk(dir: string, shown: string, prefix: string, found: SourceFile[]): void {
  for (const entry of listEntries(dir)) {
    if (entry.name.startsWith(".")) continue;
    const ref = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.kind === "directory") {
      walk(`${dir}/${entry.name}`, `${shown}/${entry.name}`, ref, found);
      continue;
    }
    const kind = kindOf(entry.name);
    if (kind) {
      found.push({ file: `${dir}/${entry.name}`, shown: `${shown}/${entry.name}`, ref, kind });
    }
  }
}

function collectSources(
  paths: readonly string[],
): { files: SourceFile[]; skipped: SkippedSource[] } {
  const files: SourceFile[] = [];
  const skipped: SkippedSource[] = [];
  for (const path of paths) {
    const kind = pathKind(path);
    if (kind === undefined) {
      throw new MemaError("not_found", `${path}: no such file or directory`, {
        hint: "name Markdown files, folders of them, or a JSONL export",
      });
    }
    const trimmed = path.replace(/\/+$/, "") || "/";
    if (kind === "directory") {
      walk(trimmed, trimmed, "", files);
      continue;
    }
    const name = trimmed.slice(trimmed.lastIndexOf("/") + 1);
    const fileKind = kindOf(name);
    if (!fileKind) {
      skipped.push({ path, line: 1, reason: "not a Markdown (.md, .markdown) or JSONL file" });
      continue;
    }
    files.push({ file: trimmed, shown: path, ref: name, kind: fileKind });
  }
  return { files, skipped };
}

function readUnits(
  files: readonly SourceFile[],
  split: SplitMode,
): { units: ImportUnit[]; skipped: SkippedSource[] } {
  const units: ImportUnit[] = [];
  const skipped: SkippedSource[] = [];
  for (const source of files) {
    let text: string;
    try {
      text = readTextStrict(source.file);
    } catch (error) {
      const reason = error instanceof TypeError ? "not UTF-8 text" : `cannot read: ${error}`;
      skipped.push({ path: source.shown, line: 1, reason });
      continue;
    }
    if (source.kind === "jsonl") {
      const read = jsonlUnits(text, source.shown);
      units.push(...read.units);
      for (const error of read.errors) {
        skipped.push({ path: source.shown, line: error.line, reason: error.message });
      }
      continue;
    }
    const name = source.ref.slice(source.ref.lastIndexOf("/") + 1);
    try {
      units.push(markdownUnit(text, {
        path: source.shown,
        sourceRef: source.ref,
        fileTitle: name.replace(/\.(md|markdown)$/i, ""),
        split,
      }));
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      skipped.push({ path: source.shown, line: error.line, reason: error.message });
    }
  }
  return { units, skipped };
}

/** `mema import`: its help and flags. */
export const importSpec: CommandSpec = {
  name: "import",
  summary: "store Markdown notes and JSONL exports as memories",
  usage: [
    "import PATH... [--workspace W] [--split file|headings] [--source-type T] [--dry-run] [--authorized] [--db PATH]",
  ],
  description: [
    "Markdown files and folders (recursively; .md, .markdown) and JSONL exports of mema.",
    "Frontmatter (title, tags, workspace, source, date/event_time, mema_id, ...) maps to fields;",
    "the first # heading or the file name is the subject. --split headings stores one memory per",
    "## section, in order. Importing the same files again stores nothing new; a changed note",
    "becomes a new version of its memory. Bad files are reported as path:line and skipped whole.",
  ].join("\n"),
  positionals: [{ name: "PATH...", help: "notes, folders of notes, JSONL exports", repeats: true }],
  flags: {
    workspace: { type: "string", value: "W", help: "workspace of notes that name none" },
    split: {
      type: "string",
      value: "file|headings",
      help: "one memory per note or per ## section",
    },
    "source-type": {
      type: "string",
      value: "T",
      help: `trust of notes that declare none (default document_extracted): ${
        SOURCE_TYPES.join(", ")
      }`,
    },
    "dry-run": { type: "boolean", help: "report what would be stored; keep nothing" },
    authorized: {
      type: "boolean",
      help: "the user confirmed: keep user_confirmed/locked trust, change guarded memories",
    },
    db: { type: "string", value: "PATH", help: "database file (default MEMA_DB_PATH)" },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
  },
  exitCodes: {
    0: "everything was imported (or was already there)",
    1: "something was skipped (reported on stderr) or the import failed",
    2: "bad command line",
  },
  run: importCommand,
};

/** Runs `mema import`. */
export async function importCommand(args: string[]): Promise<number> {
  const flags = parseCommandArgs(importSpec, args);
  const positionals = flags.positionals;
  const values = {
    workspace: flags.string("workspace"),
    split: flags.string("split") ?? "file",
    "source-type": flags.string("source-type"),
    "dry-run": flags.boolean("dry-run"),
    authorized: flags.boolean("authorized"),
    db: flags.string("db"),
    config: flags.string("config"),
  };
  let store: Store | undefined;
  try {
    if (positionals.length === 0) {
      throw new MemaError("invalid_input", "mema import needs at least one file or folder", {
        hint: "mema import ~/notes MEMORY.md [--split headings]",
      });
    }
    const split = values.split;
    if (split !== "file" && split !== "headings") {
      throw new MemaError("invalid_input", `--split must be file or headings, not "${split}"`, {
        field: "split",
      });
    }
    const sourceType = values["source-type"];
    if (sourceType !== undefined && !SOURCE_TYPES.includes(sourceType as SourceType)) {
      throw new MemaError(
        "invalid_input",
        `--source-type must be one of ${SOURCE_TYPES.join(", ")}`,
        {
          field: "source-type",
        },
      );
    }
    if (sourceType === "user_confirmed" && !values.authorized) {
      throw new MemaError(
        "invalid_input",
        "--source-type user_confirmed stores every note as the user's own word and locks it",
        { field: "source-type", hint: "add --authorized once the user has confirmed the notes" },
      );
    }
    const sources = collectSources(positionals);
    const read = readUnits(sources.files, split);
    const config = loadConfig({ flags: { dbPath: values.db, configPath: values.config } });
    store = await openStore(config.dbPath, {
      cacheDir: config.cacheDir,
      busyTimeoutMs: config.busyTimeoutMs,
      durability: config.durability,
    });
    const ctx: ServiceContext = {
      store,
      caller: { client: config.client ?? "mema-cli", agentId: config.agentId ?? "mema-import" },
      // The user at the command line owns the database: no agent isolation applies to what they import.
      settings: { workspaceIsolation: "none", includeSize: config.includeSize },
    };
    const progress = createCountProgress({ isTty: stderrIsTerminal(), label: "importing" });
    const report = await importUnits(ctx, read.units, {
      defaultWorkspace: values.workspace,
      defaultSourceType: sourceType as SourceType | undefined,
      authorized: values.authorized,
      dryRun: values["dry-run"],
      onProgress: (done, total) => progress.update(done, total),
    });
    progress.finish();
    const skipped = [...sources.skipped, ...read.skipped, ...report.skipped];
    for (const entry of skipped) {
      console.error(`mema import: skipped ${entry.path}:${entry.line}: ${entry.reason}`);
    }
    if (report.lowered > 0) {
      console.error(
        `mema import: ${report.lowered} fact(s) declared user_confirmed or locked were stored with the import's trust; pass --authorized (after the user confirms them) to keep it`,
      );
    }
    const replayed = report.versionsReplayed > 0
      ? `, ${report.versionsReplayed} earlier version(s) replayed`
      : "";
    const dry = report.dryRun ? " (dry run: nothing was written)" : "";
    console.log(
      `${
        report.dryRun ? "would import" : "imported"
      } ${sources.files.length} file(s): ${report.created} new, ${report.updated} updated, ${report.unchanged} unchanged, ${report.duplicates} duplicate(s)${replayed}; ${skipped.length} skipped${dry}`,
    );
    return skipped.length > 0 ? 1 : 0;
  } catch (error) {
    return reportFailure(error);
  } finally {
    store?.close();
  }
}
