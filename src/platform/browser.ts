/**
 * Opening a URL in the desktop's default browser (the console does at start).
 *
 * @example
 * Not run by `deno test --doc`: it starts the desktop's browser opener, which a test machine
 * may not have.
 * ```ts ignore
 * import { openInBrowser } from "./browser.ts";
 * const failure = await openInBrowser("http://127.0.0.1:8123/?token=abc");
 * if (failure) console.error(`open the URL yourself: ${failure}`);
 * ```
 * @module
 */

/**
 * Asks the desktop to open `url` in the default browser (`xdg-open`, `open` on macOS, `start`
 * on Windows). Resolves with why it could not, or undefined once the opener was started.
 */
export async function openInBrowser(url: string): Promise<string | undefined> {
  const [command, args] = Deno.build.os === "darwin"
    ? ["open", [url]]
    : Deno.build.os === "windows"
    ? ["cmd", ["/c", "start", "", url]]
    : ["xdg-open", [url]];
  try {
    const child = new Deno.Command(command, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const status = await child.status;
    return status.success ? undefined : `${command} exited with ${status.code}`;
  } catch (error) {
    return `${command} could not be started: ${error instanceof Error ? error.message : error}`;
  }
}
