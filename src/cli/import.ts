/**
 * `mema import PATH… [--workspace W] [--split headings|file] [--source-type T] [--dry-run]
 * [--authorized]`: Markdown notes (files and folders, recursively) and JSONL exports into the
 * database, through the write path. A progress bar on a terminal, one summary line on stdout;
 * each skipped source is reported on stderr as `path:line: reason`. Exit 0 when everything
 * was imported, 1 when something was skipped (the rest is stored). A title too long for a
 * subject is shortened, never a reason to skip.
 * @module
 */
import { loadConfig } from "../config/mod.ts";
import { MemaError } from "../errors/mod.ts";
import { listEntries, makeTempDirIn, removeTreeIfExists } from "../platform/directories.ts";
import { fileSize } from "../platform/file_info.ts";
import { readBytes } from "../platform/files.ts";
import { decodeUtf8Text, readTextLines } from "../platform/text_lines.ts";
import { linkTarget, pathExists, pathKind, realPathOf } from "../platform/paths.ts";
import { stderrIsTerminal } from "../platform/terminal.ts";
import { MARKDOWN_EXTENSIONS } from "../portability/constants.ts";
import { importUnits } from "../portability/import.ts";
import { TextPreparer } from "../portability/text_preparer.ts";
import { type ImportUnit, type SkippedSource, SourceError } from "../portability/import_types.ts";
import { markdownUnit, readJsonlUnits, type SplitMode } from "../portability/sources.ts";
import { SOURCE_TYPES, type SourceType } from "../store/mod.ts";
import { createStreamProgress } from "./stream_progress.ts";
import { type CommandSpec, parseCommandArgs, UsageError } from "./command.ts";
import { reportFailure } from "./output.ts";
import { importServerMemoryFiles, SERVER_MEMORY_FORMAT } from "./server_memory.ts";
import { readFormatSources } from "./import_formats.ts";
import { closestName } from "../text/closest_name.ts";
import {
  IMPORT_FORMATS,
  type ImportFormat,
  WORKSPACE_PER,
  type WorkspacePer,
} from "../portability/formats/mod.ts";
import { type App, openApp } from "../app/mod.ts";

/** One file to read, with how it is named. */
interface SourceFile {
  /** Where it is read from. */
  file: string;
  /** As reported to the user. */
  shown: string;
  /** Relative to the folder imported, or the file name. */
  ref: string;
  kind: "markdown" | "jsonl";
  /** Its real path (every link resolved), once collected. */
  real?: string;
}

function kindOf(name: string): SourceFile["kind"] | undefined {
  const lower = name.toLowerCase();
  if (MARKDOWN_EXTENSIONS.some((extension) => lower.endsWith(extension))) return "markdown";
  if (lower.endsWith(".jsonl")) return "jsonl";
  return undefined;
}

/** A symbolic link the import did not follow, and why. */
interface UnfollowedLink {
  /** The link, as reported to the user. */
  shown: string;
  /** Where it points, as written in the link. */
  target: string;
  reason: string;
  /** True when what it points to was not imported at all (the run then counts it skipped). */
  missed: boolean;
}

/** A symbolic link met while walking, followed only once the real tree has been read. */
interface PendingLink {
  path: string;
  shown: string;
  ref: string;
}

/**
 * What one import run has read so far. Real paths (every link resolved) identify files and
 * folders, so a file reached by several paths is imported once and a folder that links back
 * to itself is read once: the walk always ends.
 */
interface WalkState {
  files: SourceFile[];
  links: UnfollowedLink[];
  seenFiles: Set<string>;
  seenDirs: Set<string>;
}

function isInside(root: string, path: string): boolean {
  return root === "/" || path === root || path.startsWith(`${root}/`);
}

function addFile(state: WalkState, file: SourceFile, real: string): boolean {
  if (state.seenFiles.has(real)) return false;
  state.seenFiles.add(real);
  state.files.push({ ...file, real });
  return true;
}

/**
 * Notes of one run that would share a `source_ref` (two `README.md` named on the command line,
 * two imported folders that both hold `notes.md`) get as many of their real path's folders in
 * front of it as it takes to tell them apart (`qs/README.md`, `inherits/README.md`). A shared
 * reference would make the second note a new version of the first — stored, but no longer
 * active. Notes whose reference is already unique keep it, so re-importing a folder still
 * finds its earlier memories.
 */
function separateSharedRefs(files: SourceFile[]): void {
  const byRef = new Map<string, SourceFile[]>();
  for (const file of files) {
    if (file.kind !== "markdown") continue;
    byRef.set(file.ref, [...(byRef.get(file.ref) ?? []), file]);
  }
  for (const [ref, group] of byRef) {
    if (group.length < 2) continue;
    const depth = ref.split("/").length;
    const parts = group.map((file) => (file.real ?? file.file).split("/").filter(Boolean));
    const longest = Math.max(...parts.map((path) => path.length));
    for (let keep = depth + 1; keep <= longest; keep++) {
      const refs = parts.map((path) => path.slice(-keep).join("/"));
      if (new Set(refs).size === refs.length || keep === longest) {
        group.forEach((file, index) => file.ref = refs[index]);
        break;
      }
    }
  }
}

/**
 * Every note and JSONL file of one folder and its sub-folders, in name order; hidden entries
 * are skipped and symbolic links are set aside in `pending`.
 */
function walkTree(
  state: WalkState,
  dir: string,
  shown: string,
  prefix: string,
  pending: PendingLink[],
): void {
  const real = realPathOf(dir);
  if (real === undefined || state.seenDirs.has(real)) return;
  state.seenDirs.add(real);
  for (const entry of listEntries(dir)) {
    if (entry.name.startsWith(".")) continue;
    const ref = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    const path = `${dir}/${entry.name}`;
    const entryShown = `${shown}/${entry.name}`;
    if (entry.link) {
      pending.push({ path, shown: entryShown, ref });
    } else if (entry.kind === "directory") {
      walkTree(state, path, entryShown, ref, pending);
    } else {
      const kind = kindOf(entry.name);
      if (kind) {
        addFile(state, { file: path, shown: entryShown, ref, kind }, `${real}/${entry.name}`);
      }
    }
  }
}

/**
 * Every note and JSONL file under a folder. The folder's own tree is read first; then each
 * symbolic link in it is followed only when its real target lies inside the folder and has
 * not been read yet (a link can only add what the real tree does not reach, such as a hidden
 * folder). Links out of the folder, dangling links, loops and second paths to what was
 * already read are not followed; each is reported.
 */
function walkFolder(state: WalkState, dir: string): void {
  const root = realPathOf(dir);
  if (root === undefined) return;
  const pending: PendingLink[] = [];
  walkTree(state, dir, dir, "", pending);
  for (let link = pending.shift(); link; link = pending.shift()) {
    const target = linkTarget(link.path) ?? "?";
    const unfollowed = (reason: string, missed: boolean) =>
      state.links.push({ shown: link!.shown, target, reason, missed });
    const real = realPathOf(link.path);
    const kind = real === undefined ? undefined : pathKind(real);
    if (real === undefined || kind === undefined) {
      unfollowed("it points to nothing that can be read (dangling, or a loop of links)", true);
    } else if (!isInside(root, real)) {
      unfollowed(`it leads out of the imported folder (to ${real})`, true);
    } else if (kind === "directory") {
      if (state.seenDirs.has(real)) {
        unfollowed("it leads to a folder already read (a loop, or a second path to it)", false);
      } else {
        walkTree(state, link.path, link.shown, link.ref, pending);
      }
    } else {
      const name = link.ref.slice(link.ref.lastIndexOf("/") + 1);
      const fileKind = kindOf(name);
      if (!fileKind) continue;
      if (
        !addFile(state, { file: link.path, shown: link.shown, ref: link.ref, kind: fileKind }, real)
      ) {
        unfollowed("it leads to a file already read", false);
      }
    }
  }
}

function collectSources(
  paths: readonly string[],
): { files: SourceFile[]; skipped: SkippedSource[]; links: UnfollowedLink[] } {
  const state: WalkState = { files: [], links: [], seenFiles: new Set(), seenDirs: new Set() };
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
      walkFolder(state, trimmed);
      continue;
    }
    const name = trimmed.slice(trimmed.lastIndexOf("/") + 1);
    const fileKind = kindOf(name);
    if (!fileKind) {
      skipped.push({ path, line: 1, reason: "not a Markdown (.md, .markdown) or JSONL file" });
      continue;
    }
    // A file named on the command line is read even through a link: the user chose it.
    addFile(state, { file: trimmed, shown: path, ref: name, kind: fileKind }, realPathOf(trimmed)!);
  }
  separateSharedRefs(state.files);
  return { files: state.files, skipped, links: state.links };
}

/**
 * The folder a note lies in, as its name: the last folder of its path (resolved when the path
 * ends in `.` or `..`), with the scope before it for a scoped npm package (`@types/node`).
 */
function folderOf(file: string): string | undefined {
  let parts = file.split("/").slice(0, -1).filter((part) => part !== "");
  const last = parts[parts.length - 1];
  if (last === undefined || last === "." || last === "..") {
    parts = (realPathOf(parts.length === 0 ? "." : parts.join("/")) ?? "").split("/")
      .filter((part) => part !== "");
  }
  const name = parts[parts.length - 1];
  if (name === undefined) return undefined;
  const scope = parts[parts.length - 2];
  return scope?.startsWith("@") ? `${scope}/${name}` : name;
}

/**
 * Every unit of the sources, in order, as a stream: a JSONL export line by line (any size, in
 * bounded memory), a note whole (notes are small). What cannot be read comes as a skipped
 * source at its line. `onBytes` hears the bytes read of all files so far.
 */
async function* readSources(
  files: readonly SourceFile[],
  split: SplitMode,
  onBytes: (read: number) => void,
): AsyncGenerator<ImportUnit | SkippedSource> {
  let before = 0;
  for (const source of files) {
    const size = fileSize(source.file) ?? 0;
    if (source.kind === "jsonl") {
      const lines = readTextLines(source.file, { onBytes: (read) => onBytes(before + read) });
      try {
        yield* readJsonlUnits(lines, source.shown);
      } catch (error) {
        if (error instanceof MemaError) throw error;
        yield { path: source.shown, line: 1, reason: `cannot read: ${readFailure(error)}` };
      }
      before += size;
      onBytes(before);
      continue;
    }
    before += size;
    let bytes: Uint8Array;
    try {
      bytes = readBytes(source.file);
    } catch (error) {
      yield { path: source.shown, line: 1, reason: `cannot read: ${readFailure(error)}` };
      continue;
    }
    const decoded = decodeUtf8Text(bytes);
    onBytes(before);
    if ("error" in decoded) {
      yield { path: source.shown, line: decoded.line, reason: decoded.error };
      continue;
    }
    const name = source.ref.slice(source.ref.lastIndexOf("/") + 1);
    try {
      yield markdownUnit(decoded.text, {
        path: source.shown,
        sourceRef: source.ref,
        fileTitle: name.replace(/\.(md|markdown)$/i, ""),
        folder: folderOf(source.file),
        split,
      });
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      yield { path: source.shown, line: error.line, reason: error.message };
    }
  }
}

/** A file that could not be read, in words. */
function readFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The name prefix of the scratch folder of a dry run against a database not created yet. */
const DRY_RUN_PREFIX = "mema-import-dry-run-";

/** `mema import`: its help and flags. */
export const importSpec: CommandSpec = {
  name: "import",
  summary: "store Markdown notes and JSONL exports as memories",
  usage: [
    "import PATH... [--workspace W] [--split file|headings] [--source-type T] [--dry-run] [--authorized] [--quiet] [--db PATH]",
    "import FILE... --format server-memory [--workspace W] [--db PATH]",
    "import PATH... --format mem0|basic-memory|mcp-memory-service|claude|chatgpt [--workspace-per project|conversation] [...]",
  ],
  description: [
    "Markdown files and folders (recursively; .md, .markdown) and JSONL exports of mema.",
    "Frontmatter (title, tags, workspace, source, date/event_time, mema_id, ...) maps to fields;",
    "the first heading (#, ===, <h1>; badges and markup dropped) or the file name is the subject;",
    "a README, index or notes file is named by its folder too (node_modules/qs/README.md: qs).",
    "Over-long titles are shortened at a word. --split headings stores one memory per",
    "## section, in order. Importing the same files again stores nothing new; a changed note",
    "becomes a new version of its memory. Bad files are reported as path:line and skipped whole.",
    "Symbolic links are followed only to what lies inside the folder and was not read yet; each",
    "file is imported once, and every link not followed is reported.",
    "--format server-memory reads the reference MCP memory server's memory.jsonl: each",
    "observation becomes a fact naming its entity, each relation a fact stating it (again: no-op).",
    "--format reads another tool's export (mem0 or mcp-memory-service JSON, a basic-memory",
    "folder, Claude or ChatGPT conversations.json): bad records are reported by JSON path.",
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
    format: {
      type: "string",
      value: [...IMPORT_FORMATS, SERVER_MEMORY_FORMAT].join("|"),
      help: "read another tool's export",
    },
    "workspace-per": {
      type: "string",
      value: "project|conversation",
      help: "conversations: one workspace per project (default) or per conversation",
    },
    "dry-run": { type: "boolean", help: "report what would be stored; keep nothing" },
    quiet: { type: "boolean", short: "q", help: "no progress display on a terminal" },
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
    format: flags.string("format"),
    "workspace-per": flags.string("workspace-per"),
    "source-type": flags.string("source-type"),
    "dry-run": flags.boolean("dry-run"),
    quiet: flags.boolean("quiet"),
    authorized: flags.boolean("authorized"),
    db: flags.string("db"),
    config: flags.string("config"),
  };
  if (positionals.length === 0) {
    throw new UsageError(
      "name at least one file or folder (mema import ~/notes MEMORY.md [--split headings])",
      "import",
    );
  }
  const split = values.split;
  if (split !== "file" && split !== "headings") {
    throw new UsageError(`--split must be file or headings, not "${split}"`, "import");
  }
  const sourceType = values["source-type"];
  if (sourceType !== undefined && !SOURCE_TYPES.includes(sourceType as SourceType)) {
    throw new UsageError(
      `--source-type must be one of ${SOURCE_TYPES.join(", ")}, not "${sourceType}"`,
      "import",
    );
  }
  if (sourceType === "user_confirmed" && !values.authorized) {
    throw new UsageError(
      "--source-type user_confirmed stores every note as the user's own word and locks it: add --authorized once the user has confirmed the notes",
      "import",
    );
  }
  // server-memory's graph goes through the entity graph's own reader (below), not a format feed.
  const format = values.format === SERVER_MEMORY_FORMAT
    ? undefined
    : checkFormat(values.format, values["workspace-per"], {
      split: flags.string("split"),
      workspace: values.workspace,
    });
  let app: App | undefined;
  let scratch: string | undefined;
  if (values.format === SERVER_MEMORY_FORMAT) {
    if (
      values["dry-run"] || values.split !== "file" || sourceType !== undefined ||
      values["workspace-per"] !== undefined
    ) {
      throw new UsageError(
        "--format server-memory takes only --workspace, --db and --config",
        "import",
      );
    }
    try {
      const config = loadConfig({ flags: { dbPath: values.db, configPath: values.config } });
      app = await openApp(config, {
        caller: { client: config.client ?? "mema-cli", agentId: config.agentId ?? "mema-import" },
        settings: { workspaceIsolation: "none", includeSize: config.includeSize },
      });
      return await importServerMemoryFiles(app.ctx, positionals, { workspace: values.workspace });
    } catch (error) {
      return reportFailure(error);
    } finally {
      await app?.close();
    }
  }
  try {
    const sources = format === undefined ? collectSources(positionals) : {
      files: [] as SourceFile[],
      skipped: [] as SkippedSource[],
      links: [] as UnfollowedLink[],
    };
    // Another tool's export is read whole (a JSON document, a folder of notes), then stored.
    const formatRead = format === undefined
      ? undefined
      : readFormatSources(format.name, positionals, {
        workspace: values.workspace,
        sourceType: sourceType as SourceType | undefined,
        workspacePer: format.workspacePer,
        walkNotes: (path) => {
          const walked = collectSources([path]);
          sources.links.push(...walked.links);
          return { notes: walked.files, skipped: walked.skipped };
        },
      });
    const config = loadConfig({ flags: { dbPath: values.db, configPath: values.config } });
    // A dry run against a database that does not exist yet compares with an empty library in a
    // scratch folder, removed afterwards: it leaves no file behind where the database would be.
    if (values["dry-run"] && config.dbUrl === undefined && !pathExists(config.dbPath)) {
      scratch = makeTempDirIn(undefined, DRY_RUN_PREFIX);
    }
    app = await openApp(config, {
      path: scratch === undefined ? undefined : `${scratch}/dry-run.sqlite3`,
      // A dry run embeds nothing: it needs no vector extension (nor its cached copy).
      skipVec: values["dry-run"],
      caller: { client: config.client ?? "mema-cli", agentId: config.agentId ?? "mema-import" },
      // The user at the command line owns the database: no agent isolation applies to what they import.
      settings: { workspaceIsolation: "none", includeSize: config.includeSize },
    });
    const { ctx } = app;
    const progress = createStreamProgress({
      isTty: stderrIsTerminal() && !values.quiet,
      label: "importing",
    });
    const totalBytes = sources.files.reduce((sum, file) => sum + (fileSize(file.file) ?? 0), 0);
    const state = { done: 0, share: formatRead === undefined ? 0 : 1 };
    const feed = formatRead?.units ?? readSources(sources.files, split, (bytes) => {
      state.share = totalBytes === 0 ? 1 : bytes / totalBytes;
      progress.update(state);
    });
    let report;
    // The next batch's text work runs on a second core while this one is written.
    const preparer = new TextPreparer();
    try {
      report = await importUnits(ctx, feed, {
        preparer,
        defaultWorkspace: values.workspace,
        defaultSourceType: sourceType as SourceType | undefined,
        authorized: values.authorized,
        dryRun: values["dry-run"],
        onProgress: (done) => {
          state.done = done;
          progress.update(state);
        },
      });
    } finally {
      preparer.close();
      progress.finish();
    }
    const skipped = [...sources.skipped, ...(formatRead?.skipped ?? []), ...report.skipped];
    for (const link of sources.links) {
      console.error(
        `mema import: ${
          link.missed ? "skipped" : "did not follow"
        } link ${link.shown} -> ${link.target}: ${link.reason}`,
      );
    }
    for (const entry of skipped) {
      const where = entry.at === undefined
        ? `${entry.path}:${entry.line}`
        : `${entry.path} ${entry.at}`;
      console.error(`mema import: skipped ${where}: ${entry.reason}`);
    }
    if ((formatRead?.passedOver ?? 0) > 0) {
      console.error(
        `mema import: passed over ${
          formatRead!.passedOver
        } message(s) that are no conversation turn (system, tool, hidden, empty, or an abandoned branch)`,
      );
    }
    const missedLinks = sources.links.filter((link) => link.missed).length;
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
      `${report.dryRun ? "would import" : "imported"} ${
        formatRead?.files ?? sources.files.length
      } file(s): ${report.created} new, ${report.updated} updated, ${report.unchanged} unchanged, ${report.duplicates} duplicate(s)${replayed}; ${
        skipped.length + missedLinks
      } skipped${dry}`,
    );
    return skipped.length + missedLinks > 0 ? 1 : 0;
  } catch (error) {
    return reportFailure(error);
  } finally {
    await app?.close();
    if (scratch !== undefined) removeTreeIfExists(scratch);
  }
}

/**
 * The `--format` of a command line, checked before anything is opened: a known format,
 * `--workspace-per` only for conversations and never with `--workspace` (which already puts
 * everything in one place), no `--split` (a format says how its records become memories).
 */
function checkFormat(
  format: string | undefined,
  workspacePer: string | undefined,
  others: { split?: string; workspace?: string },
): { name: ImportFormat; workspacePer: WorkspacePer } | undefined {
  if (format === undefined) {
    if (workspacePer !== undefined) {
      throw new UsageError("--workspace-per needs --format claude or chatgpt", "import");
    }
    return undefined;
  }
  if (!IMPORT_FORMATS.includes(format as ImportFormat)) {
    const known = [...IMPORT_FORMATS, SERVER_MEMORY_FORMAT];
    const near = closestName(format, known);
    throw new UsageError(
      `--format must be one of ${known.join(", ")}, not "${format}"${
        near ? ` (did you mean ${near}?)` : ""
      }`,
      "import",
    );
  }
  if (others.split !== undefined) {
    throw new UsageError("--split applies to Markdown notes, not to --format", "import");
  }
  if (workspacePer !== undefined) {
    if (format !== "claude" && format !== "chatgpt") {
      throw new UsageError("--workspace-per applies to --format claude or chatgpt", "import");
    }
    if (!WORKSPACE_PER.includes(workspacePer as WorkspacePer)) {
      throw new UsageError(
        `--workspace-per must be project or conversation, not "${workspacePer}"`,
        "import",
      );
    }
    if (others.workspace !== undefined) {
      throw new UsageError(
        "--workspace puts every conversation in one workspace; drop it or --workspace-per",
        "import",
      );
    }
  }
  return {
    name: format as ImportFormat,
    workspacePer: (workspacePer ?? "project") as WorkspacePer,
  };
}
