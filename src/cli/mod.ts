/**
 * The command line: one subcommand per file, dispatched here.
 *
 * @example
 * ```ts
 * import { runCli } from "./src/cli/mod.ts";
 * // Deno.exit(await runCli(["version"]));
 * ```
 * @module
 */
import { doctorCommand } from "./doctor.ts";
import { exportCommand } from "./export.ts";
import { helpCommand, USAGE, versionCommand } from "./help.ts";
import { EXIT_USAGE, reportFailure } from "./output.ts";
import { serveCommand } from "./serve.ts";
import { scanCommand } from "./scan.ts";
import { setupCommand } from "./setup.ts";

const COMMANDS: Record<string, (args: string[]) => number | Promise<number>> = {
  serve: serveCommand,
  doctor: doctorCommand,
  setup: setupCommand,
  scan: scanCommand,
  export: exportCommand,
  version: versionCommand,
  "--version": versionCommand,
  help: helpCommand,
  "--help": helpCommand,
  "-h": helpCommand,
};

/** Runs a command line and returns the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    console.error(USAGE);
    return EXIT_USAGE;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`mema: unknown command "${name}"\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  try {
    return await command(rest);
  } catch (error) {
    if (
      error instanceof TypeError && "code" in error &&
      String(error.code).startsWith("ERR_PARSE_ARGS")
    ) {
      console.error(`mema ${name}: ${error.message}\n\n${USAGE}`);
      return EXIT_USAGE;
    }
    return reportFailure(error);
  }
}
