/**
 * `mema upgrade`: a new database of this build's generation is built beside the old one from
 * a mema database of an older generation (every table copied, derived indexes rebuilt) or from
 * a memory-arbiter 0.8 / mema 0.17 database (memories, versions, tags and workspaces mapped
 * onto mema's fields), then verified (row counts and a hash over every fact's content, source
 * against copy) and checkpointed into one file. The source is only read, never changed.
 *
 * Seed mapping (store/upgrade_sql.ts lists the columns read): ids are kept; content is copied
 * verbatim and hashed again; tags from the `tags` column and the tags tables are merged and
 * normalized like `remember`'s; the workspace goes through the seed's aliases and redirects,
 * then mema's canonical form; an unknown source type becomes `unknown`, an unknown protection
 * `normal`, an unknown status `retired` (the original kept in `metadata.upgrade`);
 * `user_confirmed` is locked; earlier versions (below the memory's version) become history.
 * A second active memory with the same content in a workspace (the seeds allowed it, mema's
 * unique index does not) is stored as superseded by the first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planUpgrade } from "./upgrade.ts";
 * import { openStore } from "../store/mod.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * const store = await openStore(`${dir}/mema.sqlite3`, { cacheDir: `${dir}/cache` });
 * store.close(); // a current database: nothing to upgrade
 * assert.equal(planUpgrade(`${dir}/mema.sqlite3`).action, "none");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 * @module
 */
import { MemaError } from "../errors/mod.ts";
import { contentSha } from "../memory/content_hash.ts";
import { SUBJECT_MAX_CHARS } from "../memory/limits.ts";
import { normalizeTag } from "../memory/normalize.ts";
import { prefixByUnits } from "../text/code_points.ts";
import { nowIso } from "../platform/clock.ts";
import { removeFileIfExists } from "../platform/files.ts";
import { dirName, pathExists } from "../platform/paths.ts";
import {
  type ContentFingerprints,
  type DatabaseKind,
  fingerprintRows,
  type HistoryEntry,
  MEMORY_STATUSES,
  type MemoryRecord,
  type MemoryStatus,
  openStore,
  PROTECTION_LEVELS,
  type ProtectionLevel,
  SCHEMA_GENERATION,
  SOURCE_TYPES,
  type SourceType,
  type Store,
  UpgradeSource,
} from "../store/mod.ts";
import { canonicalWorkspace } from "../core/workspace_names.ts";

/** What `mema upgrade` would do with a database. */
export interface UpgradePlan {
  source: string;
  target: string;
  kind: DatabaseKind;
  /** copy: an older mema generation; convert: a seed database; none: already current. */
  action: "copy" | "convert" | "none";
  /** Rows per table of the source. */
  counts: Record<string, number>;
  /** In words, for the report. */
  description: string;
}

/** The file an upgrade writes: beside the source, named for the new generation. */
export function upgradeTargetPath(source: string): string {
  const dir = dirName(source);
  const name = source.slice(source.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ".sqlite3"];
  return `${dir}/${stem.replace(/\.gen\d+$/, "")}.gen${SCHEMA_GENERATION}${extension}`;
}

function openSource(path: string): UpgradeSource {
  if (!pathExists(path)) {
    throw new MemaError("not_found", `there is no database at ${path}`, {
      hint: "pass --db PATH, or set db_path / MEMA_DB_PATH to the database to upgrade",
    });
  }
  try {
    return new UpgradeSource(path);
  } catch (error) {
    throw foreign(path, String(error instanceof Error ? error.message : error));
  }
}

function foreign(path: string, reason: string): MemaError {
  return new MemaError(
    "schema_mismatch",
    `${path} is neither a mema database nor a memory-arbiter 0.8 / mema 0.17 one: ${reason}`,
    { hint: "point --db (or MEMA_DB_PATH) at the database mema or memory-arbiter wrote" },
  );
}

/** Inspects the source and says what an upgrade would do; refuses what it cannot upgrade. */
export function planUpgrade(source: string): UpgradePlan {
  const db = openSource(source);
  try {
    const kind = db.inspect();
    const target = upgradeTargetPath(source);
    if (kind.kind === "foreign") throw foreign(source, kind.reason);
    if (kind.kind === "empty") {
      throw new MemaError("invalid_input", `${source} is an empty database: nothing to upgrade`, {
        hint: "`mema serve` prepares an empty database itself",
      });
    }
    const counts = db.counts();
    if (kind.kind === "mema") {
      if (kind.generation > SCHEMA_GENERATION) {
        throw new MemaError(
          "schema_mismatch",
          `${source} has schema generation ${kind.generation}, newer than this mema (${SCHEMA_GENERATION}); it cannot be upgraded, only used by the newer mema`,
          { hint: "install the newer mema that wrote it" },
        );
      }
      if (kind.generation === SCHEMA_GENERATION) {
        return {
          source,
          target: source,
          kind,
          action: "none",
          counts,
          description: `already at generation ${SCHEMA_GENERATION}: nothing to upgrade`,
        };
      }
      return {
        source,
        target,
        kind,
        action: "copy",
        counts,
        description:
          `a mema database of generation ${kind.generation}: copy it into generation ${SCHEMA_GENERATION}`,
      };
    }
    return {
      source,
      target,
      kind,
      action: "convert",
      counts,
      description:
        `${kind.label}: convert it into a mema database of generation ${SCHEMA_GENERATION}`,
    };
  } finally {
    db.close();
  }
}

/** What an upgrade did. */
export interface UpgradeResult {
  target: string;
  /** Rows written per table. */
  copied: Record<string, number>;
  source: ContentFingerprints;
  copy: ContentFingerprints;
  /** Notes on what was mapped (seed conversions). */
  notes: string[];
}

/**
 * Builds and verifies the new database for a plan (`copy` or `convert`). The target must not
 * exist yet; on any failure it is removed again and the source is untouched.
 */
export async function runUpgrade(
  plan: UpgradePlan,
  options: { cacheDir: string; log?: (line: string) => void },
): Promise<UpgradeResult> {
  if (plan.action === "none") throw new Error("nothing to upgrade");
  if (pathExists(plan.target)) {
    throw new MemaError("invalid_input", `${plan.target} already exists`, {
      hint:
        "an earlier upgrade built it: use it (set db_path), or move it away and run mema upgrade again",
    });
  }
  const log = options.log ?? (() => {});
  const source = openSource(plan.source);
  let store: Store | undefined;
  try {
    store = await openStore(plan.target, { cacheDir: options.cacheDir, skipVec: true });
    const target = store;
    const result = await source.read(async () => {
      log(`reading ${plan.source}`);
      const built = plan.action === "copy"
        ? await copyMema(source, target)
        : await convertSeed(source, target);
      log("verifying row counts and content hashes");
      const copy = await target.read(async () => await target.contentFingerprints());
      for (const part of ["memories", "history"] as const) {
        const [a, b] = [built.source[part], copy[part]];
        if (a.count !== b.count || a.sha256 !== b.sha256) {
          throw new MemaError(
            "storage_error",
            `verification failed: the copy's ${part} (${b.count} rows) differ from the source's (${a.count} rows)`,
            { hint: "nothing was switched; report this, with `mema doctor --json` of the source" },
          );
        }
      }
      return { ...built, copy, target: plan.target };
    });
    log("checkpointing the write-ahead log into the new file");
    if ((await store.checkpoint()).busy > 0) {
      throw new MemaError("storage_busy", "the new database's WAL could not be checkpointed", {
        hint: "stop anything that opened the new file, then run mema upgrade again",
      });
    }
    store.close();
    store = undefined;
    return result;
  } catch (error) {
    store?.close();
    for (const suffix of ["", "-wal", "-shm"]) removeFileIfExists(`${plan.target}${suffix}`);
    throw error;
  } finally {
    source.close();
  }
}

type Built = Omit<UpgradeResult, "copy" | "target">;

/** mema → mema: every shared table copied as it is; the word index rebuilt. */
async function copyMema(source: UpgradeSource, target: Store): Promise<Built> {
  const sourcePrints = source.fingerprints();
  const copied: Record<string, number> = {};
  const tables = await target.tablesToCopyFrom(source);
  const counts = source.counts();
  await target.writeBlocking(async () => {
    for (const { table, columns } of tables) {
      copied[table] = await target.copyTableFrom(source, table, columns);
      if (copied[table] !== counts[table]) {
        throw new MemaError(
          "storage_error",
          `verification failed: ${copied[table]} of ${counts[table]} rows of ${table} were copied`,
        );
      }
    }
    await target.registerMemoryWorkspaces();
    await target.rebuildWordIndex();
    const createdAt = source.createdAt();
    if (createdAt) await target.setMeta("created_at", createdAt);
    await target.setMeta("upgraded_from", JSON.stringify({ path: source.path, at: nowIso() }));
  });
  return {
    copied,
    source: sourcePrints,
    notes: ["evidence rows and vectors are rebuilt by `mema serve` in the background"],
  };
}

type Row = Record<string, unknown>;

function textOf(row: Row, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = row[key];
    if (value !== undefined && value !== null && String(value) !== "") return String(value);
  }
  return undefined;
}

function jsonOf(value: unknown): unknown {
  if (typeof value !== "string") return value ?? undefined;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function tagsOf(value: unknown): string[] {
  const parsed = jsonOf(value);
  if (Array.isArray(parsed)) return parsed.map(String);
  if (typeof parsed === "string" && parsed.trim() !== "") return parsed.split(",");
  return [];
}

function normalizedTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map(normalizeTag).filter((tag) => tag !== ""))];
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.includes(value as T) ? value as T : undefined;
}

/** The seed's workspace names mapped to canonical names (aliases and redirects followed). */
function workspaceMap(rows: Row[]): {
  resolve(name: string | undefined): { canonical: string; display: string };
  registry: { canonical: string; display: string; state: "active" | "pending" }[];
} {
  const to = new Map<string, string>();
  const registry: { canonical: string; display: string; state: "active" | "pending" }[] = [];
  for (const row of rows) {
    const name = textOf(row, "canonical", "name", "workspace");
    if (name === undefined) continue;
    const canonical = canonicalWorkspace(name);
    const redirect = textOf(row, "redirect_to");
    for (const alias of tagsOf(row.aliases)) to.set(canonicalWorkspace(alias), canonical);
    if (redirect) {
      to.set(canonical, canonicalWorkspace(redirect));
      continue;
    }
    const state = /pending/i.test(textOf(row, "state", "status") ?? "") ? "pending" : "active";
    registry.push({ canonical, display: textOf(row, "display", "display_name") ?? name, state });
  }
  const follow = (canonical: string) => {
    let current = canonical;
    for (let hops = 0; hops < 8 && to.has(current) && to.get(current) !== current; hops++) {
      current = to.get(current)!;
    }
    return current;
  };
  return {
    resolve(name) {
      const canonical = follow(canonicalWorkspace(name ?? "default"));
      const display = registry.find((w) => w.canonical === canonical)?.display ??
        (name && canonicalWorkspace(name) === canonical ? name : canonical);
      return { canonical, display };
    },
    registry,
  };
}

/** Tags of each memory from the seed's tags tables. */
function seedTags(source: UpgradeSource, schema: Map<string, string[]>): Map<number, string[]> {
  const byMemory = new Map<number, string[]>();
  const add = (id: unknown, tag: unknown) => {
    if (tag === null || tag === undefined) return;
    const list = byMemory.get(Number(id)) ?? [];
    list.push(String(tag));
    byMemory.set(Number(id), list);
  };
  const link = schema.get("memory_tags");
  const tags = schema.get("tags");
  if (link?.includes("memory_id") && link.includes("tag")) {
    for (const row of source.rows("memory_tags")) add(row.memory_id, row.tag);
  } else if (link?.includes("memory_id") && link.includes("tag_id") && tags?.includes("id")) {
    const names = new Map(source.rows("tags").map((row) => [row.id, row.name ?? row.tag]));
    for (const row of source.rows("memory_tags")) add(row.memory_id, names.get(row.tag_id));
  } else if (tags?.includes("memory_id")) {
    for (const row of source.rows("tags")) add(row.memory_id, row.tag ?? row.name);
  }
  return byMemory;
}

const VERSION_TABLES = ["memory_versions", "versions", "memory_history"];

/** memory-arbiter 0.8 / mema 0.17 → mema (see the module documentation for the mapping). */
async function convertSeed(source: UpgradeSource, target: Store): Promise<Built> {
  const schema = source.schema();
  const now = nowIso();
  const notes: string[] = [];
  const workspaces = workspaceMap(schema.has("workspaces") ? source.rows("workspaces") : []);
  const tagTable = seedTags(source, schema);
  const rows = source.rows("memories").sort((a, b) => Number(a.id) - Number(b.id));
  const ids = new Set(rows.map((row) => Number(row.id)));
  const activeContent = new Map<string, number>();
  const memories: MemoryRecord[] = [];
  let remapped = 0;
  for (const row of rows) {
    const id = Number(row.id);
    const content = String(row.content ?? "");
    const metadataValue = jsonOf(row.metadata);
    const metadata: Record<string, unknown> =
      metadataValue && typeof metadataValue === "object" && !Array.isArray(metadataValue)
        ? { ...metadataValue as Record<string, unknown> }
        : metadataValue === undefined
        ? {}
        : { legacy_metadata: metadataValue };
    const upgradeNote: Record<string, unknown> = {};
    const sourceType = oneOf<SourceType>(row.source_type, SOURCE_TYPES) ?? "unknown";
    if (row.source_type !== undefined && row.source_type !== sourceType) {
      upgradeNote.source_type = row.source_type;
    }
    let status = oneOf<MemoryStatus>(row.status, MEMORY_STATUSES) ??
      (row.status === undefined || row.status === null ? "active" : "retired");
    if (row.status !== undefined && row.status !== null && row.status !== status) {
      upgradeNote.status = row.status;
    }
    const { canonical, display } = workspaces.resolve(textOf(row, "workspace"));
    if (textOf(row, "workspace") && canonicalWorkspace(textOf(row, "workspace")) !== canonical) {
      remapped++;
    }
    const sha = contentSha(content);
    let supersededBy = row.superseded_by === null || row.superseded_by === undefined
      ? null
      : Number(row.superseded_by);
    if (supersededBy !== null && !ids.has(supersededBy)) supersededBy = null;
    if (status === "active") {
      const twin = activeContent.get(`${canonical}\u0000${sha}`);
      if (twin !== undefined) {
        status = "superseded";
        supersededBy = twin;
        upgradeNote.duplicate_of = twin;
      } else {
        activeContent.set(`${canonical}\u0000${sha}`, id);
      }
    }
    if (Object.keys(upgradeNote).length > 0) metadata.upgrade = upgradeNote;
    const fullSubject = (textOf(row, "subject", "title") ?? content.trim().split("\n")[0] ?? "")
      .trim();
    const subject = prefixByUnits(fullSubject, SUBJECT_MAX_CHARS) || `memory ${id}`;
    const confidence = Number(row.confidence ?? 0.5);
    const created = textOf(row, "created_at", "ingest_time") ?? now;
    memories.push({
      id,
      subject,
      content,
      contentSha: sha,
      tags: normalizedTags([...tagsOf(row.tags), ...(tagTable.get(id) ?? [])]),
      workspace: display,
      workspaceCanonical: canonical,
      sourceType,
      sourceRef: textOf(row, "source_ref") ?? null,
      eventTime: textOf(row, "event_time") ?? null,
      ingestTime: textOf(row, "ingest_time", "created_at") ?? now,
      // memory-arbiter and mema 0.17 kept no validity windows.
      validFrom: null,
      validTo: null,
      confidence: Number.isFinite(confidence) ? Math.min(1, Math.max(0, confidence)) : 0.5,
      protectionLevel: sourceType === "user_confirmed"
        ? "locked"
        : oneOf<ProtectionLevel>(row.protection_level, PROTECTION_LEVELS) ?? "normal",
      status,
      version: Math.max(1, Math.trunc(Number(row.version ?? 1)) || 1),
      agentId: textOf(row, "agent_id") ?? "memory-arbiter",
      client: textOf(row, "client") ?? "memory-arbiter",
      metadata,
      supersededBy,
      follows: null,
      createdAt: created,
      updatedAt: textOf(row, "updated_at") ?? created,
    });
  }
  const versionTable = VERSION_TABLES.find((name) =>
    schema.get(name)?.includes("memory_id") && schema.get(name)?.includes("content")
  );
  const current = new Map(memories.map((memory) => [memory.id, memory]));
  const history: HistoryEntry[] = [];
  let skippedVersions = 0;
  for (const row of versionTable ? source.rows(versionTable) : []) {
    const memory = current.get(Number(row.memory_id));
    const version = Math.trunc(Number(row.version));
    // A versions table that also holds the current version: that one is the memory itself.
    if (!memory || !(version >= 1 && version < memory.version)) {
      skippedVersions++;
      continue;
    }
    const content = String(row.content ?? "");
    history.push({
      memoryId: memory.id,
      version,
      subject: textOf(row, "subject", "title") ?? memory.subject,
      content,
      contentSha: contentSha(content),
      tags: row.tags === undefined || row.tags === null
        ? memory.tags
        : normalizedTags(tagsOf(row.tags)),
      status: "active",
      changedAt: textOf(row, "changed_at", "created_at", "updated_at") ?? memory.updatedAt,
      changedBy: textOf(row, "changed_by", "agent_id") ?? memory.agentId,
      changedByClient: textOf(row, "changed_by_client", "client") ?? memory.client,
      reason: textOf(row, "reason") ?? null,
      validFrom: null,
      validTo: null,
    });
  }
  history.sort((a, b) => a.memoryId - b.memoryId || a.version - b.version);
  const unique = history.filter((entry, index) =>
    index === 0 || entry.memoryId !== history[index - 1].memoryId ||
    entry.version !== history[index - 1].version
  );
  skippedVersions += history.length - unique.length;
  await target.writeBlocking(async () => {
    for (const memory of memories) await target.restoreMemory(memory);
    for (const entry of unique) await target.appendHistory(entry);
    for (const workspace of workspaces.registry) {
      await target.restoreWorkspace({ ...workspace, createdAt: now });
    }
    await target.registerMemoryWorkspaces();
    await target.rebuildWordIndex();
    await target.setMeta("upgraded_from", JSON.stringify({ path: source.path, at: now }));
  });
  const duplicates = memories.filter((m) =>
    m.metadata.upgrade &&
    (m.metadata.upgrade as Record<string, unknown>).duplicate_of !== undefined
  ).length;
  if (duplicates > 0) {
    notes.push(
      `${duplicates} active duplicate(s) of another memory's content stored as superseded`,
    );
  }
  if (remapped > 0) notes.push(`${remapped} memories moved to the workspace their alias names`);
  if (skippedVersions > 0) {
    notes.push(`${skippedVersions} version row(s) not kept (the current version, or no memory)`);
  }
  notes.push("evidence rows and vectors are built by `mema serve` in the background");
  return {
    copied: {
      memories: memories.length,
      memory_history: unique.length,
      workspaces: workspaces.registry.length,
    },
    source: {
      memories: fingerprintRows(memories.map((m) => ({ key: String(m.id), content: m.content }))),
      history: fingerprintRows(
        unique.map((h) => ({ key: `${h.memoryId}.${h.version}`, content: h.content })),
      ),
    },
    notes,
  };
}
