/**
 * The console's result list shortens long content to a preview; the cut never falls inside a
 * surrogate pair, which the browser would show as U+FFFD (�).
 */
import assert from "node:assert/strict";
import { rememberMemory } from "../../src/memory/remember.ts";
import { openStore } from "../../src/store/mod.ts";
import {
  clickToLoad,
  launchBrowser,
  requireChromium,
  startConsoleProcess,
} from "../helpers/console.ts";
import { makeTempHome } from "../helpers/server.ts";
import { composeMemoryEvents } from "../../src/app/memory_events.ts";

const CHROMIUM = requireChromium();

Deno.test({
  name: "console in Chromium: a result preview cut at an emoji shows no replacement character",
  ignore: !CHROMIUM,
  async fn() {
    const home = makeTempHome();
    Deno.mkdirSync(`${home.dir}/data/mema`, { recursive: true });
    const store = await openStore(home.dbPath, { cacheDir: `${home.dir}/cache`, skipVec: true });
    try {
      await rememberMemory({
        store,
        caller: { client: "cursor", agentId: "cursor-main" },
        settings: { workspaceIsolation: "none", includeSize: true },
        events: composeMemoryEvents(),
      }, {
        // 279 units, then 😀 across the 280-unit preview cut.
        content: `zebrafinch ${"z".repeat(268)}😀 and more text after the preview ends.`,
        subject: "emoji at the cut",
        workspace: "default",
      });
    } finally {
      store.close();
    }
    const console = await startConsoleProcess(home);
    const browser = await launchBrowser(CHROMIUM!);
    try {
      const page = await browser.newPage();
      await page.goto(console.url);
      await clickToLoad(page, "nav >> text=Memories");
      await page.fill("input[name=q]", "zebrafinch");
      await clickToLoad(page, "form[role=search] button[type=submit]");
      const text = await page.locator(".result").first().textContent() ?? "";
      assert.match(text, /z{268}…/);
      assert.ok(!text.includes("\uFFFD"), "no replacement character in the preview");
    } finally {
      await browser.close();
      await console.stop();
      home.cleanup();
    }
  },
});
