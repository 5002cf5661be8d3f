/**
 * The console's entity page (issue 35), in headless Chromium: a memory page links the entities
 * its fact names; an entity's page lists its facts and its one-hop graph, each other end a link to
 * its own page.
 */
import assert from "node:assert/strict";
import {
  clickToLoad,
  launchBrowser,
  requireChromium,
  startConsoleProcess,
} from "../helpers/console.ts";
import { makeTempHome, startServer } from "../helpers/server.ts";

const CHROMIUM = requireChromium();

Deno.test({
  name: "console in Chromium: from a memory to its entity, its facts and its relations",
  ignore: !CHROMIUM,
  async fn() {
    const home = makeTempHome();
    const server = await startServer(home);
    let first: number;
    try {
      const stored = await server.call("remember", {
        content: "The Payments API depends on PostgreSQL 16.",
        subject: "payments database",
        workspace: "acme",
      });
      first = stored.data.memory_id as number;
      await server.call("remember", {
        content: "Ana Lima owns the Payments API.",
        subject: "payments owner",
        workspace: "acme",
      });
    } finally {
      await server.close();
    }
    const console = await startConsoleProcess(home);
    const browser = await launchBrowser(CHROMIUM!);
    try {
      const page = await browser.newPage();
      await page.goto(console.url);
      await page.goto(new URL(`memories/${first}`, page.url()).href);
      await clickToLoad(page, "#entities >> text=Payments API");
      assert.equal((await page.textContent("h1"))?.startsWith("Payments API"), true);
      const facts = await page.locator("#facts .fact").evaluateAll((nodes) =>
        nodes.map((node) => node.getAttribute("data-memory-id"))
      );
      assert.equal(facts.length, 2, "both facts that name it");
      const relations = await page.locator("#relations tr.relation").allTextContents();
      const flat = relations.map((text) => text.replace(/\s+/g, " ").trim());
      assert.ok(
        flat.some((row) => /Payments API depends_on PostgreSQL/.test(row)),
        flat.join("\n"),
      );
      assert.ok(flat.some((row) => /Payments API owned_by Ana Lima/.test(row)), flat.join("\n"));
      await clickToLoad(page, "#relations >> text=PostgreSQL");
      assert.equal((await page.textContent("h1"))?.startsWith("PostgreSQL"), true);
      assert.match(await page.textContent("#relations") ?? "", /Payments API/);
      const missing = await page.goto(new URL("entities/99999", page.url()).href);
      assert.equal(missing?.status(), 404);
    } finally {
      await browser.close();
      await console.stop();
      home.cleanup();
    }
  },
});
