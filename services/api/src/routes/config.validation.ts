/**
 * Write-time checks of configuration the worker will execute: JSON Schemas of
 * handoff contracts must compile with Ajv, milestone checks (and completion
 * conditions given as strings) must parse as JSONata. A bad one is a 400 now
 * rather than a silent scoring failure later.
 */
import { Ajv } from "ajv";
import jsonata from "jsonata";
import { ApiError } from "../errors.ts";

const ajv = new Ajv({ strict: false, allErrors: true });

export function assertValidJsonSchema(schema: unknown, path: string): void {
  if (schema === null || schema === undefined) return;
  if (typeof schema !== "boolean" && (typeof schema !== "object" || Array.isArray(schema))) {
    throw new ApiError("invalid_json_schema", `${path}: a JSON Schema is an object or a boolean`);
  }
  const ok = ajv.validateSchema(schema as object);
  if (!ok) throw new ApiError("invalid_json_schema", `${path}: ${ajv.errorsText(ajv.errors)}`, ajv.errors);
  try {
    ajv.compile(schema as object);
  } catch (err) {
    throw new ApiError("invalid_json_schema", `${path}: ${(err as Error).message}`);
  }
}

export function assertValidJsonata(expression: string, path: string): void {
  try {
    jsonata(expression);
  } catch (err) {
    const e = err as { message?: string; position?: number; code?: string };
    throw new ApiError("invalid_expression", `${path}: ${e.message ?? String(err)}${e.position === undefined ? "" : ` (at position ${e.position})`}`, {
      code: e.code,
      position: e.position,
    });
  }
}

/** Ids unique, requires naming earlier-declared or any ids of the set, checks parse. */
export function assertValidMilestones(milestones: { id: string; check: string; requires?: string[] | undefined }[]): void {
  const ids = new Set<string>();
  milestones.forEach((m, i) => {
    if (ids.has(m.id)) throw new ApiError("invalid_milestones", `milestones[${i}].id: duplicate id '${m.id}'`);
    ids.add(m.id);
    assertValidJsonata(m.check, `milestones[${i}].check`);
  });
  milestones.forEach((m, i) => {
    for (const req of m.requires ?? []) {
      if (!ids.has(req)) throw new ApiError("invalid_milestones", `milestones[${i}].requires: unknown milestone id '${req}'`);
      if (req === m.id) throw new ApiError("invalid_milestones", `milestones[${i}].requires: a milestone cannot require itself`);
    }
  });
}
