/**
 * Datasets, experiments, their reports, runners and the experiment settings
 * (/api/v1/datasets, /experiments, /runners, /experiment-settings;
 * docs/experiments.md). The report mirrors packages/core's ExperimentReport:
 * every figure with its interval and the runs or tasks behind it.
 */
import { z } from "zod";
import { JsonValue, PageQuery, nextCursorField, outboundUrl, text } from "./request.ts";

/** Items one version of a dataset may hold. */
export const maxDatasetItems = 10_000;
/** Items one request may add. */
export const maxItemsPerRequest = 1_000;
/** Variants one experiment may have (a full coalition set of 10 agents is 1,024). */
export const maxVariants = 1_100;

/** A name a run tag carries (crux.experiment.id, crux.variant, crux.task.id, agent names). */
const tagName = (max = 200) => text(max).refine((s) => s.trim() === s, { message: "must not start or end with spaces" });
const agentName = tagName(200).refine((s) => !s.includes(","), { message: "must not contain a comma (crux.agents.active may be comma-separated)" });

export const DatasetItemBody = z.strictObject({
  taskId: tagName().describe("The crux.task.id runs of this task carry; unique in the dataset"),
  input: JsonValue.describe("What the runner gives the system (any JSON)"),
  expected: JsonValue.nullable().default(null).describe("Gold outcome or rubric (any JSON)"),
  milestoneSetId: z.uuid().nullable().default(null),
  humanMinutes: z.number().positive().max(1_000_000).nullable().default(null).describe("Minutes a person takes: the time horizon's x axis"),
  family: text(200).nullable().default(null).describe("Task family: the time horizon's interval resamples families, then tasks"),
  tags: z.array(text(100)).max(20).default([]),
});
export type DatasetItemBody = z.infer<typeof DatasetItemBody>;

const items = z
  .array(DatasetItemBody)
  .max(maxItemsPerRequest, `at most ${maxItemsPerRequest} items per request`)
  .superRefine((xs, ctx) => {
    const seen = new Set<string>();
    xs.forEach((x, i) => {
      if (seen.has(x.taskId)) ctx.addIssue({ code: "custom", path: [i, "taskId"], message: `duplicate taskId ${x.taskId}` });
      seen.add(x.taskId);
    });
  });

export const DatasetBody = z.strictObject({
  name: text(200),
  description: z.string().max(2000).default(""),
  items: items.default([]),
});
export type DatasetBody = z.infer<typeof DatasetBody>;

export const DatasetItemsBody = z.strictObject({
  items: items.optional(),
  jsonl: z.string().max(1_000_000).optional().describe("JSON Lines: one item object per line (blank lines ignored)"),
  replace: z.boolean().default(false).describe("The new version holds only these items; otherwise they are added to (or replace by task id) the current ones"),
});
export type DatasetItemsBody = z.infer<typeof DatasetItemsBody>;

export const Dataset = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  currentVersion: z.number().describe("Every change makes a new version; older versions are kept"),
  items: z.number().describe("Items of the current version"),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const DatasetList = z.object({ items: z.array(Dataset), nextCursor: nextCursorField() });

export const DatasetItem = DatasetItemBody.extend({ version: z.number() });
export const DatasetItemsQuery = PageQuery.extend({ version: z.coerce.number().int().min(1).optional().describe("Default: the current version") });
export const DatasetItemList = z.object({ version: z.number(), items: z.array(DatasetItem), nextCursor: nextCursorField() });

export const VariantBody = z.strictObject({
  name: tagName().describe("The crux.variant its runs carry"),
  description: z.string().max(2000).default(""),
  isBaseline: z.boolean().default(false).describe("The single-agent baseline every other variant is compared with (at most one)"),
  activeAgents: z
    .array(agentName)
    .max(64)
    .nullable()
    .default(null)
    .describe("Agents active in this variant (an ablation's coalition, crux.agents.active); null: the whole system"),
});
export type VariantBody = z.infer<typeof VariantBody>;

export const ValueKind = z.enum(["success", "partial_credit"]);

const variants = z
  .array(VariantBody)
  .max(maxVariants)
  .superRefine((vs, ctx) => {
    const seen = new Set<string>();
    vs.forEach((v, i) => {
      if (seen.has(v.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `duplicate variant ${v.name}` });
      seen.add(v.name);
    });
    if (vs.filter((v) => v.isBaseline).length > 1) ctx.addIssue({ code: "custom", message: "at most one variant is the baseline" });
  });

export const ExperimentBody = z.strictObject({
  id: tagName().optional().describe("The crux.experiment.id its runs carry; generated when absent. An id its runs already used adopts those runs"),
  name: text(200),
  description: z.string().max(2000).default(""),
  datasetId: z.uuid().nullable().default(null),
  datasetVersion: z.number().int().min(1).nullable().default(null).describe("Default: the dataset's current version, fixed at creation"),
  trials: z.number().int().min(1).max(100).default(1).describe("Trials per task and variant"),
  valueKind: ValueKind.default("success").describe("V of a run: its success (0 or 1), or its milestone partial credit"),
  runnerId: z.uuid().nullable().default(null),
  runTimeoutMs: z.number().int().min(10_000).max(86_400_000).nullable().default(null).describe("Default: the project's setting (30 minutes)"),
  variants: variants.default([]),
});
export type ExperimentBody = z.infer<typeof ExperimentBody>;

export const Variant = VariantBody.extend({ implicit: z.boolean().describe("Seen only in run tags, never declared") });

export const ExperimentStatus = z.enum(["draft", "running", "stopped", "done"]);

export const Experiment = z.object({
  id: z.string(),
  implicit: z.boolean().describe("Known only from run tags (crux.experiment.id): no declared dataset, variants or runner"),
  name: z.string(),
  description: z.string(),
  datasetId: z.string().nullable(),
  datasetVersion: z.number().nullable(),
  trials: z.number(),
  valueKind: ValueKind,
  runnerId: z.string().nullable(),
  runTimeoutMs: z.number(),
  status: ExperimentStatus,
  variants: z.array(Variant),
  runs: z.number().describe("Scored runs tagged with this experiment"),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export const ExperimentList = z.object({ items: z.array(Experiment), nextCursor: nextCursorField() });

export const AblationsBody = z.strictObject({
  mode: z
    .enum(["leave_one_out", "all_coalitions", "sampled_orderings"])
    .describe(
      "leave_one_out: N∖{i} for each agent; all_coalitions: every subset (≤ 10 agents, exact Shapley); sampled_orderings: the prefixes of sampled orderings (Monte-Carlo Shapley)",
    ),
  agents: z.array(agentName).min(1).max(64).optional().describe("Default: the union of the declared variants' active agents"),
});
export const AblationsResponse = z.object({ added: z.array(z.string()), experiment: Experiment });

// ---------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------

const Interval = z.object({
  estimate: z.number(),
  lower: z.number(),
  upper: z.number(),
  confidence: z.number(),
  iterations: z.number().describe("Resamples that gave a value"),
  tasks: z.number(),
  fewTasks: z.boolean().describe("Fewer than 10 tasks: the interval says little, however narrow it looks"),
});
const Spread = z.object({ mean: z.number(), sd: z.number(), tasks: z.number() });
const Cau = z.object({
  status: z.enum(["estimable", "not_estimable", "dominated"]),
  value: Interval.nullable().describe("(V_variant − V_baseline) / (C_variant − C_baseline), value per extra USD"),
  dominated: z.enum(["variant", "baseline"]).nullable(),
  reason: z.string(),
});
const PairedComparison = z.object({
  pairedTasks: z.array(z.string()),
  qualityDifference: Interval.nullable(),
  qualityWithinNoise: z.boolean().nullable().describe("The quality interval holds 0: inside the run-to-run spread"),
  costDifference: Interval.nullable(),
  pricedTasks: z.number(),
  tokenMultiplier: Interval.nullable(),
  costMultiplier: Interval.nullable(),
  cau: Cau,
});
const HorizonEstimate = z.object({ minutes: z.number(), lower: z.number().nullable(), upper: z.number().nullable(), extrapolated: z.boolean() });
const TimeHorizon = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("fitted"),
    fit: z.object({ intercept: z.number(), slope: z.number().describe("Log-odds of success per doubling of task length") }),
    h50: HorizonEstimate,
    h80: HorizonEstimate,
    tasks: z.number(),
    families: z.number(),
    confidence: z.number(),
    iterations: z.number(),
    failedResamples: z.number(),
    fewTasks: z.boolean(),
  }),
  z.object({
    status: z.literal("refused"),
    reason: z.enum(["too_few_tasks", "too_narrow_range", "all_succeeded", "all_failed", "no_finite_fit", "success_does_not_fall_with_length"]),
    message: z.string(),
    tasks: z.number(),
  }),
]);
export const VariantReport = z.object({
  name: z.string(),
  isBaseline: z.boolean(),
  activeAgents: z.array(z.string()).nullable(),
  traceIds: z.array(z.string()).describe("The runs behind every figure of this variant"),
  runs: z.number(),
  runsWithoutOutcome: z.number(),
  tasks: z.number(),
  minTrials: z.number(),
  successRate: Interval.nullable(),
  meanValue: z.number().nullable(),
  passK: z.array(z.object({ k: z.number(), passAtK: z.number(), passHatK: z.number() })),
  meanPartialCredit: z.number().nullable(),
  furthestMilestones: z.array(z.object({ index: z.number().describe("-1: no milestone passed"), runs: z.number() })),
  tokensPerTask: Spread.nullable(),
  costPerTask: Spread.nullable(),
  wallMsPerTask: Spread.nullable(),
  failureModes: z.array(z.object({ mode: z.string(), measured: z.boolean(), runs: z.number(), rate: z.number().nullable() })),
  dominantMode: z.string().nullable(),
  vsBaseline: PairedComparison.nullable(),
  onParetoFrontier: z.boolean().nullable(),
  timeHorizon: TimeHorizon,
});
const LeaveOneOut = z.object({
  agent: z.string(),
  delta: Interval.nullable(),
  spread: z.number().nullable(),
  verdict: z.enum(["contributes", "dead_weight", "harmful"]).nullable(),
  pairedTasks: z.number(),
  withoutVariants: z.array(z.string()),
});
const Credit = z.object({
  agents: z.array(z.string()),
  coalitions: z.array(z.object({ agents: z.array(z.string()), value: z.number(), tasks: z.number(), runs: z.number(), variants: z.array(z.string()) })),
  leaveOneOut: z.array(LeaveOneOut),
  missingForLeaveOneOut: z.array(z.string()),
  shapley: z.discriminatedUnion("method", [
    z.object({ method: z.literal("exact"), values: z.record(z.string(), z.number()), sum: z.number(), grandMinusEmpty: z.number() }),
    z.object({
      method: z.literal("monte_carlo"),
      values: z.record(z.string(), z.object({ value: z.number(), standardError: z.number() })),
      orderings: z.number(),
      seed: z.number(),
    }),
    z.object({ method: z.literal("none"), missingCoalitions: z.array(z.array(z.string())), reason: z.string() }),
  ]),
});
export const FailureStage = z.enum(["planning", "handoff", "worker", "verification"]);
export const Directive = z.object({
  decision: z.enum(["ship", "hold", "no_bar"]),
  reasons: z.array(z.string()),
  dominantMode: z.object({ mode: z.string(), rate: z.number(), startsAt: FailureStage.nullable() }).nullable(),
  structuralChange: z.string().nullable(),
  agentChanges: z.array(z.string()),
});
export const ExperimentReport = z.object({
  experimentId: z.string(),
  valueKind: ValueKind,
  baseline: z.string().nullable(),
  candidate: z.string().nullable().describe("The variant the directive speaks of: the whole system"),
  variants: z.array(VariantReport),
  credit: Credit.nullable(),
  directive: Directive,
  seed: z.number(),
  iterations: z.number(),
  confidence: z.number(),
});

export const ModeComparisonQuery = z.strictObject({
  against: tagName().describe("The experiment before the change"),
  mode: z.string().regex(/^FM-\d\.\d{1,2}$/, "must be a MAST mode id such as FM-3.2"),
  variant: tagName().optional().describe("Default: each experiment's candidate"),
});
export const ModeComparison = z.object({
  mode: z.string(),
  before: z.object({ experimentId: z.string(), variant: z.string().nullable(), rate: z.number().nullable(), runs: z.number() }),
  after: z.object({ experimentId: z.string(), variant: z.string().nullable(), rate: z.number().nullable(), runs: z.number() }),
  change: Interval.nullable().describe("after − before; resamples tasks within each experiment"),
  dropped: z.boolean().nullable().describe("The whole interval lies below 0"),
});

// ---------------------------------------------------------------------------
// Settings, runners, dispatch
// ---------------------------------------------------------------------------

export const ShipBar = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("cau"), min: z.number().finite() }),
  z.strictObject({ kind: z.literal("pass_hat_k"), k: z.number().int().min(1).max(100), min: z.number().min(0).max(1) }),
  z.strictObject({ kind: z.literal("quality_difference"), min: z.number().min(-1).max(1) }),
]);

export const ExperimentSettings = z.strictObject({
  includeInMetrics: z
    .boolean()
    .default(false)
    .describe("Count experiment and replay runs in production metrics, alerts and judge sampling (a change applies to the runs already stored too)"),
  shipBar: ShipBar.nullable().default(null),
  maxRunsPerStart: z.number().int().min(1).max(100_000).default(1000),
  concurrency: z.number().int().min(1).max(64).default(4),
  runTimeoutMs: z.number().int().min(10_000).max(86_400_000).default(1_800_000),
});

export const RunnerBody = z.strictObject({
  name: text(200),
  url: outboundUrl(2048),
  allowPrivateTargets: z
    .boolean()
    .default(false)
    .describe("Ask for the non-public targets the operator allows (CRUX_ALLOW_PRIVATE_TARGETS); never more, checked at connect time"),
});
export type RunnerBody = z.infer<typeof RunnerBody>;
export const Runner = RunnerBody.extend({ id: z.string(), secretPrefix: z.string(), createdAt: z.string(), updatedAt: z.string() });
export const RunnerWithSecret = Runner.extend({ secret: z.string().describe("whsec_ signing secret (Standard Webhooks). Shown only in this answer") });
export const RunnerList = z.object({ items: z.array(Runner), nextCursor: nextCursorField() });

export const StartResponse = z.object({
  experimentId: z.string(),
  dispatches: z.number().describe("Runs this start dispatches (task × variant × trial, less those already dispatched)"),
  cap: z.number().describe("The project's maxRunsPerStart"),
  concurrency: z.number(),
});

export const ExperimentProgress = z.object({
  experimentId: z.string(),
  status: ExperimentStatus,
  expected: z.number(),
  pending: z.number().describe("Not sent yet"),
  running: z.number().describe("Sent, not scored yet, within their timeout"),
  scored: z.number(),
  failed: z.number().describe("Could not be delivered to the runner"),
  timedOut: z.number().describe("Sent, not scored within the run timeout"),
  stopped: z.number(),
});

/** What a runner receives, one signed POST per run. */
export const RunRequest = z.object({
  type: z.literal("experiment.run"),
  experimentId: z.string(),
  variant: z.object({ name: z.string(), description: z.string(), isBaseline: z.boolean(), activeAgents: z.array(z.string()).nullable() }),
  task: z.object({ taskId: z.string(), input: z.unknown(), expected: z.unknown() }),
  trial: z.number(),
  tags: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).describe("Set these on the run's root span or resource"),
});
