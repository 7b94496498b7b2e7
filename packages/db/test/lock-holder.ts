/**
 * Child process for data-dir-lock.int.test.ts: takes the lock on argv[2] and
 * prints "locked" or "refused <message>"; holds it until SIGTERM (released
 * on the way out) or SIGKILL (left behind, as after a crash).
 */
import { DataDirLockedError, lockDataDir } from "../src/data-dir-lock.ts";

try {
  const lock = lockDataDir(process.argv[2]!);
  // The handler before the line: the parent may signal as soon as it reads it.
  process.on("SIGTERM", () => {
    lock.release();
    process.exit(0);
  });
  setInterval(() => {}, 1_000);
  process.stdout.write("locked\n");
} catch (err) {
  if (!(err instanceof DataDirLockedError)) throw err;
  process.stdout.write(`refused ${err.message}\n`);
}
