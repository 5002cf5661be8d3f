/**
 * What `mema import` reads files into: units (a note, or one line of a JSONL export) that are
 * stored all or nothing, each holding the memories it becomes.
 * @module
 */
import type { MemoryStatus, ProtectionLevel, SourceType } from "../store/mod.ts";
import type { PortableVersion } from "./record.ts";

/** One memory an import brings in. */
export interface ImportItem {
  subject: string;
  content: string;
  /** As written in the source (any spelling); undefined takes the import's workspace. */
  workspace?: string;
  /** Undefined leaves an existing memory's tags as they are. */
  tags?: string[];
  /** Declared by the source; undefined takes the import's default trust. */
  sourceType?: SourceType;
  sourceRef?: string;
  eventTime?: string;
  /** The validity window; null restores "none" (a mema export), undefined reads it from the text. */
  validFrom?: string | null;
  validTo?: string | null;
  confidence?: number;
  protectionLevel?: ProtectionLevel;
  status?: Extract<MemoryStatus, "active" | "pending">;
  metadata?: Record<string, unknown>;
  /** The memory's id in the database it was exported from. */
  memaId?: number;
  /** The id (in the exporting database) of the memory this one follows. */
  followsMemaId?: number;
  /** Follows the previous item of the same unit (sections of one note). */
  followsPrevious?: boolean;
  /** Provenance kept from an export. */
  origin?: { ingestTime?: string; agentId?: string; client?: string };
  /** Earlier versions (a JSONL export with `--include-history`), oldest first. */
  history?: PortableVersion[];
  /** The 1-based line of the source where this item starts. */
  line: number;
  /** Lines of the source fields came from (frontmatter keys), by field name. */
  fieldLines?: Record<string, number>;
  /** Where in a JSON export the item comes from (`$[2].chat_messages[4]`), reported instead of the line. */
  at?: string;
}

/** A file or a JSONL line: stored all or nothing. */
export interface ImportUnit {
  /** The source as the user named it (reported in errors). */
  path: string;
  /** The 1-based line of the source where the unit starts. */
  line: number;
  items: ImportItem[];
}

/** A source that was not imported, and why. */
export interface SkippedSource {
  path: string;
  line: number;
  /** A JSON path within the file (`$.results[3]`), when the source is a JSON export. */
  at?: string;
  reason: string;
}

/** A problem with a source at a line; the unit is skipped. */
export class SourceError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(message);
    this.line = line;
  }
}
