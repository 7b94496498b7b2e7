/** The embedded default's generated secret for stored judge keys: created once, owner-only, read back on the next start. */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { embeddedSecretKey, secretKeyFileName } from "../src/secret-key.ts";

describe("embedded secret key", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("is generated into the data folder with owner-only permissions and kept across starts", async () => {
    dir = await mkdtemp(join(tmpdir(), "crux-secret-"));
    const dataDir = join(dir, "data");
    const first = await embeddedSecretKey(dataDir);
    expect(first).toMatchObject({ created: true, file: join(dataDir, secretKeyFileName) });
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect((await stat(first.file)).mode & 0o777).toBe(0o600);
    const second = await embeddedSecretKey(dataDir);
    expect(second).toEqual({ ...first, created: false });
  });

  it("uses a secret file that is already there", async () => {
    dir = await mkdtemp(join(tmpdir(), "crux-secret-"));
    await writeFile(join(dir, secretKeyFileName), "an-existing-secret-of-thirty-two-characters\n");
    expect((await embeddedSecretKey(dir)).secret).toBe("an-existing-secret-of-thirty-two-characters");
    expect(await readFile(join(dir, secretKeyFileName), "utf8")).toBe("an-existing-secret-of-thirty-two-characters\n");
  });
});
