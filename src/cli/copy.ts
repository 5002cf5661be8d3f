/**
 * `mema copy SOURCE TARGET [--json]`: copies a whole library between a SQLite file and a
 * PostgreSQL database (either way, or file to file) and prints what was copied and the content
 * fingerprints of both sides (src/portability/copy.ts). URLs are shown without their password.
 * @module
 */
import { loadConfig } from "../config/mod.ts";
import { isMemaError } from "../errors/mod.ts";
import { redactDbSecrets } from "../config/db_url.ts";
import { copyLibrary, type CopyResult } from "../portability/copy.ts";
import { type CommandSpec, parseCommandArgs, UsageError } from "./command.ts";
import { EXIT_FAILURE, reportFailure } from "./output.ts";

/** Version of `mema copy --json`'s layout. */
export const COPY_JSON_SCHEMA_VERSION = 1;

/** Tests only: the process stops, as if killed, after this table is copied (no clean-up). */
const CRASH_AFTER_TABLE_ENV = "MEMA_TEST_COPY_CRASH_AFTER";

/** `mema copy`: its help and flags. */
export const copySpec: CommandSpec = {
  name: "copy",
  summary: "copy a whole library between a SQLite file and a PostgreSQL database",
  usage: ["copy SOURCE TARGET [--json] [--config PATH]"],
  description: [
    "Copies every memory with its versions, audit, conflicts, notices, workspaces, links,",
    "evidence rows and vectors from SOURCE to TARGET, each a SQLite file path or a postgres://",
    "URL, and verifies row counts and content fingerprints. The source is opened read-only. The",
    "target must hold no memories (a new file, or an empty database). It is marked unfinished",
    "until the copy is verified: a copy cut short leaves it marked, every mema command refuses",
    "it, and running the same copy again starts over. Stop the servers writing to SOURCE first:",
    "later writes are not in the copy.",
  ].join("\n"),
  positionals: [
    { name: "SOURCE", help: "the library to copy: a SQLite file or a postgres:// URL" },
    {
      name: "TARGET",
      help: "where to copy it: a new SQLite file or an empty postgres:// database",
    },
  ],
  flags: {
    json: { type: "boolean", help: "print one JSON object (schema_version 1) on stdout" },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
  },
  exitCodes: {
    0: "copied and verified",
    1: "refused or failed (the reason is on stderr); the source is unchanged",
    2: "bad command line",
  },
  run: copyCommand,
};

function printResult(result: CopyResult): void {
  console.log(`copied ${result.source} -> ${result.target}`);
  const rows = Object.entries(result.copied).map(([table, n]) => `${table} ${n}`).join(", ");
  console.log(`rows: ${rows}`);
  console.log(`word index: ${result.indexed} memories indexed`);
  for (const part of ["memories", "history"] as const) {
    const [source, target] = [result.fingerprints.source[part], result.fingerprints.target[part]];
    console.log(
      `${part}: ${source.count} rows, sha256 ${source.sha256} (source) = ${target.sha256} (target)`,
    );
  }
  console.log(
    "space" in result.vectors
      ? `vectors: ${result.vectors.rows} embedded rows (${result.vectors.space})`
      : `vectors: none copied (${result.vectors.skipped}); \`mema serve\` embeds the rows again`,
  );
  console.log("verified");
}

/** Runs `mema copy`. */
export async function copyCommand(args: string[]): Promise<number> {
  const flags = parseCommandArgs(copySpec, args);
  if (flags.positionals.length !== 2) {
    throw new UsageError("needs a SOURCE and a TARGET", "copy");
  }
  const [source, target] = flags.positionals;
  const json = flags.boolean("json");
  try {
    const config = loadConfig({ flags: { configPath: flags.string("config") } });
    const crashAfter = Deno.env.get(CRASH_AFTER_TABLE_ENV);
    const result = await copyLibrary(source, target, {
      cacheDir: config.cacheDir,
      log: json ? undefined : (line) => console.error(`mema copy: ${line}`),
      afterTable: crashAfter === undefined ? undefined : (table) => {
        if (table === crashAfter) Deno.exit(137);
      },
    });
    if (json) {
      console.log(
        JSON.stringify({ schema_version: COPY_JSON_SCHEMA_VERSION, ok: true, ...result }),
      );
    } else {
      printResult(result);
    }
    return 0;
  } catch (error) {
    const clean = isMemaError(error) ? error : new Error(redactDbSecrets(
      redactDbSecrets(error instanceof Error ? error.message : String(error), source),
      target,
    ));
    if (json) {
      const reason = redactDbSecrets(
        isMemaError(clean) ? clean.reason : (clean as Error).message,
        target,
      );
      console.log(JSON.stringify({
        schema_version: COPY_JSON_SCHEMA_VERSION,
        ok: false,
        error: {
          code: isMemaError(clean) ? clean.code : "storage_error",
          reason,
          hint: isMemaError(clean) ? clean.hint : undefined,
        },
      }));
      return EXIT_FAILURE;
    }
    return reportFailure(clean);
  }
}
