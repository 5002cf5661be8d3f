/**
 * Every `find` and `batch_find` row names where its fact came from (`source_ref`), in every
 * content mode, in `structuredContent` and in the text block's rows alike: two imported
 * READMEs titled alike are told apart by their paths.
 */
import assert from "node:assert/strict";
import { onBothBackends } from "../helpers/e2e_backends.ts";
import { runCli, startServer, textAsEnvelope } from "../helpers/server.ts";

onBothBackends("find and batch_find rows carry source_ref in every content_mode", async (home) => {
  const docs = `${home.dir}/docs`;
  // Two real-world shapes: the same title in two packages, and an agent fact with no source.
  for (const name of ["alpha-pkg", "beta-pkg"]) {
    Deno.mkdirSync(`${docs}/${name}/docs`, { recursive: true });
    Deno.writeTextFileSync(
      `${docs}/${name}/docs/install.md`,
      `# Installation\n\nRun npm install ${name} and import the parser module.\n`,
    );
  }
  const imported = await runCli(home, ["import", docs, "--workspace", "pkgs"]);
  assert.equal(imported.code, 0, imported.stderr);
  const server = await startServer(home);
  try {
    const agent = await server.call("remember", {
      subject: "Installation note",
      content: "The parser module needs no install step on Deno.",
      workspace: "pkgs",
    });
    assert.ok(agent.ok);
    const expected = new Map<number, string | undefined>();
    for (const mode of ["preview", "hits", "full"]) {
      const found = await server.callRaw({
        action: "find",
        data: { query: "install parser module", workspace: "pkgs", content_mode: mode },
      });
      assert.ok(found.ok, JSON.stringify(found.data));
      assert.equal(found.data.results.length, 3, mode);
      // A lean row leaves an absent source out; content_mode full writes it as null.
      const refs = found.data.results.map((r: { source_ref?: string | null }) =>
        r.source_ref ?? undefined
      ).sort();
      assert.deepEqual(
        refs,
        ["alpha-pkg/docs/install.md", "beta-pkg/docs/install.md", undefined],
        `${mode}: each imported row names its file; the agent's fact has none`,
      );
      for (const result of found.data.results) {
        expected.set(result.memory_id, result.source_ref ?? undefined);
      }
    }
    const batch = await server.call("batch_find", {
      queries: ["install parser", "parser module"],
      workspace: "pkgs",
      content_mode: "hits",
    });
    assert.ok(batch.ok);
    assert.ok(batch.data.results.length >= 2);
    for (const result of batch.data.results) {
      assert.equal(result.source_ref, expected.get(result.memory_id), JSON.stringify(result));
    }
    // The lean text block writes results as rows: source_ref is one of its fields.
    const raw = await server.client.callTool({
      name: "memory",
      arguments: { action: "find", data: { query: "installation", workspace: "pkgs" } },
    });
    const text = (raw.content as { text: string }[])[0].text;
    const parsed = JSON.parse(text);
    assert.ok(parsed.data.fields.includes("source_ref"), parsed.data.fields.join(","));
    const fromText = textAsEnvelope(text).data.results;
    assert.ok(fromText.some((r: { source_ref?: string }) => r.source_ref?.endsWith("install.md")));
  } finally {
    await server.close();
    home.cleanup();
  }
});
