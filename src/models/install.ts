/**
 * Installs a model from the manifest (docs/SPEC.md §7, `mema setup --install`): every
 * file is downloaded into `<modelsDir>/<id>.partial/`, resumed with HTTP Range
 * after an interruption, fetched from the next mirror when a source fails, and
 * checked against its size and sha256. Only when every file verifies does the
 * directory become `<modelsDir>/<id>` (one rename), so an install is all or
 * nothing. Offline, the error's hint lists the exact manual steps.
 *
 * @example
 * Not run by `deno test --doc`: it downloads the model from the hub.
 * ```ts ignore
 * import { defaultModelsDir, installModel } from "./install.ts";
 * import { findModel, loadManifest } from "./manifest.ts";
 * const model = findModel(loadManifest(), "multilingual-e5-small");
 * const result = await installModel(model, { modelsDir: defaultModelsDir() });
 * console.error(result.status, result.dir);
 * ```
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, rename, rm, stat } from "node:fs/promises";
import { cacheDir } from "../config/paths.ts";
import { type ErrorCode, isMemaError, MemaError } from "../errors/mod.ts";
import { nowIso } from "../platform/clock.ts";
import { readTextIfExists, writeBytesAtomic } from "../platform/files.ts";
import { dirName, pathExists } from "../platform/paths.ts";
import type { ModelEntry, ModelFile } from "./manifest.ts";
import type { DownloadProgress } from "./progress.ts";

/** Options for {@link installModel}. */
export interface InstallOptions {
  /** The directory holding one sub-directory per installed model. */
  modelsDir: string;
  /** Injectable for tests; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Called as bytes arrive (and once for each file already complete on disk). */
  onProgress?: (progress: DownloadProgress) => void;
  /** Cancels the install; downloaded bytes stay in `.partial` for the next run. */
  signal?: AbortSignal;
  /** Accept files the manifest has no sha256 for, trusting TLS alone. */
  allowUnverified?: boolean;
  /** Give up on a source that sends nothing for this long (ms). */
  stallTimeoutMs?: number;
}

/** What {@link installModel} did. */
export interface InstallResult {
  /** The model id. */
  id: string;
  /** The installed model directory. */
  dir: string;
  /** Whether this call installed the model or found it installed. */
  status: "installed" | "already_installed";
  /** Bytes fetched over the network by this call. */
  downloadedBytes: number;
  /** Files accepted without a manifest sha256 (only with `allowUnverified`). */
  unverifiedFiles: string[];
  /** False when an existing install's files differ from the current manifest entry. */
  matchesManifest: boolean;
}

/** One file as it was installed: what was actually measured on disk. */
export interface InstalledFile {
  /** Path inside the model directory. */
  path: string;
  /** Measured size in bytes. */
  size: number;
  /** Measured SHA-256, lowercase hex (also for files the manifest has no hash for). */
  sha256: string;
}

/** `installed.json`, written into the model directory as the last step. */
export interface InstallRecord {
  /** Format version of this record. */
  schema_version: 1;
  /** The model id. */
  id: string;
  /** When the install finished, ISO 8601 UTC. */
  installed_at: string;
  /** Every installed file as measured. */
  files: InstalledFile[];
  /** The manifest entry the install followed. */
  model: ModelEntry;
}

/** The name of the record file inside a model directory. */
export const INSTALL_RECORD_FILE = "installed.json";

// A source that cannot deliver, and a file whose bytes are not the ones the manifest names.
const DOWNLOAD_FAILED: ErrorCode = "download_failed";
const FILE_CORRUPTED: ErrorCode = "integrity_mismatch";

// A CDN that sends nothing for a minute is not coming back; move on to the next mirror.
const DEFAULT_STALL_TIMEOUT_MS = 60_000;

/** How a source failed; `connect` from every source means the machine is offline. */
type SourceFailureKind = "connect" | "http" | "interrupted" | "stalled" | "wrong_size";

/** A source failed in a way that leaves the on-disk partial file usable. */
class SourceFailure extends Error {
  constructor(readonly kind: SourceFailureKind, message: string) {
    super(message);
  }
}

/** The bytes from a source do not match the manifest; the file was deleted. */
class IntegrityFailure extends Error {
  constructor(message: string, readonly details: Record<string, unknown>) {
    super(message);
  }
}

interface DownloadContext {
  fetch: typeof fetch;
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
  stallTimeoutMs: number;
}

interface SourceReport {
  url: string;
  kind: SourceFailureKind | "corrupted";
  reason: string;
}

interface FetchedFile {
  size: number;
  sha256: string;
  downloaded: number;
}

/**
 * The default models directory: `<cache dir>/models`, outside any compiled
 * binary's virtual file system and never next to the executable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultModelsDir } from "./install.ts";
 *
 * assert.ok(defaultModelsDir().endsWith("/mema/models")); // ~/.cache/mema/models
 * ```
 */
export function defaultModelsDir(): string {
  return `${cacheDir()}/models`;
}

/**
 * The install record of a model, or undefined when it is not (completely) installed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readInstallRecord } from "./install.ts";
 *
 * const dir = Deno.makeTempDirSync();
 * // Nothing installed in this folder yet.
 * assert.equal(readInstallRecord(dir, "multilingual-e5-small"), undefined);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function readInstallRecord(modelsDir: string, id: string): InstallRecord | undefined {
  const text = readTextIfExists(`${modelsDir}/${id}/${INSTALL_RECORD_FILE}`);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as InstallRecord;
    return record?.id === id && Array.isArray(record.files) ? record : undefined;
  } catch {
    return undefined;
  }
}

function recordMatchesManifest(record: InstallRecord, model: ModelEntry): boolean {
  if (record.files.length !== model.files.length) return false;
  return model.files.every((file) => {
    const installed = record.files.find((entry) => entry.path === file.path);
    return installed !== undefined &&
      (file.sha256 === null || installed.sha256 === file.sha256) &&
      (file.size === null || installed.size === file.size);
  });
}

/**
 * Downloads, verifies and installs every file of `model`. An existing complete
 * install is left alone (`status: "already_installed"`).
 *
 * @example
 * ```ts ignore
 * // Ignored: it downloads the model from the hub.
 * import { installModel } from "./install.ts";
 * import { findModel, loadManifest } from "./manifest.ts";
 * const model = findModel(loadManifest(), "multilingual-e5-small");
 * await installModel(model, { modelsDir: "/tmp/models", onProgress: (p) => console.error(p) });
 * ```
 */
export async function installModel(
  model: ModelEntry,
  options: InstallOptions,
): Promise<InstallResult> {
  if (model.builtin) {
    throw new MemaError("invalid_input", `model "${model.id}" is built locally, not downloaded`, {
      field: "model",
      hint: `it is generated from ${model.built_from ?? "a local package"}; nothing to install`,
    });
  }
  const finalDir = `${options.modelsDir}/${model.id}`;
  const partialDir = `${finalDir}.partial`;
  const existing = readInstallRecord(options.modelsDir, model.id);
  if (existing) return alreadyInstalled(model, finalDir, existing);
  if (pathExists(finalDir)) {
    throw new MemaError(
      "storage_error",
      `${finalDir} exists but holds no ${INSTALL_RECORD_FILE}, so it is not a finished install`,
      {
        field: "model",
        hint: `move its files into ${partialDir}/ (same relative paths) and install again: ` +
          "they are verified and kept, only missing files are downloaded",
      },
    );
  }
  const unhashed = model.files.filter((file) => file.sha256 === null);
  if (unhashed.length > 0 && !options.allowUnverified) {
    throw new MemaError(
      "config_invalid",
      `model "${model.id}": the manifest has no sha256 for ${
        unhashed.map((file) =>
          file.no_sha256_reason ? `${file.path} (${file.no_sha256_reason})` : file.path
        ).join(", ")
      }, so they cannot be verified`,
      {
        field: "sha256",
        hint: "pass --allow-unverified to accept them on TLS trust alone, " +
          "or record their sha256 in models.manifest.json",
        details: { unverified_files: unhashed.map((file) => file.path) },
      },
    );
  }

  options.signal?.throwIfAborted();
  await makeDir(partialDir);
  const context: DownloadContext = {
    fetch: options.fetch ?? fetch,
    signal: options.signal,
    onProgress: options.onProgress,
    stallTimeoutMs: options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS,
  };
  const installed: InstalledFile[] = [];
  let downloadedBytes = 0;
  for (const file of model.files) {
    const fetched = await obtainFile(model, file, partialDir, context);
    installed.push({ path: file.path, size: fetched.size, sha256: fetched.sha256 });
    downloadedBytes += fetched.downloaded;
  }

  const record: InstallRecord = {
    schema_version: 1,
    id: model.id,
    installed_at: nowIso(),
    files: installed,
    model,
  };
  writeBytesAtomic(
    `${partialDir}/${INSTALL_RECORD_FILE}`,
    new TextEncoder().encode(`${JSON.stringify(record, null, 2)}\n`),
  );
  try {
    await rename(partialDir, finalDir);
  } catch (error) {
    // Another `mema setup` may have finished the same model a moment earlier.
    const winner = readInstallRecord(options.modelsDir, model.id);
    if (winner) return alreadyInstalled(model, finalDir, winner);
    throw new MemaError("storage_error", `cannot move ${partialDir} to ${finalDir}: ${error}`, {
      cause: error,
    });
  }
  return {
    id: model.id,
    dir: finalDir,
    status: "installed",
    downloadedBytes,
    unverifiedFiles: unhashed.map((file) => file.path),
    matchesManifest: true,
  };
}

function alreadyInstalled(model: ModelEntry, dir: string, record: InstallRecord): InstallResult {
  return {
    id: model.id,
    dir,
    status: "already_installed",
    downloadedBytes: 0,
    unverifiedFiles: [],
    matchesManifest: recordMatchesManifest(record, model),
  };
}

/** Gets one file into place, from disk if already complete, else from each source in turn. */
async function obtainFile(
  model: ModelEntry,
  file: ModelFile,
  partialDir: string,
  context: DownloadContext,
): Promise<FetchedFile> {
  const target = `${partialDir}/${file.path}`;
  await makeDir(dirName(target));
  // A file of unknown size and hash cannot be told apart from a prefix of itself, so it is
  // downloaded under a temporary name and renamed when complete (even kill -9 cannot leave a
  // prefix at its path): one found at its path is complete or was put there by hand.
  const unchecked = file.size === null && file.sha256 === null;
  const writeTo = unchecked ? `${target}.download` : target;
  const onDisk = await fileSize(target);
  // A complete file left by an earlier run, or put there by hand, needs no network.
  if (onDisk > 0 && (file.size === null || onDisk === file.size)) {
    const sha256 = await hashFile(target);
    if (sha256 === file.sha256 || (file.sha256 === null && (unchecked || onDisk === file.size))) {
      if (unchecked) await removeFile(writeTo);
      context.onProgress?.({ file: file.path, received: onDisk, total: onDisk });
      return { size: onDisk, sha256, downloaded: 0 };
    }
    // Known size but wrong bytes: stale or corrupted. Unknown size: maybe a prefix, resumed below.
    if (file.size !== null) await removeFile(target);
  } else if (file.size !== null && onDisk > file.size) {
    await removeFile(target);
  }

  const sources = [file.url, ...(file.mirrors ?? [])];
  const failures: SourceReport[] = [];
  let integrity: IntegrityFailure | undefined;
  for (const url of sources) {
    try {
      const fetched = await downloadFrom(url, file, writeTo, context, !unchecked);
      if (unchecked) await moveFile(writeTo, target);
      return fetched;
    } catch (error) {
      if (error instanceof IntegrityFailure || unchecked) await removeFile(writeTo);
      if (context.signal?.aborted) throw context.signal.reason;
      // Disk trouble is not the source's fault; another mirror would fail the same way.
      if (isMemaError(error)) throw error;
      if (error instanceof IntegrityFailure) integrity = error;
      failures.push({
        url,
        kind: error instanceof SourceFailure ? error.kind : "corrupted",
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }
  if (integrity) {
    throw new MemaError(FILE_CORRUPTED, `model "${model.id}": ${integrity.message}`, {
      field: file.path,
      hint: "the corrupted file was deleted; install again to retry, " +
        "and if it keeps failing the source or the manifest entry is wrong",
      details: { ...integrity.details, failures },
    });
  }
  throw downloadFailed(model, file, failures, partialDir);
}

/**
 * Streams one source into `target`, resuming from the bytes already there when
 * the server honours Range. Returns the measured size and sha256 of the whole
 * file; throws SourceFailure (partial kept) or IntegrityFailure (partial bad).
 */
async function downloadFrom(
  url: string,
  file: ModelFile,
  target: string,
  context: DownloadContext,
  mayResume: boolean,
): Promise<FetchedFile> {
  const offset = mayResume ? await fileSize(target) : 0;
  const attempt = new AbortController();
  const signal = context.signal
    ? AbortSignal.any([context.signal, attempt.signal])
    : attempt.signal;
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  const armStallTimer = (): void => {
    clearTimeout(stallTimer);
    stallTimer = setTimeout(
      () =>
        attempt.abort(
          new SourceFailure("stalled", `no data for ${context.stallTimeoutMs} ms; bytes kept`),
        ),
      context.stallTimeoutMs,
    );
  };
  // identity: with transparent gzip, Range offsets would count compressed bytes, not file bytes.
  const headers: Record<string, string> = { "accept-encoding": "identity" };
  if (offset > 0) headers.range = `bytes=${offset}-`;

  let response: Response;
  armStallTimer();
  try {
    response = await context.fetch(url, { headers, signal, redirect: "follow" });
  } catch (error) {
    clearTimeout(stallTimer);
    if (attempt.signal.aborted) throw attempt.signal.reason;
    throw new SourceFailure(
      "connect",
      `cannot connect: ${error instanceof Error ? error.message : error}`,
    );
  }

  try {
    let resumeFrom = 0;
    let total: number | null = file.size;
    if (response.status === 206 && offset > 0) {
      const range = parseContentRange(response.headers.get("content-range"));
      if (range?.start !== offset) {
        // A range we did not ask for cannot be appended; fetch the whole file instead.
        await response.body?.cancel();
        clearTimeout(stallTimer);
        await removeFile(target);
        return await downloadFrom(url, file, target, context, false);
      }
      resumeFrom = offset;
      total ??= range.total;
      if (range.total !== null && file.size !== null && range.total !== file.size) {
        await response.body?.cancel();
        throw wrongSize(range.total, file.size);
      }
    } else if (response.status === 416 && offset > 0) {
      await response.body?.cancel();
      const range = parseContentRange(response.headers.get("content-range"));
      // Nothing left to send: the partial file is already the whole file (size unknown case).
      if (range?.total === offset) {
        return { size: offset, sha256: await hashFile(target), downloaded: 0 };
      }
      clearTimeout(stallTimer);
      await removeFile(target);
      return await downloadFrom(url, file, target, context, false);
    } else if (response.status !== 200) {
      await response.body?.cancel();
      throw new SourceFailure("http", `HTTP ${response.status}`);
    } else {
      // 200 (also the answer of a server that ignores Range): the body is the whole file.
      const length = contentLength(response);
      total ??= length;
      if (length !== null && file.size !== null && length !== file.size) {
        await response.body?.cancel();
        throw wrongSize(length, file.size);
      }
    }
    if (response.body === null) throw new SourceFailure("http", "empty response body");

    const hash = createHash("sha256");
    if (resumeFrom > 0) await feedFile(target, hash, resumeFrom);
    const handle = await openForWrite(target, resumeFrom > 0 ? "a" : "w");
    let received = resumeFrom;
    try {
      context.onProgress?.({ file: file.path, received, total });
      for await (const chunk of response.body) {
        armStallTimer();
        received += chunk.byteLength;
        if (file.size !== null && received > file.size) {
          throw new IntegrityFailure(
            `${file.path} from ${url} is larger than the ${file.size} bytes the manifest expects`,
            { file: file.path, url, expected_size: file.size, actual_size_at_least: received },
          );
        }
        hash.update(chunk);
        await writeAll(handle, chunk, target);
        context.onProgress?.({ file: file.path, received, total });
      }
      // Flushed before the directory rename makes the install look complete.
      await handle.sync().catch((error) => {
        throw storageError(`cannot flush ${target}`, error);
      });
    } catch (error) {
      if (error instanceof IntegrityFailure || isMemaError(error)) throw error;
      if (context.signal?.aborted) throw context.signal.reason;
      if (attempt.signal.aborted) throw attempt.signal.reason;
      throw new SourceFailure(
        "interrupted",
        `connection lost after ${received}${total === null ? "" : ` of ${total}`} bytes ` +
          `(${error instanceof Error ? error.message : error}); the bytes are kept for resuming`,
      );
    } finally {
      await handle.close();
    }
    if (total !== null && received < total) {
      throw new SourceFailure(
        "interrupted",
        `response ended after ${received} of ${total} bytes; the bytes are kept for resuming`,
      );
    }
    const sha256 = hash.digest("hex");
    if (file.sha256 !== null && sha256 !== file.sha256) {
      throw new IntegrityFailure(
        `${file.path} from ${url} is corrupted: sha256 expected ${file.sha256}, got ${sha256}`,
        { file: file.path, url, expected_sha256: file.sha256, actual_sha256: sha256 },
      );
    }
    return { size: received, sha256, downloaded: received - resumeFrom };
  } finally {
    clearTimeout(stallTimer);
  }
}

function wrongSize(served: number, expected: number): SourceFailure {
  return new SourceFailure(
    "wrong_size",
    `serves ${served} bytes, the manifest expects ${expected}`,
  );
}

interface ContentRange {
  start: number | null;
  total: number | null;
}

// "bytes 100-199/200" gives start 100 and total 200; "bytes *\/200" (416) gives the total only.
function parseContentRange(value: string | null): ContentRange | undefined {
  const match = value?.match(/^bytes\s+(?:(\d+)-\d+|\*)\/(\d+|\*)$/i);
  if (!match) return undefined;
  return {
    start: match[1] === undefined ? null : Number(match[1]),
    total: match[2] === "*" ? null : Number(match[2]),
  };
}

function contentLength(response: Response): number | null {
  const value = response.headers.get("content-length");
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

/** The manual-steps error: where each file comes from, where it goes, what to check. */
function downloadFailed(
  model: ModelEntry,
  file: ModelFile,
  failures: SourceReport[],
  partialDir: string,
): MemaError {
  const offline = failures.every((failure) => failure.kind === "connect");
  const reasons = failures.map((failure) => `${failure.url}: ${failure.reason}`).join("; ");
  const headline = offline
    ? `model "${model.id}": no download source for ${file.path} is reachable (offline?)`
    : `model "${model.id}": could not download ${file.path}`;
  return new MemaError(DOWNLOAD_FAILED, `${headline}: ${reasons}`, {
    field: file.path,
    hint: manualSteps(model, partialDir),
    details: {
      offline,
      failures,
      manual_steps: model.files.map((entry) => ({
        path: entry.path,
        destination: `${partialDir}/${entry.path}`,
        urls: [entry.url, ...(entry.mirrors ?? [])],
        size: entry.size,
        sha256: entry.sha256,
      })),
    },
  });
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Shell steps that do by hand what the installer does: the files go into the
 * `.partial` directory, and the next install run verifies and finishes without
 * network because every file is already complete.
 */
function manualSteps(model: ModelEntry, partialDir: string): string {
  const lines = [
    "install by hand: download each file into the partial directory, check it, then run the " +
    "install again (it verifies the files and finishes without network):",
  ];
  const dirs = new Set(model.files.map((file) => dirName(`${partialDir}/${file.path}`)));
  lines.push(`  mkdir -p ${[...dirs].map(shellQuote).join(" ")}`);
  for (const file of model.files) {
    const destination = `${partialDir}/${file.path}`;
    lines.push(`  curl -fL -C - -o ${shellQuote(destination)} ${shellQuote(file.url)}`);
    for (const mirror of file.mirrors ?? []) lines.push(`    (or from ${mirror})`);
  }
  for (const file of model.files) {
    const destination = shellQuote(`${partialDir}/${file.path}`);
    const expected = file.sha256 === null
      ? "no sha256 recorded: needs --allow-unverified"
      : `must print ${file.sha256}${file.size === null ? "" : ` (${file.size} bytes)`}`;
    lines.push(`  sha256sum ${destination}   # ${expected}`);
  }
  const unverified = model.files.some((file) => file.sha256 === null) ? " --allow-unverified" : "";
  lines.push(`  mema setup --install --model ${model.id}${unverified}`);
  return lines.join("\n");
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return 0;
    throw storageError(`cannot read ${path}`, error);
  }
}

/** Feeds the file (or its first `limit` bytes) into `hash` in chunks, never whole in memory. */
async function feedFile(path: string, hash: Hash, limit?: number): Promise<void> {
  const stream = createReadStream(path, limit === undefined ? {} : { end: limit - 1 });
  try {
    for await (const chunk of stream) hash.update(chunk as Uint8Array);
  } catch (error) {
    throw storageError(`cannot read ${path}`, error);
  }
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  await feedFile(path, hash);
  return hash.digest("hex");
}

async function openForWrite(path: string, flags: "a" | "w"): Promise<FileHandle> {
  try {
    return await open(path, flags);
  } catch (error) {
    throw storageError(`cannot write ${path}`, error);
  }
}

async function writeAll(handle: FileHandle, chunk: Uint8Array, path: string): Promise<void> {
  let written = 0;
  try {
    while (written < chunk.byteLength) {
      const { bytesWritten } = await handle.write(chunk, written, chunk.byteLength - written);
      written += bytesWritten;
    }
  } catch (error) {
    throw storageError(`cannot write ${path}`, error);
  }
}

async function makeDir(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
  } catch (error) {
    throw storageError(`cannot create ${path}`, error);
  }
}

async function removeFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    throw storageError(`cannot move ${from} to ${to}`, error);
  }
}

function storageError(reason: string, cause: unknown): MemaError {
  return new MemaError("storage_error", `${reason}: ${cause}`, {
    hint: "check free disk space and permissions of the models directory",
    cause,
  });
}
