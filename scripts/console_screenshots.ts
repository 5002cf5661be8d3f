/**
 * Screenshots of the console's main pages for the README: seeds a throwaway library through a
 * real `mema serve` (the same one the browser tests use), starts `mema console`, and has headless
 * Chromium save `docs/console-*.png`.
 *
 * Run: `deno task screenshots` (needs Debian's chromium: `apt-get install chromium`).
 * @module
 */
import { findChromium, launchBrowser, startConsoleProcess } from "../tests/helpers/console.ts";
import { seedLibrary } from "../tests/helpers/console_seed.ts";
import { makeTempHome, ROOT } from "../tests/helpers/server.ts";

/** Page width of the screenshots: a laptop window; the pages are readable down to ~900 px. */
const WIDTH = 1200;
/** Tallest screenshot: long pages are cut here so each PNG stays a reasonable size. */
const MAX_HEIGHT = 1400;

const chromium = findChromium();
if (!chromium) {
  console.error("chromium not found: apt-get install chromium");
  Deno.exit(1);
}
const home = makeTempHome();
const seeded = await seedLibrary(home);
const console_ = await startConsoleProcess(home);
const browser = await launchBrowser(chromium);
try {
  const page = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
  await page.goto(console_.url);
  // The printed URL leads to the session's own path; every page lives under it.
  const base = page.url();
  const shots: [string, string][] = [
    ["overview", "./"],
    ["memories", "memories?q=release+deadline"],
    [
      "memory",
      `memories/${seeded.office}?from=1&to=2`,
    ],
    ["conflict", `conflicts/${seeded.conflictId}`],
    ["settings", "settings"],
  ];
  for (const [name, path] of shots) {
    await page.goto(new URL(path, base).href);
    const height = Number(
      await page.evaluate(
        "Math.ceil(document.querySelector('main').getBoundingClientRect().bottom)",
      ),
    );
    const file = `${ROOT}/docs/console-${name}.png`;
    await page.screenshot({
      path: file,
      fullPage: true,
      clip: { x: 0, y: 0, width: WIDTH, height: Math.min(height, MAX_HEIGHT) },
    });
    console.log(`wrote ${file}`);
  }
} finally {
  await browser.close();
  await console_.stop();
  home.cleanup();
}
