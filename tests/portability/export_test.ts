import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { updateMemory } from "../../src/memory/update.ts";
import { withHomeStore } from "../helpers/home_store.ts";
import { makeTempHome, runCli, type TempHome } from "../helpers/server.ts";
import { parseFrontmatter } from "../../src/portability/frontmatter.ts";

/** Fills the temp home's database through the write path, as `serve` would. */
async function seedLibrary(home: TempHome): Promise<number[]> {
  return await withHomeStore(home, async (ctx) => {
    const a = await rememberMemory(ctx, {
      subject: "Deploy window",
      content: "Deploys run on Fridays after 14:00.\n",
      workspace: "Infra",
      tags: ["ops", "Deploy"],
      sourceRef: "docs/deploy.md",
      eventTime: "2025-03-01",
    });
    await updateMemory(ctx, {
      memoryId: a.memoryId,
      edit: { kind: "new_content", content: "Deploys run on Mondays after 14:00.\n" },
      reason: "moved",
    });
    const b = await rememberMemory(ctx, {
      subject: "Tea: 茶",
      content: "The team drinks green tea — 绿茶 — every day.",
      workspace: "default",
      metadata: { origin: "chat", turn: 3 },
    });
    return [a.memoryId, b.memoryId];
  });
}

Deno.test("export --format md writes one file per memory with frontmatter and the content verbatim", async () => {
  const home = makeTempHome();
  try {
    const [a, b] = await seedLibrary(home);
    const out = `${home.dir}/out`;
    const run = await runCli(home, ["export", out]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /exported 2 memories/);
    const infra = [...Deno.readDirSync(`${out}/infra`)].map((e) => e.name);
    assert.deepEqual(infra, [`${String(a).padStart(8, "0")}-deploy-window.md`]);
    const text = Deno.readTextFileSync(`${out}/infra/${infra[0]}`);
    const parsed = parseFrontmatter(text);
    assert.equal(parsed.body, "Deploys run on Mondays after 14:00.\n");
    assert.equal(parsed.fields.mema_id, a);
    assert.equal(parsed.fields.title, "Deploy window");
    assert.deepEqual(parsed.fields.tags, ["ops", "deploy"]);
    assert.equal(parsed.fields.workspace, "Infra");
    assert.equal(parsed.fields.source_ref, "docs/deploy.md");
    assert.equal(parsed.fields.event_time, "2025-03-01T00:00:00.000Z");
    assert.equal(parsed.fields.version, 2);
    assert.equal(parsed.fields.agent_id, "cursor-main");
    assert.equal(parsed.fields.source_type, "agent_generated");
    const other = [...Deno.readDirSync(`${out}/default`)].map((e) => e.name);
    const tea = parseFrontmatter(Deno.readTextFileSync(`${out}/default/${other[0]}`));
    assert.equal(tea.fields.mema_id, b);
    assert.equal(tea.body, "The team drinks green tea — 绿茶 — every day.");
    assert.deepEqual(tea.fields.metadata, { origin: "chat", turn: 3 });
  } finally {
    home.cleanup();
  }
});

Deno.test("export --format jsonl --include-history writes every field and every version", async () => {
  const home = makeTempHome();
  try {
    const [a] = await seedLibrary(home);
    const out = `${home.dir}/out`;
    const run = await runCli(home, [
      "export",
      out,
      "--format",
      "jsonl",
      "--include-history",
      "--workspace",
      "INFRA",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /exported 1 memories and 1 earlier version/);
    const lines = Deno.readTextFileSync(`${out}/memories.jsonl`).trimEnd().split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(lines[0].type, "mema_export");
    assert.equal(lines[0].workspace, "infra");
    assert.equal(lines.length, 2);
    const memory = lines[1];
    assert.equal(memory.id, a);
    assert.equal(memory.version, 2);
    assert.equal(memory.client, "cursor");
    assert.equal(memory.history.length, 1);
    assert.equal(memory.history[0].content, "Deploys run on Fridays after 14:00.\n");
    assert.equal(memory.history[0].reason, "moved");
  } finally {
    home.cleanup();
  }
});

Deno.test("export refuses --include-history with Markdown and writes nothing", async () => {
  const home = makeTempHome();
  try {
    await seedLibrary(home);
    const run = await runCli(home, ["export", `${home.dir}/out`, "--include-history"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--include-history needs --format jsonl/);
    assert.equal(run.stdout, "");
  } finally {
    home.cleanup();
  }
});
