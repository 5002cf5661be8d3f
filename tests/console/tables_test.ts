/**
 * The console's tables stay readable with long values: a conflict whose values are long URLs, in
 * headless Chromium at a laptop's width. The URLs wrap inside their own cell; the id, the source
 * and the date each stay on one line.
 * @module
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

const LONG_URL = "https://grafana.internal.example.com/d/7f3c2a9e1b/staging-overview-dashboard" +
  "?orgId=1&refresh=30s&var-cluster=eu-west-1-staging-primary&var-namespace=payments-api";

Deno.test({
  name:
    "console in Chromium: a conflict with long URL values keeps its id, source and date on one line",
  ignore: !CHROMIUM,
  async fn() {
    const home = makeTempHome();
    const server = await startServer(home);
    let conflictId: number;
    try {
      const ids: number[] = [];
      for (const url of [LONG_URL, `${LONG_URL}-replica`]) {
        const stored = await server.call("remember", {
          content: `The staging dashboard is at ${url}`,
          subject: "staging dashboard",
          workspace: "ops",
        });
        assert.equal(stored.ok, true, JSON.stringify(stored.data));
        ids.push(stored.data.memory_id);
      }
      const recorded = await server.repair("record_conflict", {
        memory_ids: ids,
        value_groups: [
          { value: LONG_URL, memory_ids: [ids[0]] },
          { value: `${LONG_URL}-replica`, memory_ids: [ids[1]] },
        ],
        reason: "two dashboards for one environment",
      });
      assert.equal(recorded.ok, true, JSON.stringify(recorded.data));
      conflictId = recorded.data.conflict_id;
    } finally {
      await server.close();
    }
    const console = await startConsoleProcess(home);
    const browser = await launchBrowser(CHROMIUM!);
    try {
      const page = await browser.newPage({ viewport: { width: 1024, height: 800 } });
      await page.goto(console.url);
      await clickToLoad(page, "nav >> text=Conflicts");
      const row = page.locator(`tr[data-conflict-id="${conflictId}"]`);
      const cells = row.locator("td");
      // A box laid out on one line has one client rect per inline box and the height of a line.
      const lines = async (index: number) =>
        await cells.nth(index).evaluate((cell) => {
          const range = cell.ownerDocument.createRange();
          range.selectNodeContents(cell);
          const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
          return tops.size;
        });
      assert.match(await cells.nth(0).textContent() ?? "", new RegExp(`#${conflictId}`));
      assert.equal(await lines(0), 1, "the conflict id on one line");
      assert.equal(
        await lines(5),
        1,
        `the source "${await cells.nth(5).textContent()}" on one line`,
      );
      assert.equal(await lines(6), 1, "the date on one line");
      for (const member of await cells.nth(3).locator("a").all()) {
        const rects = await member.evaluate((link) => link.getClientRects().length);
        assert.equal(rects, 1, `member link ${await member.textContent()} in one piece`);
      }
      // The long values wrap inside their own cell instead of widening the page.
      assert.ok(await lines(2) > 1, "the URL values wrap");
      const overflow = await page.locator("html").evaluate((root) =>
        root.scrollWidth - root.clientWidth
      );
      assert.equal(overflow, 0, "no horizontal scrolling");
    } finally {
      await browser.close();
      await console.stop();
      home.cleanup();
    }
  },
});
