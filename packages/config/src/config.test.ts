import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, envBoolean, envInt, loadConfig } from "./index.ts";

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
});
