/**
 * Markdown notes as memories: one note is one memory (its first `#` heading or file name the
 * subject), or, split by headings, one memory per `##` section in order. Content is kept
 * verbatim: the note's text after the frontmatter, or the section's text from its heading to
 * the next one.
 *
 * @example
 * ```ts
 * import { headingSlug, readNoteSections } from "./src/portability/markdown.ts";
 * headingSlug("Deploy: Friday's window!"); // "deploy-fridays-window"
 * readNoteSections("# Ops\n\n## Deploys\nFridays.\n## Backups\nNightly.\n").sections.length; // 2
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
  /** The first `#` heading's text, if any. */
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

/** True when the text holds something besides blank lines and `#` title lines. */
export function hasSubstance(text: string): boolean {
  return text.split(/\r?\n/).some((line) => line.trim() !== "" && !/^[ ]{0,3}#[ \t]/.test(line));
}
