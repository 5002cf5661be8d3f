/**
 * Real storage failures for tests: a small tmpfs that can be filled up (SQLite
 * then fails writes with "database or disk is full") or remounted read-only
 * (EROFS, which even root cannot write through, unlike file permissions).
 * Mounting needs root; tests that use these helpers are ignored elsewhere.
 * @module
 */
import { makeTempHome, type TempHome } from "./server.ts";

/** Runs a command; true when it exits 0. */
export function run(command: string, args: string[]): boolean {
  try {
    return new Deno.Command(command, { args, stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

/** True when this process may mount a tmpfs (root, with mount available). */
export function canMountTmpfs(): boolean {
  const probe = Deno.makeTempDirSync({ prefix: "mema-mount-probe-" });
  const mounted = run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]);
  if (mounted) run("umount", [probe]);
  Deno.removeSync(probe, { recursive: true });
  return mounted;
}

/** Mounts a tmpfs of `size` (e.g. "3m") on the existing directory `dir`. */
export function mountTmpfs(dir: string, size: string): void {
  if (!run("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir])) {
    throw new Error(`cannot mount a tmpfs on ${dir}`);
  }
}

/**
 * Remounts `dir` read-only or read-write. A read-only remount fails (EBUSY) while
 * a file on it is open for writing, as when a server that was just told to stop
 * has not exited yet; it is retried until that process is gone.
 */
export async function remount(dir: string, mode: "ro" | "rw"): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (run("mount", ["-o", `remount,${mode}`, dir])) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`cannot remount ${dir} ${mode}`);
}

/** Unmounts `dir`, waiting for processes that still hold files on it. */
export async function unmount(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (run("umount", [dir])) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Fills the file system holding `dir` with one large file named `filler`. */
export function fillDisk(dir: string): void {
  try {
    Deno.writeFileSync(`${dir}/filler`, new Uint8Array(64 * 1024 * 1024));
  } catch (error) {
    if (!String(error).includes("No space left")) throw error;
  }
}

/** Frees the file system {@linkcode fillDisk} filled: removes its `filler` file from `dir`. */
export function freeDisk(dir: string): void {
  Deno.removeSync(`${dir}/filler`);
}

/** A temp home with a tmpfs mounted on its `disk` directory. */
export interface TmpfsHome {
  home: TempHome;
  /** The mounted directory, `<home>/disk`. */
  disk: string;
  /** Unmounts `disk`, then removes the home. */
  cleanup(): Promise<void>;
}

/** Creates a temp home and mounts a tmpfs of `size` (e.g. "3m") on `<home>/disk`. */
export function makeTmpfsHome(size: string): TmpfsHome {
  const home = makeTempHome();
  const disk = `${home.dir}/disk`;
  Deno.mkdirSync(disk);
  mountTmpfs(disk, size);
  return {
    home,
    disk,
    async cleanup() {
      await unmount(disk);
      home.cleanup();
    },
  };
}
