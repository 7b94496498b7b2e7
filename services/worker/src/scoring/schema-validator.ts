/**
 * The SchemaValidator scoring injects for handoff contracts: Ajv (JSON Schema
 * draft-07, the default dialect of Ajv 8). Compiled validators are cached by
 * the schema's JSON text. A schema Ajv cannot compile is a configuration
 * problem, not a handoff violation: the check is treated as passing (no
 * finding) and a warning is logged once per schema.
 */
import type { SchemaValidator } from "@crux/core";
import type { Logger } from "@crux/runtime";
import { Ajv, type ValidateFunction } from "ajv";

const MAX_CACHED = 1_000;

type Compiled = { ok: true; validate: ValidateFunction } | { ok: false };

export function createSchemaValidator(log: Logger): SchemaValidator {
  // strict: false so schemas written for other tools (unknown keywords, formats) still validate what Ajv knows.
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const cache = new Map<string, Compiled>();

  function compile(schema: unknown): Compiled {
    const key = JSON.stringify(schema) ?? "undefined";
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    let compiled: Compiled;
    try {
      if (typeof schema !== "object" && typeof schema !== "boolean") throw new Error("a schema must be an object or a boolean");
      compiled = { ok: true, validate: ajv.compile(schema as object) };
    } catch (err) {
      log.warn({ schema: key.slice(0, 500), error: err instanceof Error ? err.message : String(err) }, "invalid handoff contract schema; check skipped");
      compiled = { ok: false };
    }
    if (cache.size >= MAX_CACHED) {
      cache.clear();
      ajv.removeSchema(); // compiled schemas are also cached inside Ajv
    }
    cache.set(key, compiled);
    return compiled;
  }

  return (schema, value) => {
    const compiled = compile(schema);
    if (!compiled.ok) return { valid: true, errors: [] };
    const valid = compiled.validate(value) === true;
    const errors = valid ? [] : (compiled.validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword}`.trim());
    return { valid, errors };
  };
}
