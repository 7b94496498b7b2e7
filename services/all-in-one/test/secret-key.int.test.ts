/** The embedded default's generated secret for stored judge keys: created once, owner-only, read back on the next start. */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@crux/config";
import { createLogger } from "@crux/runtime";
import { afterEach, describe, expect, it } from "vitest";
import { allInOneConfigSchema, startAllInOne } from "../src/index.ts";
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

  it("lets the embedded default store a judge key without CRUX_SECRET_KEY, sealed with the generated secret", async () => {
    dir = await mkdtemp(join(tmpdir(), "crux-secret-"));
    const env = {
      CRUX_DATA_DIR: dir,
      CRUX_HOST: "127.0.0.1",
      CRUX_OTLP_HTTP_PORT: "0",
      CRUX_OTLP_GRPC_PORT: "0",
      CRUX_API_PORT: "0",
      CRUX_LOG_LEVEL: "silent",
    };
    const crux = await startAllInOne(loadConfig(allInOneConfigSchema, env), createLogger({ level: "silent", name: "test" }));
    try {
      const res = await fetch(`http://127.0.0.1:${crux.ports.api}/api/v1/judge-settings`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "sk-embedded-key-5150" }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ canStoreApiKey: true, stored: { apiKeySet: true, apiKeyLast4: "5150" }, effective: { enabled: true } });
      expect((await stat(join(dir, secretKeyFileName))).mode & 0o777).toBe(0o600);
    } finally {
      await crux.stop();
    }
  }, 60_000);
});
