/**
 * `mema import PATH --format F`: reading other tools' exports into import units. JSON
 * exports (mem0, mcp-memory-service, claude, chatgpt) are files — for claude and chatgpt a
 * folder holding `conversations.json` (the unzipped export) works too; basic-memory is a
 * folder of notes (its project), walked like any folder of notes.
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { readTextStrict } from "../platform/files.ts";
import { pathKind, realPathOf } from "../platform/paths.ts";
import type { ImportUnit, SkippedSource } from "../portability/import_types.ts";
import { SourceError } from "../portability/import_types.ts";
import {
  basicMemoryUnit,
  EXPORT_FILE_IN_FOLDER,
  type FormatOptions,
  type ImportFormat,
  readExport,
} from "../portability/formats/mod.ts";

/** A note found under a path, as the folder walk of `mema import` gives it. */
export interface WalkedNote {
  file: string;
  shown: string;
  ref: string;
  kind: string;
}

/** What reading the sources of one format gave. */
export interface FormatSources {
  units: ImportUnit[];
  skipped: SkippedSource[];
  /** Files read. */
  files: number;
  /** Messages left out on purpose (system, tool, hidden, empty, other branches). */
  passedOver: number;
}

function readText(file: string, shown: string, skipped: SkippedSource[]): string | undefined {
  try {
    return readTextStrict(file);
  } catch (error) {
    const reason = error instanceof TypeError ? "not UTF-8 text" : `cannot read: ${error}`;
    skipped.push({ path: shown, line: 1, reason });
    return undefined;
  }
}

/**
 * The last folder name of a path: a basic-memory project is named by its folder (`.` and
 * `..` by the folder they stand for).
 */
function folderName(path: string): string | undefined {
  const last = path.split("/").filter((part) => part !== "").pop();
  const name = last === undefined || last === "." || last === ".." ? realPathOf(path) : path;
  return name?.split("/").filter((part) => part !== "").pop();
}

/**
 * Reads every PATH as `format`. `options.walkNotes` is the folder walk `mema import` uses for
 * notes (hidden entries and links handled the same way).
 */
export function readFormatSources(
  format: ImportFormat,
  paths: readonly string[],
  options: Omit<FormatOptions, "path"> & {
    walkNotes: (path: string) => { notes: WalkedNote[]; skipped: SkippedSource[] };
  },
): FormatSources {
  const { walkNotes, ...mapping } = options;
  const read: FormatSources = { units: [], skipped: [], files: 0, passedOver: 0 };
  for (const path of paths) {
    const kind = pathKind(path);
    if (kind === undefined) {
      throw new MemaError("not_found", `${path}: no such file or directory`, {
        hint: `name the ${format} export to import`,
      });
    }
    if (format === "basic-memory") {
      const walked = walkNotes(path);
      read.skipped.push(...walked.skipped);
      const project = kind === "directory" ? folderName(path) : undefined;
      for (const note of walked.notes.filter((note) => note.kind === "markdown")) {
        const text = readText(note.file, note.shown, read.skipped);
        read.files++;
        if (text === undefined) continue;
        try {
          read.units.push(basicMemoryUnit(text, {
            ...mapping,
            workspace: mapping.workspace ?? project,
            path: note.shown,
            ref: note.ref,
          }));
        } catch (error) {
          if (!(error instanceof SourceError)) throw error;
          read.skipped.push({ path: note.shown, line: error.line, reason: error.message });
        }
      }
      continue;
    }
    const inFolder = EXPORT_FILE_IN_FOLDER[format];
    let file = path;
    if (kind === "directory") {
      if (inFolder === undefined || pathKind(`${path}/${inFolder}`) !== "file") {
        throw new MemaError(
          "not_found",
          `${path} is a folder; name the ${format} export file${
            inFolder ? ` (no ${inFolder} in it)` : ""
          }`,
        );
      }
      file = `${path.replace(/\/+$/, "")}/${inFolder}`;
    }
    const text = readText(file, file, read.skipped);
    read.files++;
    if (text === undefined) continue;
    const got = readExport(format, text, { ...mapping, path: file });
    read.units.push(...got.units);
    read.skipped.push(...got.skipped);
    read.passedOver += got.passedOver;
  }
  return read;
}
