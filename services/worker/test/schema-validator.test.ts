import { describe, expect, it } from "vitest";
import { createSchemaValidator } from "../src/scoring/schema-validator.ts";
import { recordingLog } from "./traces.ts";

const schema = { type: "object", required: ["message", "path"], properties: { message: { type: "string" }, path: { type: "string" } } };

describe("Ajv schema validator", () => {
  it("accepts a valid payload and lists every error of an invalid one", () => {
    const { log } = recordingLog();
    const validate = createSchemaValidator(log);
    expect(validate(schema, { message: "hi", path: "a.md" })).toEqual({ valid: true, errors: [] });
    const bad = validate(schema, { message: 3 });
    expect(bad.valid).toBe(false);
    expect(bad.errors).toEqual(["(root) must have required property 'path'", "/message must be string"]);
  });

  it("treats an invalid schema as passing, warns once, and never throws", () => {
    const { log, warnings } = recordingLog();
    const validate = createSchemaValidator(log);
    const broken = { type: "no-such-type" };
    expect(validate(broken, { a: 1 })).toEqual({ valid: true, errors: [] });
    expect(validate(broken, { a: 2 })).toEqual({ valid: true, errors: [] });
    expect(validate("not a schema", { a: 2 })).toEqual({ valid: true, errors: [] });
    expect(warnings.map((w) => w.msg)).toEqual(["invalid handoff contract schema; check skipped", "invalid handoff contract schema; check skipped"]);
  });

  it("tolerates keywords and formats Ajv does not know", () => {
    const { log, warnings } = recordingLog();
    const validate = createSchemaValidator(log);
    const loose = { type: "object", "x-owner": "team-a", properties: { email: { type: "string", format: "email" } }, required: ["email"] };
    expect(validate(loose, { email: "not-checked" }).valid).toBe(true);
    expect(validate(loose, {}).valid).toBe(false);
    expect(warnings).toEqual([]);
  });
});
