import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, envBoolean, envInt, loadConfig, queuePrefixSetting } from "./index.ts";

const schema = z.object({ PORT: envInt(8080, 1, 65_535), AUTH: envBoolean(true), NAME: z.string().default("crux") });

describe("loadConfig", () => {
  it("applies defaults and treats empty strings as unset", () => {
    expect(loadConfig(schema, { PORT: "", AUTH: undefined })).toEqual({ PORT: 8080, AUTH: true, NAME: "crux" });
  });
  it("parses booleans and numbers", () => {
    expect(loadConfig(schema, { PORT: "4318", AUTH: "false" })).toEqual({ PORT: 4318, AUTH: false, NAME: "crux" });
  });
  it("lists every invalid variable at once", () => {
    try {
      loadConfig(schema, { PORT: "abc", AUTH: "maybe" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const issues = (e as ConfigError).issues;
      expect(issues).toHaveLength(2);
      expect(issues.join()).toMatch(/PORT/);
      expect(issues.join()).toMatch(/AUTH/);
    }
  });
  it("accepts a queue prefix of safe characters and refuses one that would split Redis keys", () => {
    const prefixed = z.object({ CRUX_QUEUE_PREFIX: queuePrefixSetting });
    expect(loadConfig(prefixed, {})).toEqual({ CRUX_QUEUE_PREFIX: "crux" });
    expect(loadConfig(prefixed, { CRUX_QUEUE_PREFIX: "staging-2" })).toEqual({ CRUX_QUEUE_PREFIX: "staging-2" });
    expect(() => loadConfig(prefixed, { CRUX_QUEUE_PREFIX: "a:b" })).toThrow(/CRUX_QUEUE_PREFIX/);
  });
});
