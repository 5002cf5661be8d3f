/**
 * Importing from other tools: a generated ChatGPT `conversations.json` (C conversations of T
 * turns, each a generated fact, one abandoned branch per conversation) and a mem0 export of
 * the same facts, each imported with `mema import --format` as a user would (a spawned
 * `main.ts`, a real SQLite file), then imported again (which must store nothing). Prints
 * memories per CPU second and per wall second; the ratio of the two formats in the same run
 * says what chaining turns costs over flat facts on whatever machine runs it.
 *
 *   deno run -A bench/import_conversations.ts [--conversations 250] [--turns 20] [--seed 7]
 *
 * Writes bench/results/import_conversations.json. Never asserts.
 * @module
 */
import { parseArgs } from "node:util";
import { NoteGenerator } from "./helpers/notes.ts";
import { machineFacts, ROOT, writeResult } from "./helpers/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    conversations: { type: "string", default: "250" },
    turns: { type: "string", default: "20" },
    seed: { type: "string", default: "7" },
  },
});
const conversations = Number(values.conversations);
const turns = Number(values.turns);
const dir = Deno.makeTempDirSync({ prefix: "mema-bench-import-formats-" });
const generator = new NoteGenerator(Number(values.seed));

function nextFact(): string {
  for (;;) {
    const note = generator.next();
    if (note.kind === "fact") return note.content;
  }
}

const chats: unknown[] = [];
const facts: unknown[] = [];
const start = 1_735_689_600;
for (let c = 0; c < conversations; c++) {
  const mapping: Record<string, unknown> = {
    root: { id: "root", message: null, parent: null, children: [`c${c}t0`] },
  };
  for (let t = 0; t < turns; t++) {
    const id = `c${c}t${t}`;
    const role = t % 2 === 0 ? "user" : "assistant";
    const text = nextFact();
    const children = t + 1 < turns ? [`c${c}t${t + 1}`] : [];
    if (t === 1) children.push(`c${c}old`);
    mapping[id] = {
      id,
      parent: t === 0 ? "root" : `c${c}t${t - 1}`,
      children,
      message: {
        id,
        author: { role, name: null, metadata: {} },
        create_time: start + c * 3600 + t * 30,
        content: { content_type: "text", parts: [text] },
        metadata: role === "assistant" ? { model_slug: "gpt-4o" } : {},
        recipient: "all",
      },
    };
    facts.push({
      id: crypto.randomUUID(),
      memory: text,
      user_id: "bench",
      created_at: new Date((start + c * 3600 + t * 30) * 1000).toISOString(),
    });
  }
  mapping[`c${c}old`] = {
    id: `c${c}old`,
    parent: `c${c}t1`,
    children: [],
    message: {
      id: `c${c}old`,
      author: { role: "assistant" },
      create_time: start,
      content: { content_type: "text", parts: ["An answer that was regenerated."] },
    },
  };
  chats.push({
    id: crypto.randomUUID(),
    title: `Conversation ${c}`,
    create_time: start + c * 3600,
    current_node: `c${c}t${turns - 1}`,
    mapping,
  });
}
Deno.writeTextFileSync(`${dir}/conversations.json`, JSON.stringify(chats));
Deno.writeTextFileSync(`${dir}/mem0.json`, JSON.stringify({ results: facts }));
const count = conversations * turns;

/** Runs the import as a user would; bash's `time` gives the process's CPU seconds too. */
async function runImport(file: string, format: string, db: string) {
  const command = `TIMEFORMAT='%R %U %S'; time ${JSON.stringify(Deno.execPath())} run -A --quiet ` +
    `${JSON.stringify(`${ROOT}/main.ts`)} import ${JSON.stringify(file)} --format ${format}`;
  const output = await new Deno.Command("bash", {
    args: ["-c", command],
    env: { MEMA_DB_PATH: `${dir}/${db}.sqlite3`, XDG_CACHE_HOME: `${dir}/cache` },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr).trim();
  const [wall, user, system] = stderr.split("\n").at(-1)!.split(" ").map(Number);
  const cpu = user + system;
  return {
    wall_seconds: wall,
    cpu_seconds: Number(cpu.toFixed(2)),
    per_wall_second: Math.round(count / wall),
    per_cpu_second: Math.round(count / cpu),
    summary: new TextDecoder().decode(output.stdout).trim(),
  };
}

try {
  const chatgpt = {
    first_import: await runImport(`${dir}/conversations.json`, "chatgpt", "chatgpt"),
    second_import: await runImport(`${dir}/conversations.json`, "chatgpt", "chatgpt"),
  };
  const mem0 = {
    first_import: await runImport(`${dir}/mem0.json`, "mem0", "mem0"),
    second_import: await runImport(`${dir}/mem0.json`, "mem0", "mem0"),
  };
  const result = {
    conversations,
    turns_per_conversation: turns,
    memories: count,
    chatgpt_file_bytes: Deno.statSync(`${dir}/conversations.json`).size,
    chatgpt,
    mem0,
    chatgpt_over_mem0_cpu: Number(
      (chatgpt.first_import.cpu_seconds / mem0.first_import.cpu_seconds).toFixed(2),
    ),
    machine: machineFacts(),
  };
  console.log(JSON.stringify(result, null, 2));
  console.log(`results: ${writeResult("import_conversations", result)}`);
} finally {
  Deno.removeSync(dir, { recursive: true });
}
