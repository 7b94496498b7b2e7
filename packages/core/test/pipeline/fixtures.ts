/** Inputs for scoreTrace tests: a config builder, a required-keys schema validator and a lookup milestone evaluator. */
import { defaultPriceTable } from "../../src/metrics/price-table.ts";
import type { SchemaValidator } from "../../src/mast/contracts.ts";
import type { MilestoneEvaluator } from "../../src/metrics/milestones.ts";
import type { MilestoneExpression, ScoreTraceInput, ScoringConfig } from "../../src/pipeline/config.ts";
import type { NormalizedSpan } from "../../src/span.ts";
import { span, type SpanSpec } from "../trajectory/builder.ts";

const TRACE_ID = "0".repeat(31) + "1";

export function config(over: Partial<ScoringConfig> = {}): ScoringConfig {
  return {
    prices: defaultPriceTable,
    agentContracts: [],
    handoffContracts: [],
    milestoneSet: null,
    configuredBaseline: null,
    coordinationWeights: null,
    repetitionK: null,
    ...over,
  };
}

/** Checks "required" keys and primitive "type" of properties only (the worker injects Ajv). */
const requiredKeysValidator: SchemaValidator = (schema, value) => {
  const s = schema as { required?: string[]; properties?: Record<string, { type?: string }> };
  if (typeof value !== "object" || value === null) return { valid: false, errors: ["not an object"] };
  const obj = value as Record<string, unknown>;
  const errors = (s.required ?? []).filter((k) => !(k in obj)).map((k) => `must have required property '${k}'`);
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    if (k in obj && p.type !== undefined && typeof obj[k] !== p.type) errors.push(`/${k} must be ${p.type}`);
  }
  return { valid: errors.length === 0, errors };
};

/** Milestone checks in tests are span ids: the check passes when that span exists and is not in error. */
const spanExistsEvaluator: MilestoneEvaluator<MilestoneExpression> = (check, view) => {
  const s = view.spanById.get(check);
  return s !== undefined && !s.isError ? { passed: true, spanId: s.spanId } : false;
};

export function input(specs: SpanSpec[], over: Partial<ScoreTraceInput> = {}): ScoreTraceInput {
  const spans: NormalizedSpan[] = specs.map(span);
  return {
    projectId: "p1",
    traceId: TRACE_ID,
    version: 1,
    spans,
    config: config(),
    outcomeOverride: null,
    baselineRun: null,
    validateSchema: requiredKeysValidator,
    evaluateMilestone: spanExistsEvaluator,
    ...over,
  };
}
