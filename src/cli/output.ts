/**
 * How the CLI reports failures: a MemaError becomes a message, a hint and an
 * exit code; nothing is printed to stdout.
 * @module
 */
import { isMemaError } from "../errors/mod.ts";
import { UsageError } from "./command.ts";

/** Exit code for a failed command. */
export const EXIT_FAILURE = 1;
/** Exit code for a command line that cannot be understood. */
export const EXIT_USAGE = 2;

/**
 * Prints an error and its hint to stderr and returns the exit code. A `UsageError` is thrown on
 * to `runCli`, which prints it with the command's help pointer and exits 2, wherever it was
 * raised inside a command.
 */
export function reportFailure(error: unknown): number {
  if (error instanceof UsageError) throw error;
  if (isMemaError(error)) {
    console.error(`mema: error: ${error.reason}`);
    if (error.hint) console.error(`mema: hint: ${error.hint}`);
    return EXIT_FAILURE;
  }
  console.error(`mema: error: ${error instanceof Error ? error.stack ?? error.message : error}`);
  return EXIT_FAILURE;
}
