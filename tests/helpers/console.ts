/**
 * Test helpers for the web console: a real `mema console --port 0` process, and headless
 * Chromium (Debian's `chromium`) driven by playwright-core.
 * @module
 */
// playwright-core is a test tool, installed by `deno task test` (scripts/dev_tools.ts) rather
// than listed in deno.json, where every `deno task start` would download it; its types come from
// the installed files, its code from the same files once a test launches a browser.
import type * as Playwright from "../../node_modules/.deno/playwright-core@1.65.1/node_modules/playwright-core/index.d.ts";
import { pathToFileURL } from "node:url";
import { devToolFile } from "../../scripts/dev_tools.ts";
import { MAIN, type TempHome } from "./server.ts";

/** A running `mema console` process. */
export interface ConsoleProcess {
  /** The printed URL, with its token. */
  url: string;
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  token: string;
  stderr(): string;
  stop(): Promise<Deno.CommandStatus>;
}

/** Spawns `mema console --port 0` (plus `args`) and waits for its URL. */
export async function startConsoleProcess(
  home: TempHome,
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<ConsoleProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--quiet",
      MAIN,
      "console",
      "--port",
      "0",
      ...(options.args ?? []),
    ],
    env: { ...home.env, USER: "alice", ...options.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stdout = "";
  let stderr = "";
  const { promise: printed, resolve } = Promise.withResolvers<string>();
  const pumps = [
    (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stdout) {
        stdout += decoder.decode(chunk, { stream: true });
        const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(stdout);
        if (match) resolve(match[1]);
      }
    })(),
    (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
    })(),
  ];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const url = await Promise.race([
    printed,
    child.status.then((status) => {
      throw new Error(`mema console exited with ${status.code}: ${stderr}`);
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`mema console printed no URL: ${stderr}`)), 30_000);
    }),
  ]).finally(() => clearTimeout(timer));
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get("token")!,
    stderr: () => stderr,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already exited
      }
      const status = await child.status;
      await Promise.all(pumps);
      return status;
    },
  };
}

/** Where Debian's Chromium lives, or undefined when it is not installed. */
export function findChromium(): string | undefined {
  // MEMA_TEST_CHROMIUM names another browser binary (a path that does not exist: none at all).
  const chosen = Deno.env.get("MEMA_TEST_CHROMIUM");
  const paths = chosen
    ? [chosen]
    : ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];
  for (const path of paths) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Set to 1 to skip the console's browser tests on purpose (they fail without Chromium). */
export const SKIP_BROWSER_ENV = "MEMA_TEST_SKIP_BROWSER";

/** What to do when Chromium is missing, in the words the failure and the skip print. */
const INSTALL_CHROMIUM =
  "the console's browser tests need Chromium: install it (Debian/Ubuntu: `sudo apt-get install chromium`; .ci/run does it), or set MEMA_TEST_SKIP_BROWSER=1 to skip them on purpose";

/**
 * Chromium for a file of browser tests, which then run when it is defined and are ignored when
 * not. Missing Chromium is a failure (one failing test that says how to install it) unless
 * MEMA_TEST_SKIP_BROWSER=1 asks to skip: then the skip is printed and the tests show as ignored in
 * the summary.
 */
export function requireChromium(): string | undefined {
  const found = findChromium();
  if (found) return found;
  if (Deno.env.get(SKIP_BROWSER_ENV) === "1") {
    console.error(`SKIPPED (${SKIP_BROWSER_ENV}=1): ${INSTALL_CHROMIUM}`);
    return undefined;
  }
  Deno.test("browser tests: Chromium is installed", () => {
    throw new Error(`Chromium not found: ${INSTALL_CHROMIUM}`);
  });
  return undefined;
}

/** Launches headless Chromium through playwright-core. */
export async function launchBrowser(executablePath: string): Promise<Playwright.Browser> {
  let playwright: typeof Playwright;
  try {
    playwright = await import(pathToFileURL(devToolFile("playwright")).href) as typeof Playwright;
  } catch (error) {
    throw new Error(
      `playwright-core is not installed (run \`deno run -A scripts/dev_tools.ts\`; \`deno task test\` does it first): ${error}`,
    );
  }
  return await playwright.chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--headless"],
  });
}

/**
 * Clicks `target` (a selector on `page`, or a locator) and returns once the page the click
 * loads has loaded. Playwright's click does not wait for a navigation it starts, so a read right
 * after a plain click can see the page that is leaving.
 */
export async function clickToLoad(
  page: Playwright.Page,
  target: string | Playwright.Locator,
): Promise<void> {
  // A selector clicks its first match, as `page.click` does.
  const locator = typeof target === "string" ? page.locator(target).first() : target;
  await Promise.all([page.waitForEvent("load"), locator.click()]);
}

/** A signed-in console for raw requests, as a browser would hold it (cookies included). */
export interface ConsoleClient {
  /** The session's root, absolute, ending in `/`: page paths resolve against it. */
  base: string;
  /** Cookies the console has set so far, as a `Cookie` header ("" when none). */
  cookieHeader(): string;
  /** A request to `path` relative to {@linkcode base} (not followed when it redirects). */
  send(path: string, init?: RequestInit): Promise<Response>;
  /** GET `path`: status, body and where it redirects (absolute), if it does. */
  get(path: string): Promise<{ status: number; text: string; location?: string }>;
  /** POST a form to `path` from the console's own origin. */
  post(
    path: string,
    form: Record<string, string>,
  ): Promise<{ status: number; text: string; location?: string }>;
  /** The CSRF value the forms of the page at `path` carry. */
  csrf(path: string): Promise<string>;
}

/**
 * Opens the printed URL the way a browser does (follows its redirect, keeps any cookie it is
 * given) and returns a client for the session it lands in.
 */
export async function signIn(url: string): Promise<ConsoleClient> {
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair.indexOf("=");
      if (at > 0) jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
  };
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  const first = await fetch(url, { redirect: "manual" });
  await first.body?.cancel();
  if (first.status !== 303) throw new Error(`the printed URL answered ${first.status}`);
  keep(first);
  const base = new URL(first.headers.get("location")!, url).href;
  const send = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size > 0 && !headers.has("cookie")) headers.set("cookie", cookieHeader());
    const response = await fetch(new URL(path, base), { ...init, headers, redirect: "manual" });
    keep(response);
    return response;
  };
  const settle = async (response: Response) => {
    const location = response.headers.get("location");
    return {
      status: response.status,
      text: await response.text(),
      location: location === null ? undefined : new URL(location, response.url).href,
    };
  };
  const client: ConsoleClient = {
    base,
    cookieHeader,
    send,
    get: async (path) => settle(await send(path)),
    post: async (path, form) =>
      settle(
        await send(path, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            origin: new URL(base).origin,
          },
          body: new URLSearchParams(form).toString(),
        }),
      ),
    async csrf(path) {
      const page = await client.get(path);
      const value = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
      if (!value) throw new Error(`the page ${path} carries no CSRF value`);
      return value;
    },
  };
  return client;
}
