/**
 * Test helpers for the web console: a real `mema console --port 0` process, and headless
 * Chromium (Debian's `chromium`) driven by playwright-core.
 * @module
 */
import { chromium } from "playwright-core";
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
  for (const path of ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Launches headless Chromium through playwright-core. */
export async function launchBrowser(executablePath: string) {
  return await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--headless"],
  });
}
