/**
 * The data-folder lock against real processes: a live holder is refused (with
 * its pid), a killed one is taken over at once, a reused pid is told apart by
 * its start time, and racing starts on a stale lock end with one owner.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { DataDirLockedError, dataDirLockFileName, lockDataDir } from "../src/data-dir-lock.ts";

const holderScript = fileURLToPath(new URL("./lock-holder.ts", import.meta.url));
const folders: string[] = [];
const children: ChildProcess[] = [];

function tempFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "crux-lock-"));
  folders.push(dir);
  return dir;
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts a lock holder on `dir`; resolves with its first line ("locked" or "refused …"). */
function startHolder(dir: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", holderScript, dir], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve({ child, line: out.slice(0, nl) });
    });
    child.on("exit", (code) => reject(new Error(`lock holder exited (${code}) before answering: ${out}`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once("exit", () => r()));
}

function lockOf(dir: string): { pid: number; host: string; started?: string } {
  return JSON.parse(readFileSync(join(dir, dataDirLockFileName), "utf8"));
}

describe("data folder lock", () => {
  it("refuses a second lock in the same process and frees the folder on release", () => {
    const dir = tempFolder();
    const lock = lockDataDir(dir);
    expect(lockOf(dir).pid).toBe(process.pid);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    lock.release();
    expect(existsSync(join(dir, dataDirLockFileName))).toBe(false);
    lockDataDir(dir).release();
  });

  it("refuses while another live process holds it, naming its pid; takes over at once after that process is SIGKILLed", async () => {
    const dir = tempFolder();
    const { child, line } = await startHolder(dir);
    expect(line).toBe("locked");
    const error = (() => {
      try {
        lockDataDir(dir);
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect((error as DataDirLockedError).owner.pid).toBe(child.pid);
    expect((error as Error).message).toContain(`pid ${child.pid}`);

    child.kill("SIGKILL");
    await exited(child);
    expect(lockOf(dir).pid).toBe(child.pid); // left behind, as after a crash
    const lock = lockDataDir(dir);
    expect(lockOf(dir).pid).toBe(process.pid);
    lock.release();
  });

  it("releases on SIGTERM shutdown, so the next holder starts", async () => {
    const dir = tempFolder();
    const first = await startHolder(dir);
    first.child.kill("SIGTERM");
    await exited(first.child);
    expect(first.child.exitCode).toBe(0);
    expect(existsSync(join(dir, dataDirLockFileName))).toBe(false);
    expect((await startHolder(dir)).line).toBe("locked");
  });

  it.runIf(process.platform === "linux")("treats a live pid with another start time as a reused pid (stale)", async () => {
    const dir = tempFolder();
    const { child } = await startHolder(tempFolder()); // any live process of ours
    writeFileSync(join(dir, dataDirLockFileName), JSON.stringify({ pid: child.pid, host: hostname(), started: "old-boot/1" }));
    const lock = lockDataDir(dir);
    expect(lockOf(dir).pid).toBe(process.pid);
    lock.release();
  });

  it("respects a lock from another host and says which", () => {
    const dir = tempFolder();
    writeFileSync(join(dir, dataDirLockFileName), JSON.stringify({ pid: 4242, host: "elsewhere" }));
    expect(() => lockDataDir(dir)).toThrow(/pid 4242 on host elsewhere/);
  });

  it("takes over an empty lock file (its owner died between create and write)", () => {
    const dir = tempFolder();
    writeFileSync(join(dir, dataDirLockFileName), "");
    lockDataDir(dir).release();
  });

  it("release() leaves a lock file that is no longer its own", () => {
    const dir = tempFolder();
    const lock = lockDataDir(dir);
    writeFileSync(join(dir, dataDirLockFileName), JSON.stringify({ pid: 4242, host: "elsewhere" }));
    lock.release();
    expect(lockOf(dir).pid).toBe(4242);
  });

  it("four processes racing on a stale lock: exactly one gets it", async () => {
    const dir = tempFolder();
    const dead = spawn(process.execPath, ["-e", ""]);
    await exited(dead);
    writeFileSync(join(dir, dataDirLockFileName), JSON.stringify({ pid: dead.pid, host: hostname() }));
    const lines = (await Promise.all([1, 2, 3, 4].map(() => startHolder(dir)))).map((h) => h.line);
    expect(lines.filter((l) => l === "locked")).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith("refused"))).toHaveLength(3);
  }, 30_000);
});
