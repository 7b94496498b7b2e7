/** The worker's settings as main.ts and the all-in-one process read them from the environment. */
import { loadConfig } from "@crux/config";
import { describe, expect, it } from "vitest";
import { resolveWorkerConfig, workerConfigSchema } from "../src/config.ts";

const resolved = (env: Record<string, string>) => resolveWorkerConfig(loadConfig(workerConfigSchema, env));

describe("CRUX_PUBLIC_URL (the links in webhook payloads)", () => {
  it("defaults to the API's port, so links follow CRUX_API_PORT", () => {
    expect(resolved({}).CRUX_PUBLIC_URL).toBe("http://localhost:8080");
    expect(resolved({ CRUX_API_PORT: "9090" }).CRUX_PUBLIC_URL).toBe("http://localhost:9090");
  });

  it("is taken as set when set, whatever the port", () => {
    expect(resolved({ CRUX_API_PORT: "9090", CRUX_PUBLIC_URL: "https://crux.example.test" }).CRUX_PUBLIC_URL).toBe("https://crux.example.test");
  });
});
