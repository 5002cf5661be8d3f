/**
 * What every reader of another tool's export takes and gives.
 * @module
 */
import type { SourceType } from "../../store/mod.ts";
import type { ImportUnit, SkippedSource } from "../import_types.ts";

/** The formats `mema import --format` reads. */
export const IMPORT_FORMATS = [
  "mem0",
  "basic-memory",
  "mcp-memory-service",
  "claude",
  "chatgpt",
] as const;

/** One of {@linkcode IMPORT_FORMATS}. */
export type ImportFormat = typeof IMPORT_FORMATS[number];

/** Where conversations go: one workspace per project, or one per conversation. */
export const WORKSPACE_PER = ["project", "conversation"] as const;

/** One of {@linkcode WORKSPACE_PER}. */
export type WorkspacePer = typeof WORKSPACE_PER[number];

/** How a reader maps a file. */
export interface FormatOptions {
  /** The file as the user named it (reported with every skipped record). */
  path: string;
  /** `--workspace`: every record goes there, whatever its source says. */
  workspace?: string;
  /** `--source-type`: the trust of every record, instead of the format's own. */
  sourceType?: SourceType;
  /** Conversations: one workspace per project (the default) or per conversation. */
  workspacePer: WorkspacePer;
}

/** What a reader got from one file. */
export interface FormatRead {
  units: ImportUnit[];
  /** Records that are not what the format says, each with its position; the rest is read. */
  skipped: SkippedSource[];
  /** Messages left out on purpose (system, tool, hidden, empty, other branches). */
  passedOver: number;
}
