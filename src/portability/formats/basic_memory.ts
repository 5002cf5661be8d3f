/**
 * basic-memory notes: Markdown files with YAML frontmatter (`title`, `type`, `tags`,
 * `permalink`, any other key kept as the entity's metadata), observations
 * `- [category] text #tag (context)` and relations `- relation_type [[Target]] (context)`,
 * found anywhere outside code fences (the `## Observations` / `## Relations` headings are a
 * convention only), and `[[links]]` inline in prose (basic-memory's `links_to`).
 *
 * One note is one memory, its text verbatim: observations and relations stay readable where
 * they are. Subject: `title`, else the first heading, else the file name. Tags: the
 * frontmatter's tags, then each observation's `#tags` (at most 32, the memory limit, in that
 * order). `metadata.basic_memory` holds `type`, `permalink`, the observation categories, the
 * relations as `{type, target, context}` (up to {@linkcode BASIC_MEMORY_RELATIONS_KEPT}; mema
 * keeps no graph of entities here, so a relation is its words and its target's title) and any
 * other frontmatter key. `source_ref` is `basic-memory:<permalink>` (else the note's path in
 * the folder without `.md`). Event time: frontmatter `created` or `date` when present.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { basicMemoryUnit } from "./basic_memory.ts";
 *
 * const unit = basicMemoryUnit(
 *   "---\ntitle: Coffee\ntags: [coffee]\npermalink: coffee\n---\n" +
 *     "- [method] Pour over is clearer #brewing\n- pairs_with [[Croissant]]\n",
 *   { path: "notes/coffee.md", ref: "coffee.md", workspacePer: "project" },
 * );
 * const [item] = unit.items;
 * assert.deepEqual(item.tags, ["coffee", "brewing"]);
 * assert.equal(item.sourceRef, "basic-memory:coffee");
 * ```
 * @module
 */
import { SUBJECT_MAX_CHARS, TAGS_MAX_PER_MEMORY } from "../../memory/limits.ts";
import { FrontmatterError, type FrontmatterValue, parseFrontmatter } from "../frontmatter.ts";
import { type ImportUnit, SourceError } from "../import_types.ts";
import { noteTitle } from "../markdown.ts";
import { shortenSubject } from "../sources.ts";
import { IMPORT_SUBJECT_MAX_CHARS } from "../constants.ts";
import { BASIC_MEMORY_RELATIONS_KEPT } from "./constants.ts";
import type { FormatOptions } from "./types.ts";

/** Where a note comes from. */
export interface NoteFile extends FormatOptions {
  /** The note's path relative to the folder imported (or its file name). */
  ref: string;
}

/** One relation of a note. */
export interface NoteRelation {
  type: string;
  target: string;
  context?: string;
}

/** What a note says beyond its text: observations and relations. */
export interface NoteSemantics {
  observations: { category: string; text: string; tags: string[]; context?: string }[];
  relations: NoteRelation[];
}

const FENCE = /^\s*(```|~~~)/;
// `- [category] text`; `[ ]` and `[x]` are task list boxes, not categories.
const OBSERVATION = /^\s*[-*+]\s+\[([^\[\]]+)\]\s+(.+)$/;
const RELATION = /^\s*[-*+]\s+([^\[\]()]+?)\s+\[\[([^\[\]]+)\]\](?:\s+\((.*)\))?\s*$/;
const WIKI_LINK = /\[\[([^\[\]]+)\]\]/g;
const HASH_TAG = /(?:^|\s)#([\p{L}\p{N}_][\p{L}\p{N}_/-]*)/gu;
const TRAILING_CONTEXT = /\s+\(([^()]*)\)\s*$/;

/** Reads the observations and relations of a note's body (code fences left alone). */
export function readNoteSemantics(body: string): NoteSemantics {
  const semantics: NoteSemantics = { observations: [], relations: [] };
  let fenced = false;
  for (const line of body.split("\n")) {
    if (FENCE.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const observation = OBSERVATION.exec(line);
    if (observation && !/^\s*[xX]?\s*$/.test(observation[1])) {
      const rest = observation[2].trimEnd();
      const context = TRAILING_CONTEXT.exec(rest)?.[1];
      const text = context === undefined ? rest : rest.replace(TRAILING_CONTEXT, "");
      const tags = [...text.matchAll(HASH_TAG)].map((match) => match[1]);
      semantics.observations.push({
        category: observation[1].trim(),
        text,
        tags,
        ...(context !== undefined ? { context } : {}),
      });
      continue;
    }
    const relation = RELATION.exec(line);
    if (relation) {
      semantics.relations.push({
        type: relation[1].trim(),
        target: relation[2].trim(),
        ...(relation[3] !== undefined ? { context: relation[3] } : {}),
      });
      continue;
    }
    for (const link of line.matchAll(WIKI_LINK)) {
      semantics.relations.push({ type: "links_to", target: link[1].trim() });
    }
  }
  return semantics;
}

function textField(value: FrontmatterValue | undefined): string | undefined {
  if (typeof value === "string" && value.trim() !== "") return value;
  if (typeof value === "number") return String(value);
  return undefined;
}

function frontmatterTags(value: FrontmatterValue | undefined, line: number): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") {
    return value.split(",").map((tag) => tag.trim().replace(/^#/, "")).filter(Boolean);
  }
  if (Array.isArray(value) && value.every((tag) => typeof tag === "string")) {
    return (value as string[]).map((tag) => tag.trim().replace(/^#/, "")).filter(Boolean);
  }
  throw new SourceError(line, '"tags" must be a list of tags');
}

/** Keys basic-memory itself reads; every other key is the note's own metadata. */
const STANDARD_KEYS = new Set(["title", "type", "tags", "permalink", "created", "date"]);

/**
 * One basic-memory note as a unit of one memory; see the module documentation. Throws
 * {@linkcode SourceError} at the line of a problem (broken frontmatter, an empty note).
 */
export function basicMemoryUnit(raw: string, source: NoteFile): ImportUnit {
  const text = raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
  let parsed;
  try {
    parsed = parseFrontmatter(text);
  } catch (error) {
    if (error instanceof FrontmatterError) throw new SourceError(error.line, error.message);
    throw error;
  }
  if (parsed.body.trim() === "") throw new SourceError(parsed.bodyLine, "the note is empty");
  const { fields, lines } = parsed;
  const fileTitle = source.ref.slice(source.ref.lastIndexOf("/") + 1).replace(
    /\.(md|markdown)$/i,
    "",
  );
  const declared = textField(fields.title);
  const subject = declared !== undefined
    ? shortenSubject(declared, SUBJECT_MAX_CHARS)
    : shortenSubject(noteTitle(parsed.body)?.text ?? fileTitle, IMPORT_SUBJECT_MAX_CHARS);
  const semantics = readNoteSemantics(parsed.body);
  const tags = [
    ...new Set([
      ...frontmatterTags(fields.tags, lines.tags ?? 1),
      ...semantics.observations.flatMap((observation) => observation.tags),
    ]),
  ].slice(0, TAGS_MAX_PER_MEMORY);
  const permalink = textField(fields.permalink);
  const extra: Record<string, FrontmatterValue> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (!STANDARD_KEYS.has(key)) extra[key] = value;
  }
  const categories = [...new Set(semantics.observations.map((o) => o.category))];
  const eventKey = fields.created !== undefined ? "created" : "date";
  return {
    path: source.path,
    line: 1,
    items: [{
      subject,
      content: parsed.body,
      workspace: source.workspace,
      tags,
      sourceType: source.sourceType,
      sourceRef: `basic-memory:${permalink ?? source.ref.replace(/\.(md|markdown)$/i, "")}`,
      eventTime: textField(fields[eventKey]),
      metadata: {
        basic_memory: {
          type: textField(fields.type) ?? "note",
          ...(permalink ? { permalink } : {}),
          path: source.ref,
          ...(categories.length > 0 ? { categories } : {}),
          ...(semantics.relations.length > 0
            ? { relations: semantics.relations.slice(0, BASIC_MEMORY_RELATIONS_KEPT) }
            : {}),
          ...(Object.keys(extra).length > 0 ? { frontmatter: extra } : {}),
        },
      },
      origin: { client: "basic-memory" },
      line: parsed.bodyLine,
      fieldLines: {
        subject: lines.title ?? 1,
        tags: lines.tags ?? 1,
        event_time: lines[eventKey] ?? 1,
      },
    }],
  };
}
