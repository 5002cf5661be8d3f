/**
 * Markdown notes as memories: one note is one memory (its title the subject: see
 * {@linkcode noteTitle}), or, split by headings, one memory per `##` section in order. Content is kept
 * verbatim: the note's text after the frontmatter, or the section's text from its heading to
 * the next one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { headingSlug, readNoteSections } from "./markdown.ts";
 *
 * assert.equal(headingSlug("Deploy: Friday's window!"), "deploy-fridays-window");
 * const note = readNoteSections("# Ops\n\n## Deploys\nFridays.\n## Backups\nNightly.\n");
 * assert.equal(note.sections.length, 2);
 * ```
 * @module
 */

/** One `##` section of a note. */
export interface NoteSection {
  heading: string;
  slug: string;
  /** The section's text from its heading line up to the next `##` heading, verbatim. */
  text: string;
  /** The 1-based line of the heading within the text given. */
  line: number;
}

/** A note's title and sections. */
export interface NoteOutline {
  /** The first `#` heading's text, if any (the subject comes from `noteTitle`). */
  title?: string;
  /** The text before the first `##` heading (the title line included), verbatim. */
  preamble: string;
  sections: NoteSection[];
}

const FENCE_OPEN = /^[ ]{0,3}(`{3,}|~{3,})/;

/**
 * A GitHub-style anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
 * Letters of every script are kept.
 */
export function headingSlug(heading: string): string {
  return heading.normalize("NFKC").toLowerCase().trim()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/[ ]/g, "-");
}

/** Reads a note's title and its `##` sections, skipping headings inside code fences. */
export function readNoteSections(text: string): NoteOutline {
  let title: string | undefined;
  const starts: { at: number; heading: string; line: number }[] = [];
  let fence: string | undefined;
  let at = 0;
  let line = 1;
  while (at < text.length) {
    const next = text.indexOf("\n", at);
    const stop = next < 0 ? text.length : next + 1;
    const raw = text.slice(at, stop).replace(/\r?\n$/, "");
    const opener = FENCE_OPEN.exec(raw);
    if (fence !== undefined) {
      if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length) {
        fence = undefined;
      }
    } else if (opener) {
      fence = opener[1];
    } else {
      const heading = /^[ ]{0,3}(#{1,2})[ \t]+(.*?)[ \t]*#*[ \t]*$/.exec(raw);
      if (heading?.[1] === "#" && title === undefined) title = heading[2].trim();
      if (heading?.[1] === "##" && heading[2].trim() !== "") {
        starts.push({ at, heading: heading[2].trim(), line });
      }
    }
    at = stop;
    line++;
  }
  const seen = new Map<string, number>();
  const sections = starts.map((start, index) => {
    const base = headingSlug(start.heading) || "section";
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return {
      heading: start.heading,
      slug: count === 0 ? base : `${base}-${count}`,
      text: text.slice(start.at, starts[index + 1]?.at ?? text.length),
      line: start.line,
    };
  });
  return { title, preamble: text.slice(0, starts[0]?.at ?? text.length), sections };
}

/** A heading read as a note's title: its visible text and level (1 for `#`, `===`, `<h1>`). */
export interface NoteHeading {
  text: string;
  level: number;
}

const ATX_HEADING = /^[ ]{0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*(?:[ \t]#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^[ ]{0,3}(=+|-+)[ \t]*$/;
const HTML_HEADING_OPEN = /<h([1-6])(?:\s[^>]*)?>/i;
/** A line that cannot be the text of a setext heading (it is a block of its own kind). */
const NOT_PARAGRAPH = /^(?:[ ]{4}|[ ]{0,3}(?:[-*+>|#]|\d+[.)]\s|<|`{3}|~{3}))/;

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  copy: "©",
  reg: "®",
  trade: "™",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X"
        ? parseInt(name.slice(2), 16)
        : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
        ? String.fromCodePoint(code)
        : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * What a reader sees of a line of Markdown or HTML: images (badges, logos) dropped, links as
 * their text, tags stripped, entities decoded, code and emphasis marks removed, whitespace
 * collapsed. `qs <sup>[![Version Badge][v]][p]</sup>` reads "qs".
 */
export function visibleText(raw: string): string {
  let text = raw.replace(/<!--[\s\S]*?(?:-->|$)/g, " ");
  // Images, inline `![alt](url)`, reference `![alt][ref]` or shortcut `![alt]`: a badge's
  // alt text ("Build Status") is not part of the title.
  text = text.replace(/!\[[^\]]*\](?:\((?:[^()]|\([^()]*\))*\)|\[[^\]]*\])?/g, "");
  // Links keep their text; a link left empty (it held only a badge) vanishes. Nested links
  // unwrap from the inside out.
  for (let pass = 0; pass < 3; pass++) {
    text = text.replace(/\[([^[\]]*)\](?:\((?:[^()]|\([^()]*\))*\)|\[[^\]]*\])/g, "$1");
  }
  text = text.replace(/<br\s*\/?>/gi, " ").replace(/<\/?[A-Za-z][^>]*>/g, "");
  text = text.replace(/`+/g, "").replace(/(\*\*|__)(\S(?:.*?\S)?)\1/g, "$2");
  return decodeEntities(text).replace(/\s+/g, " ").trim();
}

/**
 * A note's title: its first level-1 heading (ATX `#`, setext `===` underline or HTML `<h1>`),
 * else its first heading of any level, read as {@linkcode visibleText}. A heading with no
 * visible text (a line of badges) is passed over; headings inside code fences do not count.
 * Undefined when the note has no heading.
 */
export function noteTitle(text: string): NoteHeading | undefined {
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  let first: NoteHeading | undefined;
  const consider = (raw: string, level: number): NoteHeading | undefined => {
    const visible = visibleText(raw);
    if (visible === "") return undefined;
    first ??= { text: visible, level };
    return level === 1 ? { text: visible, level } : undefined;
  };
  let fence: string | undefined;
  // The paragraph line a setext underline would make a heading, when it began a paragraph.
  let candidate: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index];
    const opener = FENCE_OPEN.exec(raw);
    if (fence !== undefined) {
      if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length) {
        fence = undefined;
      }
      continue;
    }
    if (opener) {
      fence = opener[1];
      candidate = undefined;
      continue;
    }
    const underline = SETEXT_UNDERLINE.exec(raw);
    if (underline && candidate !== undefined) {
      const found = consider(candidate, underline[1][0] === "=" ? 1 : 2);
      if (found) return found;
      candidate = undefined;
      continue;
    }
    const atx = ATX_HEADING.exec(raw);
    if (atx) {
      const found = consider(atx[2] ?? "", atx[1].length);
      if (found) return found;
      candidate = undefined;
      continue;
    }
    const html = HTML_HEADING_OPEN.exec(raw);
    if (html) {
      // An HTML heading may run over several lines: read up to its closing tag.
      const rest = lines.slice(index).join("\n").slice(html.index + html[0].length);
      const close = rest.search(new RegExp(`</h${html[1]}\\s*>`, "i"));
      const inner = close < 0 ? rest.split("\n")[0] : rest.slice(0, close);
      const found = consider(inner, Number(html[1]));
      if (found) return found;
      index += inner.split("\n").length - 1;
      candidate = undefined;
      continue;
    }
    const previousBlank = index === 0 || lines[index - 1].trim() === "";
    candidate = raw.trim() !== "" && previousBlank && !NOT_PARAGRAPH.test(raw) ? raw : undefined;
  }
  return first;
}

/** True when the text holds something besides blank lines and `#` title lines. */
export function hasSubstance(text: string): boolean {
  return text.split(/\r?\n/).some((line) => line.trim() !== "" && !/^[ ]{0,3}#[ \t]/.test(line));
}
