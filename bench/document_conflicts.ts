/**
 * Documents stay quiet: the Markdown files npm packages ship (READMEs, CHANGELOGs, docs; see
 * bench/helpers/documents.ts) are stored the way `mema import DIR --workspace npm-docs` stores
 * them (one memory per file, `markdownUnit` + `importUnits`, one workspace), then write-time
 * conflict detection runs for every stored memory in order, exactly as the server's background
 * job does (`detectConflicts` with the default stages, words only: after a bulk import the
 * by-meaning lookup is skipped anyway). Each half (by package) goes into its own database.
 *
 * Every conflict and notice on this corpus is a false alarm (different packages, different
 * things), which the tune half's printout lets one check; the held half's are only counted
 * unless `--show-held` (a final audit).
 *
 *   deno task bench:documents [--split headings] [--show-held] [--quiet]
 *   deno task bench:documents --extra [--split headings]   # the extra set only (tuning)
 *   deno run -A bench/document_conflicts.ts --select   # rewrite bench/document_corpus.json
 *   deno run -A bench/document_conflicts.ts --select-extra   # rewrite document_corpus_extra.json
 *
 * Writes bench/results/document_conflicts.json. Never asserts.
 * @module
 */
import { parseArgs } from "node:util";
import { detectConflicts } from "../src/conflicts/detect.ts";
import { defaultStages } from "../src/conflicts/stages.ts";
import type { ServiceContext } from "../src/core/context.ts";
import { importUnits } from "../src/portability/import.ts";
import { markdownUnit } from "../src/portability/sources.ts";
import { openStore } from "../src/store/mod.ts";
import {
  type CorpusDocument,
  EXTRA_SELECTION_FILE,
  loadDocuments,
  loadExtraDocuments,
  selectDocuments,
  selectExtraDocuments,
  SELECTION_FILE,
} from "./helpers/documents.ts";
import { machineFacts, markdownTable, writeResult } from "./helpers/stats.ts";
import { composeMemoryEvents } from "../src/app/memory_events.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    select: { type: "boolean", default: false },
    "select-extra": { type: "boolean", default: false },
    // The extra set (packages in neither half, tuning only) instead of the two halves.
    extra: { type: "boolean", default: false },
    "show-held": { type: "boolean", default: false },
    quiet: { type: "boolean", default: false },
    // `mema import --split headings`: one memory per `##` section instead of one per file.
    split: { type: "string", default: "file" },
  },
});

if (values.select) {
  const paths = selectDocuments();
  Deno.writeTextFileSync(SELECTION_FILE, JSON.stringify(paths, null, 2) + "\n");
  console.log(`wrote ${paths.length} paths to ${SELECTION_FILE}`);
  Deno.exit(0);
}
if (values["select-extra"]) {
  const paths = selectExtraDocuments();
  Deno.writeTextFileSync(EXTRA_SELECTION_FILE, JSON.stringify(paths, null, 2) + "\n");
  console.log(`wrote ${paths.length} paths to ${EXTRA_SELECTION_FILE}`);
  Deno.exit(0);
}

const clip = (text: string, max = 160) =>
  text.length > max ? `${text.slice(0, max)}…` : text.replace(/\s+/g, " ");

async function runHalf(half: CorpusDocument["half"], documents: CorpusDocument[], show: boolean) {
  const home = Deno.makeTempDirSync({ prefix: `mema-docs-${half}-` });
  const store = await openStore(`${home}/docs.sqlite3`, {
    cacheDir: `${home}/cache`,
    skipVec: true,
  });
  const ctx: ServiceContext = {
    store,
    caller: { client: "mema-cli", agentId: "mema-import" },
    settings: { workspaceIsolation: "none", includeSize: false },
    events: composeMemoryEvents(),
  };
  try {
    // A file `mema import` refuses (an empty note) is skipped, as the import reports and skips it.
    const units = documents.flatMap((doc) => {
      try {
        return [markdownUnit(doc.text, {
          path: doc.ref,
          sourceRef: doc.ref,
          fileTitle: doc.ref.slice(doc.ref.lastIndexOf("/") + 1).replace(/\.(md|markdown)$/i, ""),
          split: values.split === "headings" ? "headings" : "file",
        })];
      } catch {
        return [];
      }
    });
    const report = await importUnits(ctx, units, { defaultWorkspace: "npm-docs" });
    const stages = defaultStages();
    const stored = report.created + report.duplicates;
    for (let id = 1; id <= stored; id++) await detectConflicts(ctx, id, stages);
    const conflicts = (await store.conflicts.list({ statuses: ["open"], limit: 10_000, offset: 0 }))
      .rows
      .reverse();
    const notices = await store.conflicts.notices({
      statuses: ["pending", "delivered"],
      limit: 10_000,
      offset: 0,
    });
    if (show) {
      for (const conflict of conflicts) {
        const reasons = (conflict.detection as { rule?: { reasons?: string[] } })?.rule?.reasons ??
          [];
        console.log(`\n[${half}] conflict ${conflict.id}: ${reasons.join("; ")}`);
        for (const m of conflict.members) {
          const memory = (await store.getMemory(m.memory_id))!;
          console.log(
            `  - ${memory.subject} (${memory.sourceRef}) value ${JSON.stringify(m.value)}`,
          );
          console.log(`    "${clip(m.row_text)}"`);
        }
      }
    }
    return {
      half,
      documents: documents.length,
      stored,
      chars: documents.reduce((sum, doc) => sum + doc.text.length, 0),
      conflicts: conflicts.length,
      notices: notices.length,
      conflicts_per_100_docs: Number((conflicts.length / documents.length * 100).toFixed(2)),
      notices_per_100_docs: Number((notices.length / documents.length * 100).toFixed(2)),
    };
  } finally {
    store.close();
    Deno.removeSync(home, { recursive: true });
  }
}

const { documents, missing } = values.extra ? loadExtraDocuments() : loadDocuments();
if (missing.length > 0) {
  console.error(`${missing.length} selected documents are not installed (first: ${missing[0]})`);
}
const rows = [];
for (const half of values.extra ? ["extra"] as const : ["tune", "held"] as const) {
  const show = !values.quiet && (half !== "held" || values["show-held"]);
  rows.push(await runHalf(half, documents.filter((doc) => doc.half === half), show));
}
console.log(`\n${markdownTable(rows)}`);
console.log(
  `wrote ${
    writeResult(values.extra ? "document_conflicts_extra" : "document_conflicts", {
      machine: machineFacts(),
      split: values.split,
      rows,
    })
  }`,
);
