/**
 * mema's entry point: dispatch only.
 * @module
 */
import { runCli } from "./src/cli/mod.ts";

if (import.meta.main) {
  Deno.exitCode = await runCli(Deno.args);
}
