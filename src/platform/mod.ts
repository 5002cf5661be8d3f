/**
 * The one place domain code reaches the runtime: environment, files, clock and
 * logging. Everything else imports these functions instead of calling `Deno.*`,
 * so the domain stays runtime-neutral and tests can reason about side effects.
 *
 * @example
 * ```ts
 * import { envVar, logWarn } from "./src/platform/mod.ts";
 * if (!envVar("HOME")) logWarn("HOME is not set");
 * ```
 * @module
 */
import { userInfo } from "node:os";

/** Reads an environment variable; an empty string counts as unset. */
export function envVar(name: string): string | undefined {
  const value = Deno.env.get(name);
  return value === undefined || value === "" ? undefined : value;
}

/** The user's home directory, or the current directory when HOME is unset. */
export function homeDir(): string {
  return envVar("HOME") ?? envVar("USERPROFILE") ?? Deno.cwd();
}

/** True when a file or directory exists at `path`. */
export function pathExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The permission bits of a file (`0o600` …), or undefined when it does not exist or the system
 * has no modes (Windows).
 */
export function filePermissions(path: string): number | undefined {
  try {
    const mode = Deno.statSync(path).mode;
    return mode === null ? undefined : mode & 0o777;
  } catch {
    return undefined;
  }
}

/** Reads a UTF-8 text file, or returns undefined when it does not exist. */
export function readTextIfExists(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Creates a directory and its parents; does nothing when it exists. */
export function ensureDir(path: string): void {
  Deno.mkdirSync(path, { recursive: true });
}

/** Reads a whole file as bytes. */
export function readBytes(path: string): Uint8Array {
  return Deno.readFileSync(path);
}

/** Writes bytes atomically: a temporary sibling first, then a rename. */
export function writeBytesAtomic(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.tmp-${Deno.pid}-${crypto.randomUUID()}`;
  Deno.writeFileSync(temporary, bytes);
  Deno.renameSync(temporary, path);
}

/** True when the current process may write into `dir` (checked without writing a file). */
export function isDirWritable(dir: string): boolean {
  try {
    const probe = `${dir}/.mema-write-probe-${Deno.pid}-${crypto.randomUUID()}`;
    Deno.writeFileSync(probe, new Uint8Array());
    Deno.removeSync(probe);
    return true;
  } catch {
    return false;
  }
}

/** True when the file at `path` can be opened for writing. */
export function isFileWritable(path: string): boolean {
  try {
    const file = Deno.openSync(path, { write: true });
    file.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the file at `path` cannot be opened for writing ("Read-only file system
 * (os error 30)", "Permission denied …"), or undefined when it can.
 */
export function writeRefusal(path: string): string | undefined {
  try {
    Deno.openSync(path, { write: true }).close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** When a file was last modified (ms since the epoch), or undefined when it does not exist. */
export function modifiedAt(path: string): number | undefined {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch {
    return undefined;
  }
}

/** A file kept open to flush its written data to disk without blocking the thread. */
export interface DataSyncHandle {
  /** Flushes what was written to the file (through any handle) to stable storage. */
  sync(): Promise<void>;
  close(): void;
}

/** Opens `path` for {@linkcode DataSyncHandle.sync}; undefined when it cannot be opened. */
export function openDataSync(path: string): DataSyncHandle | undefined {
  try {
    // Opened for writing (nothing is written): Windows flushes only handles that may write.
    const file = Deno.openSync(path, { read: true, write: true });
    return {
      sync: () => file.syncData(),
      close: () => {
        try {
          file.close();
        } catch {
          // Already closed.
        }
      },
    };
  } catch {
    return undefined;
  }
}

/** The size of the file at `path` in bytes, or undefined when it does not exist. */
export function fileSize(path: string): number | undefined {
  try {
    return Deno.statSync(path).size;
  } catch {
    return undefined;
  }
}

/** The directory part of a path. */
export function dirName(path: string): string {
  const index = path.lastIndexOf("/");
  if (index < 0) return ".";
  if (index === 0) return "/";
  return path.slice(0, index);
}

/** The current time as an ISO 8601 UTC string with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Blocks the current thread for `ms` milliseconds (used between SQLITE_BUSY retries). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Writes a diagnostic line to stderr. Never stdout: in stdio mode stdout carries
 * only MCP protocol frames.
 */
export function logWarn(message: string): void {
  console.error(`mema: warning: ${message}`);
}

/** Writes an informational line to stderr. */
export function logInfo(message: string): void {
  console.error(`mema: ${message}`);
}

/** The process id, for lease owners and temporary names. */
export function processId(): number {
  return Deno.pid;
}

/**
 * Appends one line to a file and syncs it to disk before returning, so an
 * acknowledged append survives a crash. The line is all or nothing: when the
 * write fails part way (disk full, I/O error) the bytes it got onto the file are
 * cut off again before the error is thrown. A torn last line left by a process
 * that died mid-append is skipped past (the new line starts on a fresh line), so
 * it never swallows the next entry; readers report it as unreadable. Appenders
 * of several processes take an exclusive lock on the file for the check, the
 * write and the cut (without locks, as on some network file systems, nothing is
 * cut: another process's line may follow). `line` may instead be composed from the
 * file's current text, read under that lock.
 */
export function appendLineDurable(
  path: string,
  line: string | ((current: string) => string),
): void {
  const created = !pathExists(path);
  const { file, locked } = openLockedCurrent(path);
  try {
    const end = file.seekSync(0, Deno.SeekMode.End);
    // A line that depends on the file's lines is composed under the lock, so a line another
    // process appends cannot slip in between reading the file and appending to it.
    const text = typeof line === "string" ? line : line(readFrom(file, end));
    const bytes = new TextEncoder().encode(`${endsTorn(file, end) ? "\n" : ""}${text}\n`);
    try {
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
      file.syncSync();
    } catch (error) {
      // Unlocked, another process may have appended after `end`: leave the tail to be skipped.
      if (locked) cutBackQuietly(file, end);
      throw error;
    }
  } finally {
    file.close();
  }
  // A new file's name lives in its directory: sync that too, or a crash can lose the file.
  if (created) syncDirQuietly(dirName(path));
}

/** The first `size` bytes of an open file, as text (the file position is left at the end). */
function readFrom(file: Deno.FsFile, size: number): string {
  const bytes = new Uint8Array(size);
  file.seekSync(0, Deno.SeekMode.Start);
  let read = 0;
  while (read < size) {
    const n = file.readSync(bytes.subarray(read));
    if (n === null) break;
    read += n;
  }
  file.seekSync(0, Deno.SeekMode.End);
  return new TextDecoder().decode(bytes.subarray(0, read));
}

/** How often an appender reopens a file that {@linkcode rewriteLinesDurable} replaced meanwhile. */
const REPLACED_FILE_RETRIES = 8;

/**
 * Opens `path` for appending and locks it. A rewrite replaces the file by a rename while
 * holding the old file's lock, so an appender that got that lock afterwards holds a file
 * that no longer has the name: it opens the name again (else its line would go to the
 * unlinked file and be lost).
 */
function openLockedCurrent(
  path: string,
  mode: "append" | "rewrite" = "append",
): { file: Deno.FsFile; locked: boolean } {
  for (let attempt = 0;; attempt++) {
    const file = Deno.openSync(
      path,
      mode === "append" ? { read: true, append: true, create: true } : { read: true, write: true },
    );
    const locked = lockQuietly(file);
    if (!locked || attempt >= REPLACED_FILE_RETRIES || sameFile(file, path)) {
      return { file, locked };
    }
    file.close();
  }
}

function sameFile(file: Deno.FsFile, path: string): boolean {
  try {
    const open = file.statSync();
    const named = Deno.statSync(path);
    return open.ino === null || (open.ino === named.ino && open.dev === named.dev);
  } catch {
    return false;
  }
}

/**
 * Rewrites a line file keeping only the lines `keep` accepts, atomically: under the
 * same exclusive lock appenders take, the kept lines go to a temporary sibling that is
 * synced and renamed over the file, and the directory is synced. The old file's bytes
 * are then overwritten with zeros and synced before it is closed, so the removed lines
 * do not stay readable in its blocks (on file systems that write in place). Returns the
 * number of lines removed; a missing file removes nothing.
 */
export function rewriteLinesDurable(path: string, keep: (line: string) => boolean): number {
  if (!pathExists(path)) return 0;
  const { file, locked } = openLockedCurrent(path, "rewrite");
  try {
    const size = file.seekSync(0, Deno.SeekMode.End);
    file.seekSync(0, Deno.SeekMode.Start);
    const bytes = new Uint8Array(size);
    let read = 0;
    while (read < size) {
      const n = file.readSync(bytes.subarray(read));
      if (n === null) break;
      read += n;
    }
    const text = new TextDecoder().decode(bytes.subarray(0, read));
    const lines = text.split("\n");
    const tail = lines.pop() ?? "";
    const kept = lines.filter((line) => line === "" || keep(line));
    const keptTail = tail === "" || keep(tail) ? tail : "";
    const removed = lines.length - kept.length + (keptTail === tail ? 0 : 1);
    if (removed === 0) return 0;
    const next = kept.map((line) => `${line}\n`).join("") + keptTail;
    const temporary = `${path}.tmp-${Deno.pid}-${crypto.randomUUID()}`;
    const out = Deno.openSync(temporary, { write: true, createNew: true });
    try {
      const encoded = new TextEncoder().encode(next);
      let written = 0;
      while (written < encoded.length) written += out.writeSync(encoded.subarray(written));
      out.syncSync();
    } catch (error) {
      out.close();
      Deno.removeSync(temporary);
      throw error;
    }
    out.close();
    Deno.renameSync(temporary, path);
    syncDirQuietly(dirName(path));
    zeroQuietly(file, read);
    return removed;
  } finally {
    if (locked) file.unlockSync();
    file.close();
  }
}

/** Overwrites the first `size` bytes of a file with zeros and syncs it. */
function zeroQuietly(file: Deno.FsFile, size: number): void {
  try {
    const zeros = new Uint8Array(Math.min(size, 1 << 20));
    file.truncateSync(size);
    let at = 0;
    while (at < size) {
      file.seekSync(at, Deno.SeekMode.Start);
      at += file.writeSync(zeros.subarray(0, Math.min(zeros.length, size - at)));
    }
    file.syncSync();
  } catch {
    // The file is already replaced; zeroing is a courtesy to the disk's free blocks.
  }
}

/** Takes an exclusive lock on the file; false where the file system has no locks. */
function lockQuietly(file: Deno.FsFile): boolean {
  try {
    file.lockSync(true);
    return true;
  } catch {
    return false;
  }
}

/** True when the file has content that does not end with a newline. */
function endsTorn(file: Deno.FsFile, end: number): boolean {
  if (end === 0) return false;
  const last = new Uint8Array(1);
  file.seekSync(end - 1, Deno.SeekMode.Start);
  return file.readSync(last) === 1 && last[0] !== 0x0a;
}

/** Truncates back to `size`; if even that fails, the next append skips past the tail. */
function cutBackQuietly(file: Deno.FsFile, size: number): void {
  try {
    file.truncateSync(size);
    file.syncSync();
  } catch {
    // The torn tail stays; appendLineDurable starts the next line after it.
  }
}

function syncDirQuietly(dir: string): void {
  try {
    const handle = Deno.openSync(dir, { read: true });
    try {
      handle.syncSync();
    } finally {
      handle.close();
    }
  } catch {
    // Not every platform can open a directory; the file itself is synced.
  }
}

/** True inside a `deno compile` binary (files under node_modules are then virtual). */
export function isCompiledBinary(): boolean {
  return Deno.build.standalone === true;
}

/** Names of the entries of a directory (real or a compiled binary's virtual one). */
export function listDir(path: string): string[] {
  return [...Deno.readDirSync(path)].map((entry) => entry.name);
}

const preloaded: Deno.DynamicLibrary<Record<string, never>>[] = [];

/**
 * Loads a shared library into the process without binding symbols, and keeps it loaded, so
 * that a later dlopen of a library that needs it (by soname) finds it already in memory.
 */
export function preloadSharedLibrary(path: string): void {
  preloaded.push(Deno.dlopen(path, {}));
}

/** What a path names: a file, a directory, or nothing (missing or another kind). */
export function pathKind(path: string): "file" | "directory" | undefined {
  try {
    const info = Deno.statSync(path);
    return info.isFile ? "file" : info.isDirectory ? "directory" : undefined;
  } catch {
    return undefined;
  }
}

/** One entry of a directory as {@linkcode listEntries} reports it. */
export interface DirEntry {
  name: string;
  /** What the entry is; for a symbolic link, what it points to (undefined when dangling). */
  kind: "file" | "directory" | undefined;
  /** True for a symbolic link (its `kind` is then its target's). */
  link: boolean;
}

/**
 * The entries of a directory, sorted by name: files, directories and symbolic links (with
 * their target's kind). Other kinds (sockets, devices, fifos) are left out.
 */
export function listEntries(path: string): DirEntry[] {
  const entries: DirEntry[] = [];
  for (const entry of Deno.readDirSync(path)) {
    if (entry.isSymlink) {
      entries.push({ name: entry.name, kind: pathKind(`${path}/${entry.name}`), link: true });
    } else if (entry.isFile || entry.isDirectory) {
      entries.push({ name: entry.name, kind: entry.isFile ? "file" : "directory", link: false });
    }
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The canonical path of `path`: absolute, every symbolic link resolved. Undefined when it
 * cannot be resolved (a dangling link, a link loop, no permission).
 */
export function realPathOf(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/** Where a symbolic link points, as written in the link; undefined when `path` is not one. */
export function linkTarget(path: string): string | undefined {
  try {
    return Deno.readLinkSync(path);
  } catch {
    return undefined;
  }
}

/** Reads a UTF-8 text file; invalid UTF-8 is an error, never silently replaced. */
export function readTextStrict(path: string): string {
  return new TextDecoder("utf-8", { fatal: true }).decode(Deno.readFileSync(path));
}

/** Writes a UTF-8 text file atomically (temporary sibling, then rename). */
export function writeTextAtomic(path: string, text: string): void {
  writeBytesAtomic(path, new TextEncoder().encode(text));
}

/** True when stderr is a terminal (progress bars redraw there; logs get plain lines). */
export function stderrIsTerminal(): boolean {
  return Deno.stderr.isTerminal();
}

/** An absolute, normalized form of `path` (relative to the working directory). */
export function absolutePath(path: string): string {
  const joined = path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
  const parts: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** A text file written piece by piece that appears under its name only once complete. */
export interface TextFileWriter {
  write(text: string): void;
  /** Syncs and renames the temporary file into place. */
  commit(): void;
  /** Removes the temporary file; the target is left as it was. */
  abort(): void;
}

/** Starts writing `path` through a temporary sibling (see {@linkcode TextFileWriter}). */
export function openTextWriter(path: string): TextFileWriter {
  const temporary = `${path}.tmp-${Deno.pid}-${crypto.randomUUID()}`;
  const file = Deno.openSync(temporary, { write: true, createNew: true });
  const encoder = new TextEncoder();
  let open = true;
  const close = () => {
    if (open) file.close();
    open = false;
  };
  return {
    write(text) {
      const bytes = encoder.encode(text);
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
    },
    commit() {
      file.syncSync();
      close();
      Deno.renameSync(temporary, path);
    },
    abort() {
      close();
      try {
        Deno.removeSync(temporary);
      } catch { /* already gone */ }
    },
  };
}

/** The executable running this process (the compiled `mema`, or `deno`). */
export function executablePath(): string {
  return Deno.execPath();
}

/** The Deno version running this process, e.g. "2.9.6". */
export function runtimeVersion(): string {
  return Deno.version.deno;
}

/** The first executable file called `name` in a PATH directory (or in `extraDirs`), if any. */
export function findExecutable(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(envVar("PATH") ?? "").split(":").filter(Boolean), ...extraDirs];
  for (const dir of dirs) {
    const path = `${dir.replace(/\/$/, "")}/${name}`;
    try {
      const info = Deno.statSync(path);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return path;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** The name of the operating-system user running this process ("user" when none is known). */
export function osUserName(): string {
  const fromEnv = envVar("USER") ?? envVar("LOGNAME") ?? envVar("USERNAME");
  if (fromEnv) return fromEnv;
  try {
    return userInfo().username || "user";
  } catch {
    return "user";
  }
}

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

/** Removes a file; a file that is not there is fine. */
export function removeFileIfExists(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** True when stdin is a terminal (a person can answer a question). */
export function stdinIsTerminal(): boolean {
  return Deno.stdin.isTerminal();
}

/** Asks a yes/no question on the terminal; anything but y/yes is no. */
export function confirmOnTerminal(question: string): boolean {
  const answer = prompt(`${question} [y/N]`);
  return answer !== null && /^y(es)?$/i.test(answer.trim());
}

/** What `runProcess` saw: exit status and the captured output. */
export interface ProcessOutcome {
  success: boolean;
  code: number;
  output: string;
}

/** Runs a program to completion with stdin closed, capturing stdout and stderr together. */
export async function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<ProcessOutcome> {
  const result = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    success: result.success,
    code: result.code,
    output: decoder.decode(result.stdout) + decoder.decode(result.stderr),
  };
}

/** Copies a file (overwriting the target). */
export function copyFile(source: string, target: string): void {
  Deno.copyFileSync(source, target);
}

/**
 * What identifies one version of a file: inode, size and modification time, or undefined
 * when it does not exist. An atomic rewrite (a new inode) changes it even within one mtime tick.
 */
export function fileSignature(path: string): string | undefined {
  try {
    const info = Deno.statSync(path);
    return `${info.ino ?? ""}:${info.size}:${info.mtime?.getTime() ?? 0}`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * Writes a UTF-8 text file atomically, readable and writable by its owner only (0600 where the
 * system has modes): for files that guard access, which other local users have no business reading.
 */
export function writeTextPrivateAtomic(path: string, text: string): void {
  const temporary = `${path}.tmp-${Deno.pid}-${crypto.randomUUID()}`;
  Deno.writeTextFileSync(temporary, text, { mode: 0o600 });
  try {
    Deno.renameSync(temporary, path);
  } catch (error) {
    removeFileIfExists(temporary);
    throw error;
  }
}

/**
 * Creates `path` only if it does not exist (the atomic test-and-set a lock file needs).
 * True when this call created it; false when it was already there.
 */
export function createFileExclusive(path: string): boolean {
  try {
    Deno.openSync(path, { write: true, createNew: true }).close();
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    throw error;
  }
}

/**
 * Creates a new, empty directory inside `dir` (the system's temporary directory when undefined)
 * with a unique name starting with `prefix`.
 */
export function makeTempDirIn(dir: string | undefined, prefix: string): string {
  return Deno.makeTempDirSync({ dir, prefix });
}

/** Renames (moves) a file or directory within one file system; replaces a file at `to`. */
export function renamePath(from: string, to: string): void {
  Deno.renameSync(from, to);
}

/** Removes a directory and everything in it; one that is not there is fine. */
export function removeTreeIfExists(path: string): void {
  try {
    Deno.removeSync(path, { recursive: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
