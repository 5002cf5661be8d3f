/**
 * The web console end to end: a real `mema console` process over a library an agent wrote, driven
 * by headless Chromium (Debian's `chromium`, through playwright-core) the way a user clicks it.
 */
import assert from "node:assert/strict";
import { findChromium, launchBrowser, startConsoleProcess } from "../helpers/console.ts";
import { seedLibrary } from "../helpers/console_seed.ts";
import { makeTempHome } from "../helpers/server.ts";

const CHROMIUM = findChromium();
if (!CHROMIUM) {
  console.error(
    "SKIPPED: the console's browser tests need Chromium (apt-get install chromium); .ci/run installs it",
  );
}

/** A session cookie for raw requests: the token exchanged the way the browser does it. */
async function sessionCookie(url: string): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel();
  assert.equal(response.status, 303);
  const cookie = response.headers.get("set-cookie") ?? "";
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  return cookie.split(";")[0];
}

/** The status of a GET / sent by hand (fetch always sends the URL's own Host). */
async function rawStatus(origin: string, headers: string[]): Promise<number> {
  const url = new URL(origin);
  const connection = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  try {
    const request = ["GET / HTTP/1.1", ...headers, "Connection: close", "", ""].join("\r\n");
    await connection.write(new TextEncoder().encode(request));
    const buffer = new Uint8Array(256);
    const read = await connection.read(buffer);
    const head = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  } finally {
    connection.close();
  }
}

Deno.test("console: requests without the token, with a foreign Origin or without the CSRF token are refused", async () => {
  const home = makeTempHome();
  const { office } = await seedLibrary(home);
  const console = await startConsoleProcess(home);
  try {
    const bare = await fetch(`${console.origin}/`);
    assert.equal(bare.status, 401);
    assert.match(await bare.text(), /needs its token/);
    const wrong = await fetch(`${console.origin}/?token=${"x".repeat(43)}`, { redirect: "manual" });
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    const cookie = await sessionCookie(console.url);
    const page = await fetch(`${console.origin}/memories/${office}`, { headers: { cookie } });
    assert.equal(page.status, 200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    assert.ok(csrf, "forms carry the CSRF token");
    const confirm = (headers: Record<string, string>, body: string) =>
      fetch(`${console.origin}/memories/${office}/confirm`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body,
      });
    const foreign = await confirm({ cookie, origin: "http://evil.example" }, `csrf=${csrf}`);
    assert.equal(foreign.status, 403, "a foreign Origin is refused");
    await foreign.body?.cancel();
    const otherPort = await confirm({ cookie, origin: "http://127.0.0.1:1" }, `csrf=${csrf}`);
    assert.equal(otherPort.status, 403, "another local origin is refused for changes");
    await otherPort.body?.cancel();
    const noToken = await confirm({ origin: console.origin }, `csrf=${csrf}`);
    assert.equal(noToken.status, 401, "a change without the session token is refused");
    await noToken.body?.cancel();
    const noCsrf = await confirm({ cookie, origin: console.origin }, "reason=x");
    assert.equal(noCsrf.status, 403, "a change without the CSRF token is refused");
    await noCsrf.body?.cancel();
    const rebound = await rawStatus(console.origin, [`Host: evil.example`, `Cookie: ${cookie}`]);
    assert.equal(rebound, 421, "a foreign Host (DNS rebinding) is refused");
    const after = await fetch(`${console.origin}/memories/${office}`, { headers: { cookie } });
    assert.doesNotMatch(
      await after.text(),
      /user_confirmed/,
      "nothing was changed by the refusals",
    );
    const ok = await confirm({ cookie, origin: console.origin }, `csrf=${csrf}`);
    assert.equal(ok.status, 303, "the same change with token, origin and CSRF token goes through");
    await ok.body?.cancel();
    const confirmed = await fetch(`${console.origin}/memories/${office}`, { headers: { cookie } });
    assert.match(await confirmed.text(), /user_confirmed/);
  } finally {
    await console.stop();
    home.cleanup();
  }
});

Deno.test({
  name: "console in Chromium: search, open a memory, diff two versions, resolve a conflict",
  ignore: !CHROMIUM,
  async fn() {
    const home = makeTempHome();
    const seeded = await seedLibrary(home);
    const console = await startConsoleProcess(home);
    const browser = await launchBrowser(CHROMIUM!);
    try {
      const page = await browser.newPage();
      await page.goto(console.url);
      assert.equal(new URL(page.url()).search, "", "the token leaves the address bar");
      assert.equal(await page.textContent("h1"), "Overview");
      const cookies = await page.context().cookies();
      assert.equal(cookies.find((c) => c.name === "mema_console")?.httpOnly, true);

      // Search with the same find agents use.
      await page.click("nav >> text=Memories");
      await page.fill("input[name=q]", "office address");
      await page.click("form[role=search] button[type=submit]");
      const first = page.locator(".result").first();
      assert.equal(await first.getAttribute("data-memory-id"), String(seeded.office));

      // Open the memory: content, provenance, the diff between its two versions.
      await first.locator(".title a").click();
      assert.match(await page.textContent("#content") ?? "", /40 Quayside Road/);
      assert.match(await page.textContent("main") ?? "", /cursor\/cursor-main/);
      await page.selectOption("select[name=from]", "1");
      await page.selectOption("select[name=to]", "2");
      await page.click("text=Show diff");
      const removed = await page.locator("#diff .del").allTextContents();
      const added = await page.locator("#diff .add").allTextContents();
      assert.ok(removed.some((line) => line.includes("12 Harbour Street")), removed.join("\n"));
      assert.ok(added.some((line) => line.includes("40 Quayside Road")), added.join("\n"));

      // Resolve the conflict from the page: judge, apply every step, resolve.
      await page.click("nav >> text=Conflicts");
      await page.click(`tr[data-conflict-id="${seeded.conflictId}"] a`);
      assert.equal(await page.locator(".member").count(), 2, "members side by side");
      assert.match(await page.textContent("main") ?? "", /Suggested plan/);
      await page.check("input[name=choice][value=Monday]");
      await page.click("text=Judge and plan");
      assert.match(await page.textContent(".flash") ?? "", /Conflict judged/);
      for (let step = 0; step < 5 && await page.locator("form.apply-step").count() > 0; step++) {
        await page.locator("form.apply-step button").first().click();
        assert.match(await page.textContent(".flash") ?? "", /Step applied/);
      }
      await page.click("#resolve");
      assert.match(await page.textContent(".flash") ?? "", /Conflict resolved/);
      assert.match(await page.textContent("h1") ?? "", /resolved/);
      assert.match(await page.textContent("main") ?? "", /decided by\s*user/);

      // The change is the user's, audited under console/<user>.
      await page.goto(`${console.origin}/memories/${seeded.deadlineFriday}`);
      assert.match(
        await page.textContent("#content") ?? "",
        /Monday/,
        "the old claim was corrected",
      );
      assert.match(await page.textContent("main") ?? "", /console\/alice/);
      await page.click("nav >> text=Conflicts");
      const row = `tr[data-conflict-id="${seeded.conflictId}"]`;
      assert.equal(await page.locator(row).count(), 0, "it left the unresolved list");
      await page.click(`.tabs a[href="/conflicts?status=resolved"]`);
      assert.equal(await page.locator(row).count(), 1, "it is listed as resolved");

      // Purge asks first, then deletes the memory for good.
      await page.goto(`${console.origin}/memories/${seeded.pnpm}`);
      await page.fill("#purge-reason", "wrong repository");
      let asked = "";
      page.once("dialog", (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      await page.click("button.danger");
      assert.match(asked, /Permanently delete memory/);
      assert.match(await page.textContent(".flash") ?? "", /Memory purged/);
      const gone = await page.goto(`${console.origin}/memories/${seeded.pnpm}`);
      assert.equal(gone?.status(), 404);

      // Reading works without JavaScript: sign in, search, open a memory, see its diff.
      const plain = await browser.newContext({ javaScriptEnabled: false });
      const reader = await plain.newPage();
      await reader.goto(console.url);
      assert.equal(await reader.textContent("h1"), "Overview");
      await reader.goto(`${console.origin}/memories`);
      await reader.fill("input[name=q]", "office");
      await reader.click("form[role=search] button[type=submit]");
      await reader.locator(".result .title a").first().click();
      assert.match(await reader.textContent("#diff") ?? "", /40 Quayside Road/);
      await plain.close();
    } finally {
      await browser.close();
      await console.stop();
      home.cleanup();
    }
  },
});

Deno.test("console under strict isolation: one workspace at a time, no way to all of them", async () => {
  const home = makeTempHome();
  const seeded = await seedLibrary(home);
  Deno.mkdirSync(`${home.dir}/config/mema`, { recursive: true });
  Deno.writeTextFileSync(
    `${home.dir}/config/mema/config.json`,
    JSON.stringify({ workspace_isolation: "strict" }),
  );
  const console = await startConsoleProcess(home);
  try {
    const cookie = await sessionCookie(console.url);
    const get = async (path: string, extra = "") => {
      const response = await fetch(`${console.origin}${path}`, {
        headers: { cookie: `${cookie}${extra}` },
        redirect: "manual",
      });
      return { status: response.status, text: await response.text() };
    };
    const overview = await get("/");
    assert.doesNotMatch(overview.text, /All workspaces/);
    const all = await get("/workspace?ws=*&back=/");
    assert.equal(all.status, 403);
    // acme holds most memories, so it is the workspace in view by default.
    const search = await get("/memories?q=pnpm");
    assert.doesNotMatch(search.text, /package manager/, "web's memory stays out of acme's search");
    const other = await get(`/memories/${seeded.pnpm}`);
    assert.equal(other.status, 404);
    assert.doesNotMatch(other.text, /pnpm-lock/);
    const inWeb = await get(`/memories/${seeded.pnpm}`, "; mema_workspace=web");
    assert.equal(inWeb.status, 200);
    const acmeConflict = await get(`/conflicts/${seeded.conflictId}`, "; mema_workspace=web");
    assert.equal(acmeConflict.status, 404, "acme's conflict is not shown from web");
    const unknown = await get("/memories?q=pnpm", "; mema_workspace=%2A");
    assert.doesNotMatch(unknown.text, /package manager/, "a forged * cookie is not all workspaces");
  } finally {
    await console.stop();
    home.cleanup();
  }
});
