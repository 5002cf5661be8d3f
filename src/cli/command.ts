/**
 * One table per command: its help text and its flags. `mema help COMMAND`,
 * `mema COMMAND --help`, flag parsing and the did-you-mean for a mistyped
 * command or flag all read the same table, so a new command is one
 * `CommandSpec` (in its own file) and one line in `src/cli/mod.ts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CommandSpec, parseCommandArgs } from "./command.ts";
 *
 * const spec: CommandSpec = {
 *   name: "demo",
 *   summary: "an example",
 *   usage: ["demo [--db PATH]"],
 *   flags: { db: { type: "string", value: "PATH", help: "database file" } },
 *   run: () => 0,
 * };
 * assert.equal(parseCommandArgs(spec, ["--db", "x.sqlite3"]).string("db"), "x.sqlite3");
 * assert.throws(() => parseCommandArgs(spec, ["--dbb", "x"]), /--db/); // did you mean --db?
 * ```
 * @module
 */
import { parseArgs } from "node:util";
import { closestName } from "../text/closest_name.ts";

/** One flag of a command. */
export interface FlagSpec {
  type: "boolean" | "string";
  /** What the help shows after a string flag, e.g. `PATH`. */
  value?: string;
  /** One line for `mema help COMMAND`. */
  help: string;
  /** A one-letter alias (`-q`). */
  short?: string;
  default?: boolean | string;
  /** A string flag that may be given more than once (`--workspace a --workspace b`). */
  multiple?: boolean;
}

/** A command of the CLI: what `mema help` says about it, its flags, and how it runs. */
export interface CommandSpec {
  name: string;
  /** One line for the list in `mema help`. */
  summary: string;
  /** Usage lines without the leading `mema `. */
  usage: string[];
  /** Paragraphs printed under the usage by `mema help COMMAND`. */
  description?: string;
  flags: Record<string, FlagSpec>;
  /** Allowed positional arguments (shown by help); none when absent. */
  positionals?: { name: string; help: string; choices?: readonly string[]; repeats?: boolean }[];
  /** Exit codes and what they mean, printed by `mema help COMMAND`. */
  exitCodes?: Record<number, string>;
  run(args: string[]): number | Promise<number>;
  /** Left out of `mema help`'s list (aliases such as `--version`). */
  hidden?: boolean;
}

/** A command line that cannot be understood: exit 2, with the message and where to look. */
export class UsageError extends Error {
  constructor(message: string, readonly command?: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** What `parseCommandArgs` returns. */
export interface ParsedArgs {
  positionals: string[];
  /** A string flag's value, undefined when not given (the last one, for a repeatable flag). */
  string(name: string): string | undefined;
  /** Every value of a repeatable string flag, in order; empty when not given. */
  strings(name: string): string[];
  /** A boolean flag: true when given. */
  boolean(name: string): boolean;
}

function flagName(arg: string): string | undefined {
  if (!arg.startsWith("--") || arg === "--") return undefined;
  return arg.slice(2).split("=")[0];
}

/**
 * Parses a command's arguments against its flag table. An unknown flag, a
 * missing value or an unexpected positional throws a `UsageError` naming the
 * closest flag when there is one.
 */
export function parseCommandArgs(spec: CommandSpec, args: string[]): ParsedArgs {
  const names = Object.keys(spec.flags);
  for (const arg of args) {
    if (arg === "--") break;
    const name = flagName(arg);
    if (name !== undefined && !names.includes(name)) {
      const near = closestName(name, names);
      throw new UsageError(
        `unknown flag --${name}${near ? ` (did you mean --${near}?)` : ""}`,
        spec.name,
      );
    }
    if (/^-[^-]/.test(arg)) {
      const short = arg.slice(1);
      if (!Object.values(spec.flags).some((flag) => flag.short === short)) {
        throw new UsageError(`unknown flag ${arg}`, spec.name);
      }
    }
  }
  const options: Record<
    string,
    { type: "boolean" | "string"; short?: string; default?: boolean | string; multiple?: boolean }
  > = {};
  for (const [name, flag] of Object.entries(spec.flags)) {
    options[name] = { type: flag.type };
    if (flag.multiple) options[name].multiple = true;
    if (flag.short) options[name].short = flag.short;
    if (flag.default !== undefined) options[name].default = flag.default;
  }
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), spec.name);
  }
  const allowed = spec.positionals ?? [];
  // A last positional that repeats (`PATH...`) takes every further argument.
  if (!allowed.at(-1)?.repeats && parsed.positionals.length > allowed.length) {
    const extra = parsed.positionals[allowed.length];
    throw new UsageError(`unexpected argument "${extra}"`, spec.name);
  }
  parsed.positionals.forEach((value, index) => {
    const choices = allowed[Math.min(index, allowed.length - 1)].choices;
    if (choices && !choices.includes(value)) {
      const near = closestName(value, choices);
      throw new UsageError(
        `unknown ${allowed[index].name} "${value}"${
          near ? ` (did you mean ${near}?)` : ""
        }; one of: ${choices.join(", ")}`,
        spec.name,
      );
    }
  });
  const values = parsed.values as Record<string, string | string[] | boolean | undefined>;
  const all = (name: string): string[] => {
    const value = values[name];
    return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  };
  return {
    positionals: parsed.positionals,
    string: (name) => all(name).at(-1),
    strings: all,
    boolean: (name) => values[name] === true,
  };
}

/** The full help of one command (`mema help COMMAND`). */
export function renderCommandHelp(spec: CommandSpec): string {
  const lines = [`mema ${spec.name} — ${spec.summary}`, "", "Usage:"];
  for (const usage of spec.usage) lines.push(`  mema ${usage}`);
  if (spec.description) lines.push("", ...spec.description.split("\n"));
  if (spec.positionals?.length) {
    lines.push("", "Arguments:");
    for (const positional of spec.positionals) {
      const choices = positional.choices ? ` (${positional.choices.join(", ")})` : "";
      lines.push(`  ${positional.name.padEnd(22)} ${positional.help}${choices}`);
    }
  }
  const flags = Object.entries(spec.flags);
  if (flags.length > 0) {
    lines.push("", "Flags:");
    for (const [name, flag] of flags) {
      const short = flag.short ? `-${flag.short}, ` : "";
      const label = `${short}--${name}${flag.type === "string" ? ` ${flag.value ?? "VALUE"}` : ""}${
        flag.multiple ? " ..." : ""
      }`;
      lines.push(`  ${label.padEnd(22)} ${flag.help}`);
    }
  }
  if (spec.exitCodes) {
    lines.push("", "Exit codes:");
    for (const [code, meaning] of Object.entries(spec.exitCodes)) {
      lines.push(`  ${code}  ${meaning}`);
    }
  }
  return lines.join("\n");
}

/** The closest command name to a mistyped one, if any. */
export function closestCommand(name: string, specs: readonly CommandSpec[]): string | undefined {
  return closestName(name, specs.filter((spec) => !spec.hidden).map((spec) => spec.name));
}
