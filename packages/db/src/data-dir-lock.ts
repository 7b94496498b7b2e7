/**
 * One process per PGlite folder. PGlite has no lock of its own: two processes
 * on one folder both start, overwrite each other's pages and lose
 * acknowledged writes (or abort). The lock is `crux.lock` in the folder,
 * created with O_EXCL and holding the owner's pid, host and process start
 * identity, the scheme Postgres uses for postmaster.pid:
 *
 * - a lock whose process is gone (SIGKILL, crash, power loss) is stale and
 *   taken over at once; liveness is asked of the kernel (kill(pid, 0)), and on
 *   Linux the process's boot id and start time rule out a reused pid;
 * - a lock written on another host (a shared volume) cannot be checked from
 *   here and is respected; the error says which file to delete.
 *
 * Not a heartbeat lock (lock dir + mtime refresh, as proper-lockfile does):
 * PGlite runs on the main thread and blocks the event loop for seconds (initdb,
 * long queries), so a refresh timer would fall behind and a live lock would
 * look stale; and a killed owner would block restarts until the lock aged out.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";

export const dataDirLockFileName = "crux.lock";

interface LockOwner {
  pid: number;
  host: string;
  /** `<boot id>/<start time in clock ticks>` on Linux; absent elsewhere. */
  started?: string;
}

/** The folder is in use by another live process (or one on another host). */
export class DataDirLockedError extends Error {
  override readonly name = "DataDirLockedError";
  constructor(
    readonly dataDir: string,
    readonly lockFile: string,
    readonly owner: { pid?: number; host?: string; sameHost: boolean },
  ) {
    const who = owner.pid === undefined ? "another process" : owner.sameHost ? `pid ${owner.pid}` : `pid ${owner.pid} on host ${owner.host}`;
    super(`data folder ${dataDir} is in use by another Crux (${who})`);
  }
}

export interface DataDirLock {
  readonly lockFile: string;
  /** Removes the lock file if it is still ours. Safe to call twice. */
  release(): void;
}

/** Locks held by this process (absolute folder path), so a second open in-process is refused too. */
const heldHere = new Set<string>();

export function lockDataDir(dataDir: string): DataDirLock {
  const dir = resolve(dataDir);
  const lockFile = join(dir, dataDirLockFileName);
  if (heldHere.has(dir)) throw new DataDirLockedError(dir, lockFile, { pid: process.pid, host: hostname(), sameHost: true });
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), started: startIdentity(process.pid) } satisfies LockOwner);

  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(lockFile, mine)) {
      heldHere.add(dir);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        heldHere.delete(dir);
        process.off("exit", release);
        // Only our own file: after a takeover race it may belong to someone else.
        try {
          if (readText(lockFile) === mine) unlinkQuietly(lockFile);
        } catch {
          // The folder went away or became unreadable: nothing left to release.
        }
      };
      // An exit without close() (process.exit on a fatal error) still frees the folder.
      process.on("exit", release);
      return { lockFile, release };
    }
    const seen = readSettled(lockFile);
    if (seen === undefined) continue; // released meanwhile: try again
    const owner = parseOwner(seen);
    if (owner && isAlive(owner)) {
      throw new DataDirLockedError(dir, lockFile, { pid: owner.pid, host: owner.host, sameHost: owner.host === hostname() });
    }
    takeOverStale(lockFile, seen);
  }
  throw new DataDirLockedError(dir, lockFile, { sameHost: true });
}

function tryCreate(lockFile: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockFile, "wx");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Removes a stale lock without ever removing a fresh one: two starts can find
 * the same stale file, and the slower one must not delete the lock the faster
 * one has just created. The file is renamed away first (atomic; only one
 * rename of a given file succeeds) and checked: if what was moved is not the
 * stale content seen, it is put back with link() (which never overwrites).
 */
function takeOverStale(lockFile: string, staleContent: string): void {
  const aside = `${lockFile}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(lockFile, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  if (readText(aside) !== staleContent) {
    try {
      linkSync(aside, lockFile);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  unlinkQuietly(aside);
}

function isAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true; // cannot be checked from this host
  // Our own pid, not held by us: a previous run that had the same pid (a restarted container).
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
    // EPERM: the process exists under another user.
  }
  const current = startIdentity(owner.pid);
  return !(current !== undefined && owner.started !== undefined && current !== owner.started);
}

let bootId: string | undefined | null = null;

/** Linux: boot id + start time (field 22 of /proc/<pid>/stat), unique per process across reboots. */
function startIdentity(pid: number): string | undefined {
  if (process.platform !== "linux") return undefined;
  if (bootId === null) bootId = readText("/proc/sys/kernel/random/boot_id")?.trim();
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat || !bootId) return undefined;
  // The command name (field 2) is in parentheses and may contain spaces: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const startTicks = fields[19];
  return startTicks ? `${bootId}/${startTicks}` : undefined;
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockOwner>;
    if (typeof v.pid === "number" && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === "string") {
      return { pid: v.pid, host: v.host, ...(typeof v.started === "string" ? { started: v.started } : {}) };
    }
  } catch {
    // fall through
  }
  // Empty or unreadable: the owner died between creating and writing it (the write is one small
  // write right after the create), or someone else wrote it. Either way nothing can be verified.
  return undefined;
}

/** The lock's content; an empty file is read again after a moment (its owner may be between create and write). */
function readSettled(lockFile: string): string | undefined {
  const first = readText(lockFile);
  if (first !== "") return first;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  return readText(lockFile);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}
