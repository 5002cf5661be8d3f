/**
 * The command line: one subcommand per file, each described by a `CommandSpec`
 * (src/cli/command.ts) and listed once in `COMMANDS` below.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runCli } from "./mod.ts";
 *
 * // main.ts does `Deno.exit(await runCli(Deno.args))`; `version` prints and exits 0.
 * const log = console.log;
 * console.log = () => {};
 * try {
 *   assert.equal(await runCli(["version"]), 0);
 * } finally {
 *   console.log = log;
 * }
 * ```
 * @module
 */
import { clientSpec } from "./client.ts";
import { consoleSpec } from "./console.ts";
import { copySpec } from "./copy.ts";
import { closestCommand, type CommandSpec, renderCommandHelp, UsageError } from "./command.ts";
import { doctorSpec } from "./doctor.ts";
import { exportSpec } from "./export.ts";
import { helpSpec, renderOverview, versionSpec } from "./help.ts";
import { importSpec } from "./import.ts";
import { EXIT_USAGE, reportFailure } from "./output.ts";
import { scanSpec } from "./scan.ts";
import { serveSpec } from "./serve.ts";
import { setupSpec } from "./setup.ts";
import { tokenSpec } from "./token.ts";
import { upgradeSpec } from "./upgrade.ts";

/**
 * Every command, in the order `mema help` lists them. A new command: a file exporting its
 * `CommandSpec` (help, flags, run), imported above and added here.
 */
const COMMANDS: CommandSpec[] = [
  serveSpec,
  doctorSpec,
  setupSpec,
  scanSpec,
  importSpec,
  exportSpec,
  upgradeSpec,
  copySpec,
  consoleSpec,
  clientSpec,
  tokenSpec,
  versionSpec,
  helpSpec(() => COMMANDS),
];

/** Other spellings of a command. */
const ALIASES: Record<string, string> = { "--version": "version", "--help": "help", "-h": "help" };

function asksForHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === "--help" || arg === "-h");
}

/** Runs a command line and returns the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [given, ...rest] = argv;
  if (given === undefined) {
    console.error(renderOverview(COMMANDS));
    return EXIT_USAGE;
  }
  const name = ALIASES[given] ?? given;
  const command = COMMANDS.find((spec) => spec.name === name);
  if (!command) {
    const near = closestCommand(given, COMMANDS);
    console.error(
      `mema: unknown command "${given}"${near ? ` — did you mean "${near}"?` : ""}\n` +
        "Run `mema help` for the list of commands.",
    );
    return EXIT_USAGE;
  }
  if (command.name !== "help" && asksForHelp(rest)) {
    console.log(renderCommandHelp(command));
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      const next = command.name === "help"
        ? "Run `mema help` for the list of commands."
        : `Run \`mema help ${command.name}\` for its flags.`;
      console.error(`mema ${error.command ?? command.name}: ${error.message}\n${next}`);
      return EXIT_USAGE;
    }
    return reportFailure(error);
  }
}
