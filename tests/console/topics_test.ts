/**
 * Topic clusters (issue 39) where a user and an agent meet them: `memory_review` view
 * `clusters` over MCP, and the console overview's Topics card in Chromium, both over a library
 * an agent wrote about two unrelated things.
 */
import assert from "node:assert/strict";
import {
  clickToLoad,
  launchBrowser,
  requireChromium,
  startConsoleProcess,
} from "../helpers/console.ts";
import { makeTempHome, startServer, type TempHome } from "../helpers/server.ts";

const CHROMIUM = requireChromium();

const DEPLOYS = [
  "Staging deploys run from the release branch every night.",
  "A staging deploy needs a green pipeline before it starts.",
  "Production deploys follow the staging deploy after review.",
  "Rollback of a staging deploy takes the previous release branch build.",
];
const KITCHEN = [
  "The office kitchen has fresh coffee every morning.",
  "Pizza lunch in the office kitchen is on Fridays.",
  "The kitchen coffee machine descales on Mondays.",
  "Leftover pizza goes in the kitchen fridge, labelled.",
];

/** Writes the two-topic library through `mema serve`; answers the ids of each topic. */
async function twoTopics(home: TempHome): Promise<{ deploys: number[]; kitchen: number[] }> {
  const server = await startServer(home);
  try {
    const write = async (content: string) => {
      const written = await server.call("remember", {
        content,
        subject: content.split(" ").slice(0, 4).join(" "),
        workspace: "team",
      });
      assert.equal(written.ok, true, JSON.stringify(written.data));
      return written.data.memory_id as number;
    };
    const deploys: number[] = [];
    for (const content of DEPLOYS) deploys.push(await write(content));
    const kitchen: number[] = [];
    for (const content of KITCHEN) kitchen.push(await write(content));

    const review = await server.callRaw(
      { view: "clusters", data: { k: 2, workspace: "team" } },
      "memory_review",
    );
    assert.equal(review.ok, true, JSON.stringify(review.data));
    const clusters = review.data.clusters as {
      label: string;
      size: number;
      sample_ids: number[];
    }[];
    assert.equal(clusters.length, 2, JSON.stringify(clusters));
    const deployTopic = clusters.find((c) => deploys.includes(c.sample_ids[0]))!;
    const kitchenTopic = clusters.find((c) => kitchen.includes(c.sample_ids[0]))!;
    assert.ok(deployTopic && kitchenTopic, JSON.stringify(clusters));
    assert.match(deployTopic.label, /staging|deploy/);
    assert.match(kitchenTopic.label, /kitchen|coffee|pizza/);
    assert.equal(deployTopic.size + kitchenTopic.size, 8);
    const again = await server.callRaw(
      { view: "clusters", data: { k: 2, workspace: "team" } },
      "memory_review",
    );
    assert.deepEqual(again.data, review.data, "the same library clusters the same way");
    const bad = await server.callRaw({ view: "clusters", data: { k: 1 } }, "memory_review");
    assert.equal(bad.ok, false);
    return { deploys, kitchen };
  } finally {
    await server.close();
  }
}

Deno.test({
  name:
    "topics: memory_review clusters labels two topics in their own words; the console overview shows them",
  ignore: !CHROMIUM,
  async fn() {
    const home = makeTempHome();
    const { deploys, kitchen } = await twoTopics(home);
    const console = await startConsoleProcess(home);
    const browser = await launchBrowser(CHROMIUM!);
    try {
      const page = await browser.newPage();
      await page.goto(console.url);
      const rows = page.locator("#topics tr.topic");
      assert.ok(await rows.count() >= 2, await page.textContent("#topics") ?? "");
      const text = await page.textContent("#topics") ?? "";
      assert.match(text, /staging|deploy/);
      assert.match(text, /kitchen|coffee|pizza/);
      // A sample opens the memory it names.
      await clickToLoad(page, rows.first().locator("a").first());
      const id = Number(new URL(page.url()).pathname.split("/").at(-1));
      assert.ok([...deploys, ...kitchen].includes(id), page.url());
    } finally {
      await browser.close();
      await console.stop();
      home.cleanup();
    }
  },
});
