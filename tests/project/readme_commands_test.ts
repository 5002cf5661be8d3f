/**
 * The commands of the README and of the docs pages it links must work as written on a machine
 * with only Node and npm: every
 * command that runs mema goes through `npx -y deno@2.9.6 task …` (never a bare `deno`, which
 * such a machine does not have), every task it names exists, and a task passes the words
 * after its name on to mema.
 * @module
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers/server.ts";
import { VERSION } from "../../src/version.ts";

/** Docs pages for contributors (the architecture notes, the design of record): they run nothing. */
const CONTRIBUTOR_PAGES = new Set(["ARCHITECTURE.md", "SPEC.md"]);

/**
 * The README and the user documentation it links (docs/*.md but {@linkcode CONTRIBUTOR_PAGES}),
 * read as one text: commands moved out of the README are still checked where they now live.
 */
const README = [
  `${ROOT}/README.md`,
  ...[...Deno.readDirSync(`${ROOT}/docs`)]
    .filter((entry) =>
      entry.isFile && entry.name.endsWith(".md") && !CONTRIBUTOR_PAGES.has(entry.name)
    )
    .map((entry) => `${ROOT}/docs/${entry.name}`)
    .sort(),
].map((path) => Deno.readTextFileSync(path)).join("\n\n");
const NPX_DENO = "npx -y deno@2.9.6";

/** Paragraphs (blank-line separated) that hold inline code, outside fenced blocks. */
function prose(text: string): string[] {
  return text.replace(/```[\s\S]*?```/g, "").split(/\n\s*\n/);
}

/** Lines of fenced shell blocks. */
function shellLines(text: string): string[] {
  const lines: string[] = [];
  for (const block of text.matchAll(/```(?:sh|bash|cron)\n([\s\S]*?)```/g)) {
    lines.push(...block[1].split("\n").filter((line) => line.trim() !== ""));
  }
  return lines;
}

Deno.test("every task the README runs through npx exists in deno.json", () => {
  const tasks = Object.keys(JSON.parse(Deno.readTextFileSync(`${ROOT}/deno.json`)).tasks);
  const named = [...README.matchAll(/npx -y deno@2\.9\.6 task ([a-z:-]+)/g)].map((m) => m[1]);
  assert.ok(named.length >= 10, `only ${named.length} task commands found`);
  for (const name of new Set(named)) {
    assert.ok(tasks.includes(name), `README runs task "${name}", which deno.json lacks`);
  }
});

Deno.test("no README command needs deno on PATH", () => {
  for (const line of shellLines(README)) {
    const command = line.replace(/#.*$/, "").replaceAll(NPX_DENO, "npx-deno");
    assert.doesNotMatch(command, /(^|[\s;&|(])deno\s/, `shell line needs deno on PATH: ${line}`);
  }
  for (const paragraph of prose(README)) {
    // The one place bare deno is right: the sentence about having Deno installed already.
    if (/With Deno [\d.]+ installed|With Deno on the client's PATH/.test(paragraph)) continue;
    for (const span of paragraph.matchAll(/`([^`]+)`/g)) {
      const code = span[1].replaceAll(NPX_DENO, "npx-deno");
      assert.doesNotMatch(
        code,
        /^(\S+=\S+\s+)*deno\s/,
        `inline command needs deno on PATH: \`${span[1]}\``,
      );
    }
  }
});

Deno.test("a task passes the words after its name on to mema", async () => {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "mema", "version"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(result.stdout);
  assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
  assert.equal(stdout.trim(), `mema ${VERSION}`);
});
