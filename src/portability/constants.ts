/**
 * Import and export tunables. Each number says where it came from.
 * @module
 */

/**
 * Memories per import write transaction. The same bound as `batch_remember`
 * (BATCH_REMEMBER_MAX): at ~0.2 ms per short note a batch holds the write lock ~100 ms, so
 * a server writing at the same time waits far less than its 6 s lock budget, and the
 * per-commit fsync is paid once per 500 notes (bench/import_notes.ts).
 */
export const IMPORT_BATCH_MEMORIES = 500;

/**
 * WAL pages an import lets accumulate before its connection checkpoints (~40 MB, ~9 batches at
 * 1M; SQLite's default is 1,000, which checkpointed, with two disk syncs, after every batch).
 * Measured importing 5,000 memories into a 1M library, twice each: 32–40 syncs taking 0.39–1.27 s
 * before, 5–9 taking 0.2 s after, CPU unchanged (load 3–6 on 2 cores).
 */
export const IMPORT_CHECKPOINT_PAGES = 10_000;

/** Memories read per page while exporting to files: bounded memory on any library size. */
export const EXPORT_PAGE_MEMORIES = 500;

/** Characters of the subject kept in an exported file's name (long names break some tools). */
export const EXPORT_FILE_SUBJECT_CHARS = 60;

/**
 * Largest exported file or folder name, in UTF-8 bytes. File systems limit one name to 255
 * bytes (ext4, btrfs, xfs, tmpfs, APFS; a CJK character is 3 bytes, so 85 of them fill it);
 * a file being written carries a temporary suffix `.tmp-<pid>-<uuid>` of up to 50 bytes
 * until it is renamed, so names stop at 200 and the suffix always fits.
 */
export const EXPORT_NAME_MAX_BYTES = 200;

/**
 * Hex digits of SHA-256 appended to a name that had to be shortened: names that share their
 * first 200 bytes stay distinct (48 bits: a collision needs ~16 million such names).
 */
export const EXPORT_NAME_HASH_CHARS = 12;

/** Largest page of the MCP `export` view, in memories (the `find` page limit). */
export const MCP_EXPORT_PAGE_MAX = 100;

/** Default page of the MCP `export` view, in memories. */
export const MCP_EXPORT_PAGE_DEFAULT = 20;

/**
 * Characters of exported text one MCP `export` page returns before it stops (~64k tokens
 * at 4 characters each: most of a large context window, never all of it). A single memory
 * larger than this still comes whole, alone on its page: facts are never cut.
 */
export const MCP_EXPORT_PAGE_CHARS = 256 * 1024;

/** File name extensions `mema import` reads as Markdown notes. */
export const MARKDOWN_EXTENSIONS = [".md", ".markdown"] as const;

/** The trust an imported note gets when neither it nor `--source-type` says otherwise. */
export const IMPORT_DEFAULT_SOURCE_TYPE = "document_extracted";

/**
 * Longest subject an import derives from a heading or a file name, in characters. A title is
 * one line: the longest subject derived from the 119 npm READMEs in node_modules is 73 characters,
 * while a heading that runs on (a line of badges, a pasted sentence) reached 598 and failed
 * the 512-character subject limit, skipping the whole file. 160 keeps any real title whole
 * and a run-on heading readable as a row of `find`; longer ones are cut at a word boundary.
 */
export const IMPORT_SUBJECT_MAX_CHARS = 160;

/**
 * File names that say nothing about a note (matched without extension, case-insensitively,
 * also with a suffix such as `README.zh-CN`): the note's folder names it instead.
 */
export const GENERIC_NOTE_NAMES = [
  "readme",
  "index",
  "_index",
  "notes",
  "note",
  "changelog",
  "changes",
  "history",
  "contributing",
  "license",
  "security",
  "todo",
  "main",
  "home",
] as const;
