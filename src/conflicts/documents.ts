/**
 * Documents: what a long memory's sentences are about. A README's "Copyright 2013 Lovell
 * Fuller" and another's "Copyright 2017 Lovell Fuller" are two packages' notices, not one
 * fact stated twice: each sentence of a document is about the document's topic unless it
 * names its own. Two documents are compared only when their topics match; a document and a
 * fact (or two facts) are compared as always.
 *
 * The topic is the memory's subject (the note's title), or, when that title only names the
 * kind of file ("README", "Changelog", "HISTORY"), the folder it was imported from
 * (`source_ref` "qs/README.md" → "qs").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { documentTopic } from "./documents.ts";
 *
 * const topic = documentTopic({
 *   subject: "HISTORY",
 *   sourceRef: "fresh/HISTORY.md",
 *   content: "…",
 *   sourceType: "document_extracted",
 * });
 * assert.equal(topic, "fresh");
 * ```
 * @module
 */
import type { SourceType } from "../store/mod.ts";
import {
  DETECT_DOCUMENT_MIN_CHARS,
  DETECT_IMPORTED_DOCUMENT_MIN_CHARS,
} from "./constants_pipeline.ts";

/** What the topic of a memory is read from. */
export interface DocumentLike {
  subject: string;
  sourceRef: string | null;
  content: string;
  sourceType: SourceType;
}

/** Titles that name a kind of file, not what it is about. */
const GENERIC_TITLE =
  /^(?:readme|read me|changelog|change log|changes|history|release notes|releases|news|index|notes|docs|documentation|contributing|license|licence|security|code of conduct|faq|todo|api|usage|upgrading|migration|guide)$/iu;

/**
 * True when a memory is a document: long ({@linkcode DETECT_DOCUMENT_MIN_CHARS}), or imported
 * and more than a couple of sentences ({@linkcode DETECT_IMPORTED_DOCUMENT_MIN_CHARS}).
 */
export function isDocument(memory: DocumentLike): boolean {
  return memory.content.length >= DETECT_DOCUMENT_MIN_CHARS ||
    (memory.sourceType === "document_extracted" &&
      memory.content.length >= DETECT_IMPORTED_DOCUMENT_MIN_CHARS);
}

/** A title reduced to its words, lower case: "`qs` — Query strings!" → "qs query strings". */
function words(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:[-_.@/][\p{L}\p{N}]+)*/gu) ?? []).join(" ");
}

/** The topic of a document: its title, or its folder when the title is generic. */
export function documentTopic(memory: DocumentLike): string {
  // A note split by headings is titled "README › Usage": the note's title comes first.
  const title = words(memory.subject.split(" › ")[0]);
  if (title !== "" && !GENERIC_TITLE.test(title)) return title;
  const ref = memory.sourceRef?.split("#")[0] ?? "";
  const folder = ref.includes("/") ? ref.slice(0, ref.lastIndexOf("/")) : "";
  // Without a folder, the file itself ("qs-README.md"): two files with a generic title are
  // never one topic just because both are called README.
  return words(folder) || words(ref) || title;
}

/** The file an imported memory came from (its `source_ref` without a section anchor). */
function fileOf(memory: DocumentLike): string | undefined {
  if (memory.sourceType !== "document_extracted" || !memory.sourceRef) return undefined;
  return memory.sourceRef.split("#")[0];
}

/** A section of a note imported with `--split headings` ("README › Usage", `qs/README.md#usage`). */
function isSection(memory: DocumentLike): boolean {
  return fileOf(memory) !== undefined && memory.sourceRef!.includes("#");
}

/**
 * Why two memories are not compared, when they are two documents (or parts of documents) about
 * different topics, or two sections of one imported file; undefined when they are compared.
 */
export function differentDocuments(a: DocumentLike, b: DocumentLike): string | undefined {
  const file = fileOf(a);
  // Each section of a file is about its heading ("UTF-16 Encodings" / "UTF-32 Encodings").
  if (file !== undefined && file === fileOf(b)) return `two parts of one document (${file})`;
  // Two imported files: when either is a document or a section of one, its sentences are about
  // its topic, and so are the other file's (the part of a split file before its first heading
  // has no anchor and is often short: "> Stability: 1 - Experimental." under "Web Streams API").
  const imported = file !== undefined && fileOf(b) !== undefined;
  const partOfDocument = (m: DocumentLike) => isDocument(m) || isSection(m);
  if (
    imported ? !partOfDocument(a) && !partOfDocument(b) : !partOfDocument(a) || !partOfDocument(b)
  ) return undefined;
  const topicA = documentTopic(a);
  const topicB = documentTopic(b);
  return topicA === topicB
    ? undefined
    : `two documents about different topics ("${topicA}" / "${topicB}")`;
}
