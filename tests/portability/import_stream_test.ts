/**
 * Large JSONL exports go in as streams: a file bigger than the reader's buffer, with a bad
 * line and a non-UTF-8 byte in the middle, imports everything else, names each bad line, and
 * imports nothing new the second time; a fact brought in by a bulk import still meets the
 * library's contradicting fact.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { DETECT_JOB_KIND, DETECT_PLAN_JOB_KIND } from "../../src/conflicts/constants_pipeline.ts";
import { createDetectionMemo, runPlanCheck } from "../../src/conflicts/batch_check.ts";
import { detectConflicts } from "../../src/conflicts/detect.ts";
import { defaultStages } from "../../src/conflicts/stages.ts";
import { startJobWorker } from "../../src/jobs/worker.ts";
import { rememberMemory } from "../../src/memory/remember.ts";
import { readTextLines } from "../../src/platform/text_lines.ts";
import { importUnits } from "../../src/portability/import.ts";
import { readJsonlUnits } from "../../src/portability/sources.ts";
import { openTestContext } from "../helpers/context.ts";
import { makeTempHome, runCli } from "../helpers/server.ts";

/** Read buffer of `readTextLines`: the test file must be larger. */
const READ_BUFFER_BYTES = 1024 * 1024;

function memoryLine(index: number): string {
  return JSON.stringify({
    type: "memory",
    subject: `Station log ${index}`,
    content: `Station ${index} reported ${"steady readings and a calm sea, ".repeat(8)}done.`,
    workspace: "ocean",
    tags: ["log"],
  });
}

function countActive(dbPath: string): number {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return Number(
      (db.prepare("SELECT count(*) AS n FROM memories WHERE status = 'active'").get() as {
        n: number;
      }).n,
    );
  } finally {
    db.close();
  }
}

Deno.test("a JSONL export larger than the read buffer streams in; a bad line and a non-UTF-8 byte are named by line; a second import stores nothing", async () => {
  const home = makeTempHome();
  try {
    const encoder = new TextEncoder();
    const lines: Uint8Array[] = [encoder.encode(`{"type":"mema_export","format":1}\n`)];
    const total = 6_000;
    const badJson = 2_500;
    const badByte = 4_500;
    for (let index = 1; index <= total; index++) {
      const line = index === badJson ? "{not json" : memoryLine(index);
      const bytes = encoder.encode(`${line}\n`);
      if (index === badByte) bytes[40] = 0xff;
      lines.push(bytes);
    }
    const file = `${home.dir}/export.jsonl`;
    Deno.writeFileSync(file, new Uint8Array(lines.flatMap((bytes) => [...bytes])));
    assert.ok(Deno.statSync(file).size > 2 * READ_BUFFER_BYTES);
    const first = await runCli(home, ["import", file]);
    assert.equal(first.code, 1, first.stderr);
    // The header is line 1, so memory `index` is on line index + 1.
    assert.match(first.stderr, new RegExp(`export\\.jsonl:${badJson + 1}: not a JSON object`));
    assert.match(
      first.stderr,
      new RegExp(`export\\.jsonl:${badByte + 1}: not UTF-8 text: byte 0xFF at byte 41`),
    );
    assert.match(first.stdout, new RegExp(`${total - 2} new, 0 updated, 0 unchanged`));
    assert.equal(countActive(home.dbPath), total - 2);
    const again = await runCli(home, ["import", file, "--quiet"]);
    assert.match(again.stdout, new RegExp(`0 new, 0 updated, 0 unchanged, ${total - 2} duplicate`));
    assert.equal(countActive(home.dbPath), total - 2);
  } finally {
    home.cleanup();
  }
});

Deno.test("the streamed reader yields units and bad lines in file order, one line at a time", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(
      `${dir}/a.jsonl`,
      [memoryLine(1), "[1]", memoryLine(2), `{"type":"mema_export","format":99}`, memoryLine(3)]
        .join("\n"),
    );
    const seen: string[] = [];
    for await (const entry of readJsonlUnits(readTextLines(`${dir}/a.jsonl`), "a.jsonl")) {
      seen.push(
        "items" in entry
          ? `${entry.line}: ${entry.items[0].subject}`
          : `${entry.line}: ${entry.reason}`,
      );
    }
    // A newer format's header stops the reading: what follows it is not understood.
    assert.deepEqual(seen, [
      "1: Station log 1",
      "2: not a JSON object",
      "3: Station log 2",
      "4: written in export format 99, newer than this mema reads (1); use the newer mema",
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a fact from a bulk import that contradicts one already in the library opens a conflict", async () => {
  const t = await openTestContext({ skipVec: true });
  try {
    await rememberMemory(t.ctx, {
      subject: "deploy day",
      content: "We deploy on Fridays.",
      workspace: "infra",
    });
    const path = `${t.dir}/import.jsonl`;
    const filler = Array.from({ length: 1_200 }, (_, k) => memoryLine(k));
    Deno.writeTextFileSync(
      path,
      [
        ...filler.slice(0, 700),
        JSON.stringify({
          type: "memory",
          subject: "deploy day",
          content: "We don't deploy on Fridays.",
          workspace: "infra",
        }),
        ...filler.slice(700),
      ].join("\n"),
    );
    const report = await importUnits(t.ctx, readJsonlUnits(readTextLines(path), "import.jsonl"));
    assert.equal(report.created, 1_201);
    const worker = startJobWorker(t.store, {
      [DETECT_JOB_KIND]: async (job) => {
        await detectConflicts(t.ctx, Number(job.payload.memory_id), defaultStages());
      },
      // The import's chunks are planned checks.
      [DETECT_PLAN_JOB_KIND]: async (job) => {
        await runPlanCheck(t.ctx, job, { stages: defaultStages(), memo: createDetectionMemo() });
      },
    }, { manual: true });
    await worker.drain();
    await worker.stop();
    const open = await t.store.read(async () =>
      await t.store.conflicts.list({ statuses: ["open"], limit: 10, offset: 0 })
    );
    const texts = open.rows.map((row) => row.members.map((member) => member.row_text).sort());
    assert.equal(texts.length, 1, JSON.stringify(texts));
    assert.ok(texts[0].some((text) => text.includes("We don't deploy on Fridays.")));
    assert.ok(texts[0].some((text) => text.includes("We deploy on Fridays.")));
  } finally {
    t.cleanup();
  }
});
