/**
 * Reading import sources into units: Markdown notes (frontmatter mapped to fields, whole or
 * split by `##` sections) and JSONL exports (one unit per memory line).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { markdownUnit } from "./sources.ts";
 *
 * const unit = markdownUnit("---\ntags: [ops]\n---\n# Deploys\nFridays.\n", {
 *   path: "notes/ops.md",
 *   sourceRef: "ops.md",
 *   fileTitle: "ops",
 *   split: "file",
 * });
 * assert.equal(unit.items[0].subject, "Deploys");
 * ```
 * @module
 */
import { PROTECTION_LEVELS, SOURCE_TYPES } from "../store/mod.ts";
import type { ProtectionLevel, SourceType } from "../store/mod.ts";
import { FrontmatterError, type FrontmatterValue, parseFrontmatter } from "./frontmatter.ts";
import {
  type ImportItem,
  type ImportUnit,
  type SkippedSource,
  SourceError,
} from "./import_types.ts";
import { hasSubstance, noteTitle, readNoteSections, visibleText } from "./markdown.ts";
import { GENERIC_NOTE_NAMES, IMPORT_SUBJECT_MAX_CHARS } from "./constants.ts";
import { SUBJECT_MAX_CHARS } from "../memory/limits.ts";
import { prefixByUnits } from "../text/code_points.ts";
import { EXPORT_FORMAT, type PortableVersion } from "./record.ts";
import { parseJsonExact } from "../memory/exact_json.ts";

/** How a note becomes memories. */
export type SplitMode = "file" | "headings";

/** Where a note comes from. */
export interface NoteSource {
  /** As the user named it (reported in errors). */
  path: string;
  /** The note's reference: its path relative to the folder imported (or its file name). */
  sourceRef: string;
  /** The file name without extension: the subject when the note has no title. */
  fileTitle: string;
  /**
   * The folder the note is in (a scoped npm package as `@scope/name`): names a note whose
   * file name says nothing (`node_modules/qs/README.md` → "qs").
   */
  folder?: string;
  split: SplitMode;
}

type Fields = Record<string, FrontmatterValue>;

/** Frontmatter keys mema maps onto fields; other keys are kept in `metadata.frontmatter`. */
const MAPPED_KEYS = new Set([
  "title",
  "subject",
  "tags",
  "workspace",
  "source",
  "source_ref",
  "date",
  "event_time",
  "valid_from",
  "valid_to",
  "mema_id",
  "source_type",
  "protection_level",
  "confidence",
  "ingest_time",
  "agent_id",
  "client",
  "metadata",
  "follows",
  "status",
  "version",
]);

function text(fields: Fields, key: string, line: number): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new SourceError(line, `frontmatter "${key}" must be text`);
}

function positiveInteger(value: unknown, key: string, line: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new SourceError(line, `"${key}" must be a positive whole number`);
  }
  return value;
}

function tagList(value: unknown, key: string, line: number): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") {
    const parts = value.includes(",") ? value.split(",") : value.split(/\s+/);
    return parts.map((tag) => tag.trim().replace(/^#/, "")).filter((tag) => tag !== "");
  }
  if (Array.isArray(value) && value.every((tag) => typeof tag !== "object" || tag === null)) {
    return value.filter((tag) => tag !== null).map((tag) => String(tag).replace(/^#/, ""));
  }
  throw new SourceError(line, `"${key}" must be a list of tags`);
}

function oneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  key: string,
  line: number,
): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !allowed.includes(value as T)) {
    throw new SourceError(line, `"${key}" must be one of ${allowed.join(", ")}`);
  }
  return value as T;
}

function confidence(value: unknown, line: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !(value >= 0 && value <= 1)) {
    throw new SourceError(line, `"confidence" must be a number from 0 to 1`);
  }
  return value;
}

function plainObject(value: unknown, key: string, line: number): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new SourceError(line, `"${key}" must be a map`);
  }
  return value as Record<string, unknown>;
}

/** The fields a note's frontmatter gives every memory made from it. */
function noteFields(fields: Fields, lines: Record<string, number>):
  & Omit<
    ImportItem,
    "subject" | "content" | "line"
  >
  & { title?: string } {
  const at = (key: string) => lines[key] ?? 1;
  const metadata = { ...plainObject(fields.metadata, "metadata", at("metadata")) };
  const extra: Record<string, FrontmatterValue> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (!MAPPED_KEYS.has(key)) extra[key] = value;
  }
  if (Object.keys(extra).length > 0) metadata.frontmatter = extra;
  const eventKey = fields.event_time !== undefined ? "event_time" : "date";
  const refKey = fields.source_ref !== undefined ? "source_ref" : "source";
  const titleKey = fields.title !== undefined ? "title" : "subject";
  const ingestTime = text(fields, "ingest_time", at("ingest_time"));
  const agentId = text(fields, "agent_id", at("agent_id"));
  const client = text(fields, "client", at("client"));
  const memaId = positiveInteger(fields.mema_id, "mema_id", at("mema_id"));
  // A mema export writes every window it has: one it left out had none.
  const exported = memaId === undefined ? undefined : null;
  return {
    title: text(fields, titleKey, at(titleKey)),
    validFrom: text(fields, "valid_from", at("valid_from")) ?? exported,
    validTo: text(fields, "valid_to", at("valid_to")) ?? exported,
    workspace: text(fields, "workspace", at("workspace")),
    tags: tagList(fields.tags, "tags", at("tags")),
    sourceType: oneOf<SourceType>(
      fields.source_type,
      SOURCE_TYPES,
      "source_type",
      at("source_type"),
    ),
    sourceRef: text(fields, refKey, at(refKey)),
    eventTime: text(fields, eventKey, at(eventKey)),
    confidence: confidence(fields.confidence, at("confidence")),
    protectionLevel: oneOf<ProtectionLevel>(
      fields.protection_level,
      PROTECTION_LEVELS,
      "protection_level",
      at("protection_level"),
    ),
    status: oneOf(fields.status, ["active", "pending"] as const, "status", at("status")),
    metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
    memaId,
    followsMemaId: positiveInteger(fields.follows, "follows", at("follows")),
    origin: ingestTime || agentId || client ? { ingestTime, agentId, client } : undefined,
    fieldLines: {
      subject: at(titleKey),
      tags: at("tags"),
      workspace: at("workspace"),
      source_ref: at(refKey),
      event_time: at(eventKey),
      valid_from: at("valid_from"),
      valid_to: at("valid_to"),
      ingest_time: at("ingest_time"),
      metadata: at("metadata"),
      follows: at("follows"),
    },
  };
}

/**
 * A subject at most `max` characters long: a longer one is cut at the last word boundary
 * (in its second half, else mid-word) and ends with "…".
 */
export function shortenSubject(subject: string, max: number): string {
  if (subject.length <= max) return subject;
  const head = prefixByUnits(subject, max - 1);
  const space = head.search(/\s\S*$/);
  const cut = space >= max / 2 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:.–—-]+$/, "")}…`;
}

function isGenericName(fileTitle: string): boolean {
  const stem = fileTitle.toLowerCase().split(/[.\s-]/)[0];
  return (GENERIC_NOTE_NAMES as readonly string[]).includes(stem);
}

function squash(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
}

/**
 * The title of a note that declares none: its heading (see `noteTitle`), else its file name;
 * a file named README, index, notes… says what it is about through its folder, so the folder
 * leads unless the heading already names it: "qs", "@types/node — Installation",
 * "inherits — README". A file name that says something stays as before.
 */
function derivedTitle(body: string, source: NoteSource, split: SplitMode): string {
  const heading = noteTitle(body);
  // Split notes keep a file-level title unless the note has a real `#` title: a first `##`
  // heading is the first section's name, and would repeat in every section subject.
  const text = heading && (split === "file" || heading.level === 1) ? heading.text : undefined;
  const folder = source.folder === undefined ? undefined : visibleText(source.folder);
  if (!isGenericName(source.fileTitle) || !folder) return text ?? source.fileTitle;
  if (text === undefined) return `${folder} — ${source.fileTitle}`;
  const bare = squash(folder.replace(/^@[^/]*\//, ""));
  return bare !== "" && squash(text).includes(bare) ? text : `${folder} — ${text}`;
}

/**
 * One note as a unit: the whole note as one memory, or with `split: "headings"` one memory
 * per `##` section (text before the first section, when it says more than the title, comes
 * first), each following the one before. Throws {@linkcode SourceError} with the line of
 * the problem.
 */
export function markdownUnit(raw: string, source: NoteSource): ImportUnit {
  const body = raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
  let parsed;
  try {
    parsed = parseFrontmatter(body);
  } catch (error) {
    if (error instanceof FrontmatterError) throw new SourceError(error.line, error.message);
    throw error;
  }
  const { title: declaredTitle, ...shared } = noteFields(parsed.fields, parsed.lines);
  const outline = readNoteSections(parsed.body);
  // A declared title is the user's own, kept whole up to the subject limit; a derived one is
  // a short line. Neither is ever a reason to skip the note.
  const title = declaredTitle !== undefined
    ? shortenSubject(declaredTitle, SUBJECT_MAX_CHARS)
    : shortenSubject(derivedTitle(parsed.body, source, source.split), IMPORT_SUBJECT_MAX_CHARS);
  const unit: ImportUnit = { path: source.path, line: 1, items: [] };
  if (parsed.body.trim() === "") {
    throw new SourceError(parsed.bodyLine, "the note is empty");
  }
  const whole = source.split === "file" || outline.sections.length === 0;
  if (whole) {
    unit.items.push({
      ...shared,
      subject: title,
      content: parsed.body,
      // A note exported by mema says where its fact came from (nothing, for most agent
      // facts); any other note is its own source.
      sourceRef: shared.memaId !== undefined
        ? shared.sourceRef
        : shared.sourceRef ?? source.sourceRef,
      line: parsed.bodyLine,
    });
    return unit;
  }
  // Sections are new memories of their own: an exported note's id and predecessor name the
  // whole note, not a section.
  const sectionShared = { ...shared, memaId: undefined, followsMemaId: undefined };
  const base = shared.sourceRef ?? source.sourceRef;
  if (hasSubstance(outline.preamble)) {
    unit.items.push({
      ...sectionShared,
      subject: title,
      content: outline.preamble,
      sourceRef: base,
      line: parsed.bodyLine,
    });
  }
  for (const section of outline.sections) {
    unit.items.push({
      ...sectionShared,
      subject: shortenSubject(
        `${title} › ${visibleText(section.heading) || section.heading}`,
        SUBJECT_MAX_CHARS,
      ),
      content: section.text,
      sourceRef: `${base}#${section.slug}`,
      followsPrevious: unit.items.length > 0,
      line: parsed.bodyLine + section.line - 1,
    });
  }
  return unit;
}

/** What reading a JSONL export gave: units, and lines that could not be read. */
export interface JsonlRead {
  units: ImportUnit[];
  errors: SourceError[];
}

function field<T>(
  record: Record<string, unknown>,
  key: string,
  check: (value: unknown) => value is T,
  what: string,
  line: number,
): T | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw new SourceError(line, `"${key}" must be ${what}`);
  return value;
}

const isString = (value: unknown): value is string => typeof value === "string";
const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every(isString);

function versionsOf(value: unknown, line: number): PortableVersion[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new SourceError(line, `"history" must be a list`);
  return value.map((entry, index) => {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      throw new SourceError(line, `history.${index} must be an object`);
    }
    const record = entry as Record<string, unknown>;
    const content = field(record, "content", isString, "text", line);
    const subject = field(record, "subject", isString, "text", line);
    if (content === undefined || subject === undefined) {
      throw new SourceError(line, `history.${index} needs "content" and "subject"`);
    }
    return {
      version: Number(record.version ?? index + 1),
      subject,
      content,
      content_sha: String(record.content_sha ?? ""),
      tags: field(record, "tags", isStringList, "a list of text", line) ?? [],
      status: String(record.status ?? "active"),
      changed_at: String(record.changed_at ?? ""),
      changed_by: field(record, "changed_by", isString, "text", line) ?? "mema-import",
      changed_by_client: field(record, "changed_by_client", isString, "text", line) ??
        "mema-cli",
      reason: field(record, "reason", isString, "text", line) ?? null,
      valid_from: field(record, "valid_from", isString, "text", line) ?? null,
      valid_to: field(record, "valid_to", isString, "text", line) ?? null,
    };
  });
}

/** One JSONL memory line as an item. */
function jsonlItem(record: Record<string, unknown>, line: number): ImportItem {
  const content = field(record, "content", isString, "text", line);
  const subject = field(record, "subject", isString, "text", line);
  if (content === undefined || subject === undefined) {
    throw new SourceError(line, `a memory line needs "content" and "subject"`);
  }
  const status = oneOf(record.status, ["active", "pending"] as const, "status", line);
  const ingestTime = field(record, "ingest_time", isString, "text", line);
  const agentId = field(record, "agent_id", isString, "text", line);
  const client = field(record, "client", isString, "text", line);
  return {
    subject,
    content,
    workspace: field(record, "workspace", isString, "text", line),
    tags: field(record, "tags", isStringList, "a list of text", line),
    sourceType: oneOf<SourceType>(record.source_type, SOURCE_TYPES, "source_type", line),
    sourceRef: field(record, "source_ref", isString, "text", line),
    eventTime: field(record, "event_time", isString, "text", line),
    // A mema export line carries its window (null: none); a hand-written line may leave it out.
    validFrom: "valid_from" in record
      ? field(record, "valid_from", isString, "text", line) ?? null
      : undefined,
    validTo: "valid_to" in record
      ? field(record, "valid_to", isString, "text", line) ?? null
      : undefined,
    confidence: confidence(record.confidence, line),
    protectionLevel: oneOf<ProtectionLevel>(
      record.protection_level,
      PROTECTION_LEVELS,
      "protection_level",
      line,
    ),
    status,
    metadata: record.metadata === undefined
      ? undefined
      : plainObject(record.metadata, "metadata", line),
    memaId: positiveInteger(record.id, "id", line),
    followsMemaId: positiveInteger(record.follows, "follows", line),
    origin: { ingestTime, agentId, client },
    history: versionsOf(record.history, line),
    line,
  };
}

/** One line of a source file as a reader gives it: its text, or why it could not be read. */
export interface SourceLine {
  /** 1-based. */
  line: number;
  text?: string;
  error?: string;
}

/** What one JSONL line is: a memory's unit, the export header, or a blank line. */
type JsonlEntry = ImportUnit | "header" | "blank";

/** Reads one JSONL line (see {@linkcode readJsonlUnits}); throws {@linkcode SourceError}. */
function jsonlEntry(textLine: string, lineNo: number, path: string): JsonlEntry {
  if (textLine.trim() === "") return "blank";
  let record: unknown;
  try {
    // Numbers a float cannot keep as written are marked; the write path refuses them.
    record = parseJsonExact(textLine);
  } catch (error) {
    throw new SourceError(lineNo, `not a JSON object: ${(error as Error).message}`);
  }
  if (record === null || typeof record !== "object" || Array.isArray(record)) {
    throw new SourceError(lineNo, "not a JSON object");
  }
  const object = record as Record<string, unknown>;
  if (object.type === "mema_export") {
    if (typeof object.format === "number" && object.format > EXPORT_FORMAT) {
      throw new NewerFormat(
        lineNo,
        `written in export format ${object.format}, newer than this mema reads (${EXPORT_FORMAT}); use the newer mema`,
      );
    }
    return "header";
  }
  if (object.type !== undefined && object.type !== "memory") {
    throw new SourceError(lineNo, `unknown line type "${String(object.type)}"`);
  }
  return { path, line: lineNo, items: [jsonlItem(object, lineNo)] };
}

/** A header of a newer export format: the rest of the file is not read. */
class NewerFormat extends SourceError {}

/**
 * Reads a JSONL export line by line: a header line (`type: "mema_export"`, optional) then
 * one memory per line. Each line is its own unit, so one bad line skips only itself (it is
 * yielded as a skipped source, in order: the feed `importUnits` takes). A header of a newer export format stops
 * the reading there. Holds one line at a time: feed it a streaming reader.
 */
export async function* readJsonlUnits(
  lines: AsyncIterable<SourceLine> | Iterable<SourceLine>,
  path: string,
): AsyncGenerator<ImportUnit | SkippedSource> {
  for await (const source of lines) {
    if (source.error !== undefined) {
      yield { path, line: source.line, reason: source.error };
      continue;
    }
    let entry: JsonlEntry;
    try {
      entry = jsonlEntry(source.text ?? "", source.line, path);
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      yield { path, line: error.line, reason: error.message };
      if (error instanceof NewerFormat) return;
      continue;
    }
    if (typeof entry === "object") yield entry;
  }
}

/**
 * Reads a JSONL export held in one string (see {@linkcode readJsonlUnits}); a header of a
 * newer export format refuses the whole file.
 */
export function jsonlUnits(raw: string, path: string): JsonlRead {
  const units: ImportUnit[] = [];
  const errors: SourceError[] = [];
  const lines = (raw.startsWith("\uFEFF") ? raw.slice(1) : raw).split("\n");
  for (let index = 0; index < lines.length; index++) {
    try {
      const entry = jsonlEntry(lines[index].replace(/\r$/, ""), index + 1, path);
      if (typeof entry === "object") units.push(entry);
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      if (error instanceof NewerFormat) return { units: [], errors: [error] };
      errors.push(error);
    }
  }
  return { units, errors };
}
