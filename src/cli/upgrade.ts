/**
 * `mema upgrade [--dry-run] [--yes] [--no-switch] [--db PATH]`: builds a database of this
 * build's generation beside the configured one (from an older mema generation, or from a
 * memory-arbiter 0.8 / mema 0.17 database), verifies it, checkpoints it, then points the
 * config file's `db_path` at it. The old file is kept. On PostgreSQL (`db_url`) it applies the
 * pending schema migrations in place, in one transaction, and prints the version before and after.
 * @module
 */
import { loadConfig, type MemaConfig } from "../config/mod.ts";
import { updateConfigFile } from "../config/write.ts";
import { MemaError } from "../errors/mod.ts";
import { upgradePostgresDatabase } from "../store/mod.ts";
import { absolutePath } from "../platform/paths.ts";
import { confirmOnTerminal, stdinIsTerminal } from "../platform/terminal.ts";
import { planUpgrade, runUpgrade } from "../portability/upgrade.ts";
import { type CommandSpec, parseCommandArgs } from "./command.ts";
import { reportFailure } from "./output.ts";

/** `mema upgrade`: its help and flags. */
export const upgradeSpec: CommandSpec = {
  name: "upgrade",
  summary: "build the database anew for this mema (older generations, memory-arbiter 0.8)",
  usage: ["upgrade [--dry-run] [--yes] [--no-switch] [--db PATH] [--config PATH]"],
  description: [
    "Builds a new database beside the old one (<name>.gen<N>.sqlite3) from an older mema",
    "generation or a memory-arbiter 0.8 / mema 0.17 database, verifies row counts and content",
    "hashes, checkpoints it into one file, then sets db_path in the config file to it. The old",
    "file is never changed or deleted. Stop every mema server using the database first.",
    "With db_url (PostgreSQL): applies the pending schema migrations in one transaction and",
    "prints the schema version before and after; running servers may stay up.",
  ].join("\n"),
  flags: {
    "dry-run": { type: "boolean", help: "say what would happen; write nothing" },
    yes: { type: "boolean", help: "do not ask for confirmation (needed without a terminal)" },
    "no-switch": { type: "boolean", help: "build and verify, but leave the config as it is" },
    db: {
      type: "string",
      value: "PATH",
      help: "database to upgrade (default: the configured one)",
    },
    config: { type: "string", value: "PATH", help: "config file (default MEMA_CONFIG)" },
  },
  exitCodes: {
    0: "upgraded (or nothing to do, or a dry run)",
    1: "the upgrade was refused or failed (the reason is on stderr); nothing was switched",
    2: "bad command line",
  },
  run: upgradeCommand,
};

/** Points the config at the new database, or says why and how to do it by hand. */
function switchDatabase(config: MemaConfig, configPath: string | undefined, target: string) {
  if (config.sources.dbPath === "env") {
    console.log(
      `MEMA_DB_PATH names the database, so the config was not changed: set MEMA_DB_PATH=${target} (in every client's env block too)`,
    );
    return;
  }
  if (config.sources.dbPath === "flag") {
    const configured = loadConfig({ flags: { configPath } }).dbPath;
    if (absolutePath(configured) !== absolutePath(config.dbPath)) {
      console.log(
        `--db named a database other than the configured one (${configured}), so the config was not changed; use the new one with --db ${target} or db_path`,
      );
      return;
    }
  }
  updateConfigFile(config.configPath, { db_path: target });
  console.log(`db_path in ${config.configPath} now points at ${target}`);
}

/** `mema upgrade` on PostgreSQL: the schema migrated in place, before and after printed. */
async function upgradePostgres(url: string, dryRun: boolean): Promise<number> {
  const result = await upgradePostgresDatabase(url, { dryRun });
  console.log(`database: ${result.database}`);
  const steps = result.applied.map((m) => `${m.version} (${m.description})`).join("; ");
  if (result.applied.length === 0) {
    console.log(`schema version ${result.before}: up to date, nothing to do`);
  } else if (dryRun) {
    console.log(`schema version ${result.before}; this mema's is ${result.latest}`);
    console.log(`would apply: ${steps}`);
    console.log("dry run: nothing was written");
  } else {
    console.log(`applied: ${steps}`);
    console.log(`schema version ${result.before} -> ${result.after}`);
  }
  return 0;
}

/** Runs `mema upgrade`. */
export async function upgradeCommand(args: string[]): Promise<number> {
  const flags = parseCommandArgs(upgradeSpec, args);
  try {
    const configPath = flags.string("config");
    const config = loadConfig({ flags: { dbPath: flags.string("db"), configPath } });
    if (config.dbUrl !== undefined) {
      return await upgradePostgres(config.dbUrl, flags.boolean("dry-run"));
    }
    const source = absolutePath(config.dbPath);
    const plan = planUpgrade(source);
    console.log(`database: ${source}`);
    console.log(`found: ${plan.description}`);
    if (plan.action === "none") return 0;
    const counts = Object.entries(plan.counts).map(([table, n]) => `${table} ${n}`).join(", ");
    console.log(`rows: ${counts}`);
    console.log(`new database: ${plan.target}`);
    const switching = !flags.boolean("no-switch");
    console.log(
      switching
        ? "then: db_path in the config points at the new database; the old file stays as it is"
        : "then: nothing else (--no-switch); the old file stays as it is",
    );
    if (flags.boolean("dry-run")) {
      console.log("dry run: nothing was written");
      return 0;
    }
    if (!flags.boolean("yes")) {
      if (!stdinIsTerminal()) {
        throw new MemaError("invalid_input", "mema upgrade asks before it writes", {
          hint: "stop every mema server using the database, then run `mema upgrade --yes`",
        });
      }
      const go = confirmOnTerminal(
        "Stop every mema server using this database first (writes after the copy would not be in it). Build the new database now?",
      );
      if (!go) {
        console.log("nothing was written");
        return 1;
      }
    }
    const result = await runUpgrade(plan, {
      cacheDir: config.cacheDir,
      log: (line) => console.error(`mema upgrade: ${line}`),
    });
    const copied = Object.entries(result.copied).map(([table, n]) => `${table} ${n}`).join(", ");
    console.log(`copied: ${copied}`);
    console.log(
      `verified: ${result.copy.memories.count} memories and ${result.copy.history.count} earlier versions, content hashes equal`,
    );
    for (const note of result.notes) console.log(`note: ${note}`);
    if (switching) switchDatabase(config, configPath, result.target);
    console.log(`upgraded; the old database is kept at ${source}`);
    return 0;
  } catch (error) {
    return reportFailure(error);
  }
}
