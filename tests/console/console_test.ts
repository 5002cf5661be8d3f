/**
 * The web console end to end: a real `mema console` process over a library an agent wrote, driven
 * by headless Chromium (Debian's `chromium`, through playwright-core) the way a user clicks it.
 */
import assert from "node:assert/strict";
import {
  clickToLoad,
  launchBrowser,
  requireChromium,
  signIn,
  startConsoleProcess,
} from "../helpers/console.ts";
import { seedLibrary } from "../helpers/console_seed.ts";
import { makeTempHome } from "../helpers/server.ts";

const CHROMIUM = requireChromium();

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

Deno.test("console: requests outside the session, with a foreign Origin or without the CSRF token are refused", async () => {
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
    const client = await signIn(console.url);
    const page = await client.get(`memories/${office}`);
    assert.equal(page.status, 200);
    const csrf = await client.csrf(`memories/${office}`);
    const confirm = (headers: Record<string, string>, body: string, at?: string) =>
      client.send(at ?? `memories/${office}/confirm`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body,
      });
    const foreign = await confirm({ origin: "http://evil.example" }, `csrf=${csrf}`);
    assert.equal(foreign.status, 403, "a foreign Origin is refused");
    await foreign.body?.cancel();
    const otherPort = await confirm({ origin: "http://127.0.0.1:1" }, `csrf=${csrf}`);
    assert.equal(otherPort.status, 403, "another local origin is refused for changes");
    await otherPort.body?.cancel();
    for (
      const outside of [
        `/memories/${office}/confirm`,
        `/s/${"x".repeat(43)}/memories/${office}/confirm`,
      ]
    ) {
      const noSession = await confirm(
        { origin: console.origin },
        `csrf=${csrf}`,
        `${console.origin}${outside}`,
      );
      assert.equal(noSession.status, 401, `a change outside the session is refused: ${outside}`);
      await noSession.body?.cancel();
    }
    const noCsrf = await confirm({ origin: console.origin }, "reason=x");
    assert.equal(noCsrf.status, 403, "a change without the CSRF token is refused");
    await noCsrf.body?.cancel();
    const rebound = await rawStatus(console.origin, [`Host: evil.example`]);
    assert.equal(rebound, 421, "a foreign Host (DNS rebinding) is refused");
    const after = await client.get(`memories/${office}`);
    assert.doesNotMatch(after.text, /user_confirmed/, "nothing was changed by the refusals");
    const ok = await confirm({ origin: console.origin }, `csrf=${csrf}`);
    assert.equal(
      ok.status,
      303,
      "the same change in the session, with the CSRF token goes through",
    );
    await ok.body?.cancel();
    const confirmed = await client.get(`memories/${office}`);
    assert.match(confirmed.text, /user_confirmed/);
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
      assert.match(new URL(page.url()).pathname, /^\/s\/[\w-]{43}\/$/, "a session's own path");
      const base = page.url();
      assert.equal(await page.textContent("h1"), "Overview");
      assert.deepEqual(await page.context().cookies(), [], "the console sets no cookie");

      // Search with the same find agents use.
      await clickToLoad(page, "nav >> text=Memories");
      await page.fill("input[name=q]", "office address");
      await clickToLoad(page, "form[role=search] button[type=submit]");
      const first = page.locator(".result").first();
      assert.equal(await first.getAttribute("data-memory-id"), String(seeded.office));

      // Open the memory: content, provenance, the diff between its two versions.
      await clickToLoad(page, first.locator(".title a"));
      assert.match(await page.textContent("#content") ?? "", /40 Quayside Road/);
      assert.match(await page.textContent("main") ?? "", /cursor\/cursor-main/);
      await page.selectOption("select[name=from]", "1");
      await page.selectOption("select[name=to]", "2");
      // The form's GET loads the page again.
      await clickToLoad(page, "text=Show diff");
      const removed = await page.locator("#diff .del").allTextContents();
      const added = await page.locator("#diff .add").allTextContents();
      assert.ok(removed.some((line) => line.includes("12 Harbour Street")), removed.join("\n"));
      assert.ok(added.some((line) => line.includes("40 Quayside Road")), added.join("\n"));

      // The subject's timeline: the old address ended where the new one began.
      await clickToLoad(page, "#timeline-link");
      assert.match(await page.textContent("h1") ?? "", /Timeline: office address/);
      const values = page.locator("#timeline tr[data-version]");
      assert.equal(await values.count(), 2);
      const [old, current] = [await values.nth(0).innerText(), await values.nth(1).innerText()];
      assert.match(old, /12 Harbour Street/);
      assert.match(old, /ended/);
      assert.match(old, /v1/);
      assert.match(current, /40 Quayside Road/);
      assert.match(current, /→ now/);
      const closedAt = /→ (\S+ \S+)/.exec(old)?.[1];
      assert.ok(closedAt && current.startsWith(closedAt), `${old} / ${current}`);
      await clickToLoad(page, "text=Back to memory");

      // Resolve the conflict from the page: judge, apply every step, resolve.
      await clickToLoad(page, "nav >> text=Conflicts");
      await clickToLoad(page, `tr[data-conflict-id="${seeded.conflictId}"] a`);
      assert.equal(await page.locator(".member").count(), 2, "members side by side");
      assert.match(await page.textContent("main") ?? "", /Suggested plan/);
      await page.check("input[name=choice][value=Monday]");
      await clickToLoad(page, "text=Judge and plan");
      assert.match(await page.textContent(".flash") ?? "", /Conflict judged/);
      for (let step = 0; step < 5 && await page.locator("form.apply-step").count() > 0; step++) {
        await clickToLoad(page, page.locator("form.apply-step button").first());
        assert.match(await page.textContent(".flash") ?? "", /Step applied/);
      }
      await clickToLoad(page, "#resolve");
      assert.match(await page.textContent(".flash") ?? "", /Conflict resolved/);
      assert.match(await page.textContent("h1") ?? "", /resolved/);
      assert.match(await page.textContent("main") ?? "", /decided by\s*user/);

      // The change is the user's, audited under console/<user>.
      await page.goto(new URL(`memories/${seeded.deadlineFriday}`, base).href);
      assert.match(
        await page.textContent("#content") ?? "",
        /Monday/,
        "the old claim was corrected",
      );
      assert.match(await page.textContent("main") ?? "", /console\/alice/);
      await clickToLoad(page, "nav >> text=Conflicts");
      const row = `tr[data-conflict-id="${seeded.conflictId}"]`;
      assert.equal(await page.locator(row).count(), 0, "it left the unresolved list");
      await clickToLoad(page, `.tabs a[href="./conflicts?status=resolved"]`);
      assert.equal(await page.locator(row).count(), 1, "it is listed as resolved");

      // Purge asks first, then deletes the memory for good.
      await page.goto(new URL(`memories/${seeded.pnpm}`, base).href);
      await page.fill("#purge-reason", "wrong repository");
      let asked = "";
      page.once("dialog", (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      await clickToLoad(page, "button.danger");
      assert.match(asked, /Permanently delete memory/);
      assert.match(await page.textContent(".flash") ?? "", /Memory purged/);
      const gone = await page.goto(new URL(`memories/${seeded.pnpm}`, base).href);
      assert.equal(gone?.status(), 404);

      // Reading works without JavaScript: sign in, search, open a memory, see its diff.
      const plain = await browser.newContext({ javaScriptEnabled: false });
      const reader = await plain.newPage();
      await reader.goto(console.url);
      assert.equal(await reader.textContent("h1"), "Overview");
      await reader.goto(new URL("memories", reader.url()).href);
      await reader.fill("input[name=q]", "office");
      await clickToLoad(reader, "form[role=search] button[type=submit]");
      await clickToLoad(reader, reader.locator(".result .title a").first());
      assert.match(await reader.textContent("#diff") ?? "", /40 Quayside Road/);
      // Without JavaScript the picker has its Show button; the page stays the one in view.
      const readerAt = reader.url();
      await reader.selectOption("#ws-pick", "web");
      await clickToLoad(reader, "header form button[type=submit]");
      assert.equal(await reader.locator("#ws-pick").inputValue(), "web");
      assert.equal(reader.url(), readerAt, "back on the same page");
      await plain.close();

      // With JavaScript, choosing in the picker switches at once and stays on the page.
      await page.goto(new URL("memories?q=office", base).href);
      assert.match(await page.textContent("main") ?? "", /Quayside/);
      await page.selectOption("#ws-pick", "web");
      await page.locator("h1 .muted", { hasText: "in web" }).waitFor();
      assert.equal(new URL(page.url()).search, "?q=office", "back on the same search");
      assert.equal(await page.locator("#ws-pick").inputValue(), "web");
      assert.doesNotMatch(await page.textContent("main") ?? "", /Quayside/, "acme's memory left");
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
    const client = await signIn(console.url);
    const overview = await client.get("./");
    assert.doesNotMatch(overview.text, /All workspaces/);
    const csrf = await client.csrf("./");
    const all = await client.post("workspace", { csrf, ws: "*", back: "/" });
    assert.equal(all.status, 400, "all workspaces cannot be picked");
    assert.match(all.text, /strict/);
    // acme holds most memories, so it is the workspace in view by default.
    const search = await client.get("memories?q=pnpm");
    assert.doesNotMatch(search.text, /package manager/, "web's memory stays out of acme's search");
    const other = await client.get(`memories/${seeded.pnpm}`);
    assert.equal(other.status, 404);
    assert.doesNotMatch(other.text, /pnpm-lock/);
    const tossed = await client.send(`memories/${seeded.pnpm}`, {
      headers: { cookie: "mema_workspace=web" },
    });
    assert.equal(tossed.status, 404, "a cookie set by another local app picks nothing");
    await tossed.body?.cancel();
    const picked = await client.post("workspace", {
      csrf,
      ws: "web",
      back: `/memories/${seeded.pnpm}`,
    });
    assert.equal(picked.status, 303);
    assert.equal(picked.location, new URL(`memories/${seeded.pnpm}`, client.base).href);
    const inWeb = await client.get(`memories/${seeded.pnpm}`);
    assert.equal(inWeb.status, 200);
    const acmeConflict = await client.get(`conflicts/${seeded.conflictId}`);
    assert.equal(acmeConflict.status, 404, "acme's conflict is not shown from web");
    const unknown = await client.post("workspace", { csrf, ws: "nowhere", back: "/" });
    assert.equal(unknown.status, 400, "an unknown workspace is refused");
    const still = await client.get(`memories/${seeded.pnpm}`);
    assert.equal(still.status, 200, "and the session keeps the workspace it had");
  } finally {
    await console.stop();
    home.cleanup();
  }
});

Deno.test({
  name: "console in Chromium: another web app on 127.0.0.1 gets nothing that reads or changes it",
  ignore: !CHROMIUM,
  async fn() {
    const home = makeTempHome();
    const seeded = await seedLibrary(home);
    const console = await startConsoleProcess(home);
    // Another program serving pages on this machine: it keeps every request's headers, and its
    // page sets the cookie the console used to read the workspace from (cookie tossing).
    const seen: Headers[] = [];
    const other = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      seen.push(request.headers);
      return new Response("<!doctype html><title>another app</title><p id=hello>hello</p>", {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "set-cookie": "mema_workspace=web; Path=/",
        },
      });
    });
    const otherOrigin = `http://127.0.0.1:${other.addr.port}`;
    const browser = await launchBrowser(CHROMIUM!);
    try {
      const page = await browser.newPage();
      await page.goto(console.url);
      const base = page.url();
      const officeUrl = new URL(`memories/${seeded.office}`, base).href;
      await page.goto(officeUrl);
      assert.match(await page.textContent("#content") ?? "", /40 Quayside Road/);

      // The user, signed in, opens the other app in the same browser.
      await page.goto(`${otherOrigin}/`);
      assert.equal(await page.textContent("#hello"), "hello");
      assert.ok(seen.length > 0);

      // Server-side, the other app replays whatever it received, forging every header.
      const received = seen.map((headers) => headers.get("cookie")).filter((c) => c !== null);
      const forged = {
        ...(received.length > 0 ? { cookie: received.join("; ") } : {}),
        origin: console.origin,
        referer: `${console.origin}/`,
        "sec-fetch-site": "same-origin",
        "sec-fetch-mode": "navigate",
      };
      // Every way the replay got through, listed (so a failure shows the whole attack).
      const breaches: string[] = [];
      let csrf = "guessed";
      for (const path of ["/", `/memories/${seeded.office}`]) {
        const read = await fetch(`${console.origin}${path}`, {
          headers: forged,
          redirect: "manual",
        });
        const text = await read.text();
        csrf = /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? csrf;
        if (read.status !== 401) breaches.push(`GET ${path} answered ${read.status}`);
        if (/Quayside/.test(text)) breaches.push(`GET ${path} showed the memory`);
      }
      const purge = await fetch(`${console.origin}/memories/${seeded.office}/purge`, {
        method: "POST",
        headers: { ...forged, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf, reason: "taken over" }).toString(),
        redirect: "manual",
      });
      await purge.body?.cancel();
      if (purge.status !== 401) breaches.push(`the purge answered ${purge.status}`);
      const after = await page.goto(officeUrl);
      if (after?.status() !== 200) breaches.push(`the memory page answers ${after?.status()} now`);
      assert.deepEqual(breaches, [], "the other app replayed what it received");

      // Nothing of the console's reached the other app: no cookie, no secret in any header.
      const secrets = [console.token, ...new URL(base).pathname.split("/").filter(Boolean)];
      for (const headers of seen) {
        for (const [name, value] of headers) {
          for (const secret of secrets.filter((s) => s.length >= 32)) {
            assert.ok(!value.includes(secret), `the other app received the secret in ${name}`);
          }
        }
      }
      assert.equal(seen[0].get("cookie"), null, "the other app received a cookie");

      // The user's console is as it was: the memory is there, and the tossed cookie picked
      // no workspace.
      assert.match(await page.textContent("#content") ?? "", /40 Quayside Road/);
      assert.equal(await page.locator("#ws-pick").inputValue(), "*", "still all workspaces");
    } finally {
      await browser.close();
      await other.shutdown();
      await console.stop();
      home.cleanup();
    }
  },
});

/** Return paths that must not lead out of the session (`PORT`: a live port elsewhere). */
const NASTY_RETURNS = [
  "/\t/127.0.0.2:PORT/x",
  "/\n/127.0.0.2:PORT/x",
  "/\r\n/127.0.0.2:PORT/x",
  "//127.0.0.2:PORT/x",
  "///127.0.0.2:PORT/x",
  "/\\127.0.0.2:PORT/x",
  "\\\\127.0.0.2:PORT/x",
  "http://127.0.0.2:PORT/x",
  "https:127.0.0.2:PORT",
  "javascript:alert(1)",
  "/../../x",
  "/%2e%2e/%2e%2e/x",
  "/./x",
  " /x",
  "/x\u0000",
  "/x\u2028",
  "memories",
  "",
];

Deno.test("console: return paths are checked strictly; nothing redirects outside the session", async () => {
  const home = makeTempHome();
  const { office } = await seedLibrary(home);
  const console = await startConsoleProcess(home);
  const port = new URL(console.origin).port;
  try {
    const client = await signIn(console.url);
    const csrf = await client.csrf(`memories/${office}`);
    const inside = (location: string | undefined) =>
      location !== undefined && location.startsWith(client.base);
    for (const nasty of NASTY_RETURNS.map((value) => value.replace("PORT", port))) {
      const shown = JSON.stringify(nasty);
      const viaGet = await client.get(
        `workspace?${new URLSearchParams({ ws: "web", back: nasty })}`,
      );
      assert.ok(
        viaGet.location === undefined || inside(viaGet.location),
        `GET ${shown} redirected to ${viaGet.location}`,
      );
      const viaPost = await client.post("workspace", { csrf, ws: "web", back: nasty });
      assert.equal(viaPost.status, 303, `POST ${shown}: ${viaPost.status}`);
      assert.equal(viaPost.location, client.base, `POST ${shown} falls back to the overview`);
    }
    const fine = await client.post("workspace", { csrf, ws: "*", back: "/memories?q=office" });
    assert.equal(fine.location, new URL("memories?q=office", client.base).href);

    // The printed URL's token on any path goes to the new session's overview.
    for (const path of [`//127.0.0.2:${port}/x`, `/\\127.0.0.2:${port}/x`, "/%2e%2e/x"]) {
      const opened = await fetch(`${console.origin}${path}?token=${console.token}`, {
        redirect: "manual",
      });
      await opened.body?.cancel();
      const location = new URL(opened.headers.get("location") ?? "", console.origin);
      assert.equal(location.origin, console.origin, `${path} led to ${location}`);
      assert.match(location.pathname, /^\/s\/[\w-]{43}\/$/, `${path} led to ${location}`);
    }
  } finally {
    await console.stop();
    home.cleanup();
  }
});

Deno.test("console: GET /workspace changes nothing; the picker's POST with its CSRF value does", async () => {
  const home = makeTempHome();
  const { office } = await seedLibrary(home);
  const console = await startConsoleProcess(home);
  const picked = async () =>
    /<option value="([^"]*)" selected>/.exec((await client.get("./")).text)?.[1];
  const client = await signIn(console.url);
  try {
    assert.equal(await picked(), "*", "all workspaces to begin with");
    const viaGet = await client.get("workspace?ws=web&back=/");
    assert.equal(
      await picked(),
      "*",
      "a GET (a link, an image, a prefetch) switched the workspace",
    );
    assert.equal(viaGet.status, 405, "a GET is told to use the picker");
    assert.match(viaGet.text, /picker/);
    const noCsrf = await client.post("workspace", { ws: "web", back: "/" });
    assert.equal(noCsrf.status, 403);
    assert.equal(await picked(), "*", "a POST without the CSRF value switched the workspace");
    const csrf = await client.csrf(`memories/${office}`);
    const viaPost = await client.post("workspace", { csrf, ws: "web", back: "/" });
    assert.equal(viaPost.status, 303);
    assert.equal(await picked(), "web", "the picker's POST switches");
  } finally {
    await console.stop();
    home.cleanup();
  }
});
