/**
 * Import throughput: N short Markdown notes (frontmatter with tags, workspace and date, one
 * generated fact each) written to a temp folder, then `mema import FOLDER` run as a user
 * would (a spawned `main.ts`, a real SQLite file). Prints memories per second for the first
 * import (process start included) and for the second, which must store nothing, both per
 * second of wall clock and per second of the process's CPU time (on a machine shared with
 * other work the wall clock mostly measures the others).
 *
 *   deno run -A bench/import_notes.ts [--notes 10000] [--seed 7]
 *
 * Writes bench/results/import_notes.json. Never asserts.
 * @module
 */
import { parseArgs } from "node:util";
import { NoteGenerator } from "./helpers/notes.ts";
import { machineFacts, ROOT, writeResult } from "./helpers/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { notes: { type: "string", default: "10000" }, seed: { type: "string", default: "7" } },
});
const count = Number(values.notes);
const dir = Deno.makeTempDirSync({ prefix: "mema-bench-import-" });
const generator = new NoteGenerator(Number(values.seed));
let written = 0;
let chars = 0;
while (written < count) {
  const note = generator.next();
  if (note.kind !== "fact" && note.kind !== "cjk_fact") continue;
  const folder = `${dir}/notes/${note.workspace}`;
  Deno.mkdirSync(folder, { recursive: true });
  const text = `---\ntags: [${note.tags.map((t) => JSON.stringify(t)).join(", ")}]\n` +
    `workspace: ${JSON.stringify(note.workspace)}\ndate: ${note.eventTime}\n---\n` +
    `# ${note.subject}\n\n${note.content}\n`;
  Deno.writeTextFileSync(`${folder}/${String(written).padStart(6, "0")}.md`, text);
  chars += note.content.length;
  written++;
}

/** Runs the import as a user would; bash's `time` gives the process's CPU seconds too. */
async function runImport(): Promise<{ wall: number; cpu: number; stdout: string }> {
  const command = `TIMEFORMAT='%R %U %S'; time ${JSON.stringify(Deno.execPath())} run -A --quiet ` +
    `${JSON.stringify(`${ROOT}/main.ts`)} import ${JSON.stringify(`${dir}/notes`)}`;
  const output = await new Deno.Command("bash", {
    args: ["-c", command],
    env: { MEMA_DB_PATH: `${dir}/mema.sqlite3`, XDG_CACHE_HOME: `${dir}/cache` },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr).trim();
  if (output.code !== 0) throw new Error(stderr);
  const [wall, user, system] = stderr.split("\n").at(-1)!.split(" ").map(Number);
  return { wall, cpu: user + system, stdout: new TextDecoder().decode(output.stdout).trim() };
}

/** Figures of one run: per second of wall clock (the machine may be shared) and of CPU. */
function figures(run: Awaited<ReturnType<typeof runImport>>) {
  return {
    wall_seconds: run.wall,
    cpu_seconds: Number(run.cpu.toFixed(2)),
    per_wall_second: Math.round(count / run.wall),
    per_cpu_second: Math.round(count / run.cpu),
    summary: run.stdout,
  };
}

try {
  const first = await runImport();
  const second = await runImport();
  const result = {
    notes: count,
    average_content_chars: Math.round(chars / count),
    first_import: figures(first),
    second_import: figures(second),
    machine: machineFacts(),
  };
  console.log(JSON.stringify(result, null, 2));
  console.log(`results: ${writeResult("import_notes", result)}`);
} finally {
  Deno.removeSync(dir, { recursive: true });
}
