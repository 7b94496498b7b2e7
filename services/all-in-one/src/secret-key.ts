/**
 * The embedded default's encryption secret for stored judge provider keys when
 * CRUX_SECRET_KEY is not set: generated once into CRUX_DATA_DIR (owner-only
 * permissions), beside the database it protects, and read back on every start.
 * Deleting it makes the stored keys unreadable (the settings then say so).
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const secretKeyFileName = "secret-key";

export async function embeddedSecretKey(dataDir: string): Promise<{ secret: string; file: string; created: boolean }> {
  const file = join(dataDir, secretKeyFileName);
  try {
    return { secret: (await readFile(file, "utf8")).trim(), file, created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  await mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    await writeFile(file, `${secret}\n`, { flag: "wx", mode: 0o600 });
    return { secret, file, created: true };
  } catch (err) {
    // Another process wrote it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return { secret: (await readFile(file, "utf8")).trim(), file, created: false };
    throw err;
  }
}
