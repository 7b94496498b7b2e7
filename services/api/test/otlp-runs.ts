/**
 * Experiment runs as a runner exports them: an OTLP/JSON export per run (a root agent span with
 * the run tags, one agent span with an LLM call per active agent), decoded and normalized by
 * @crux/otlp, stored, and scored the way the worker's score stage does. The run tags go the whole
 * way from OTLP attributes to trace_scores, so nothing about them is assumed here.
 */
import { randomBytes } from "node:crypto";
import { scoreTrace } from "@crux/core";
import { getTrace, insertSpanBatch, loadScoringConfig, persistTraceScores, type Database } from "@crux/db";
import { addContent, decodeExportRequest, normalizeSpans } from "@crux/otlp";

type Value = string | number | boolean | string[];
const attr = (key: string, v: Value) => ({
  key,
  value: Array.isArray(v)
    ? { arrayValue: { values: v.map((s) => ({ stringValue: s })) } }
    : typeof v === "string"
      ? { stringValue: v }
      : typeof v === "boolean"
        ? { boolValue: v }
        : { intValue: String(v) },
});

export interface OtlpRun {
  /** Run tags: crux.<key> attributes on the root span (experimentId → crux.experiment.id, replayId → crux.replay.id). */
  experimentId?: string;
  replayId?: string;
  variant?: string;
  taskId: string;
  trial?: number;
  /** crux.agents.active as sent: a string array or a comma-separated string. */
  activeAgents?: string[] | string;
  baseline?: boolean;
  success: boolean;
  /** Agents that act in the run (default: the active agents, else one "solo" agent). */
  agents?: string[];
  startMs: number;
}

function exportOf(run: OtlpRun, traceId: string): string {
  const ns = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
  const rootId = randomBytes(8).toString("hex");
  const agents = run.agents ?? (Array.isArray(run.activeAgents) ? run.activeAgents : (run.activeAgents?.split(",") ?? ["solo"]));
  const tags = [
    ...(run.experimentId === undefined ? [] : [attr("crux.experiment.id", run.experimentId)]),
    ...(run.replayId === undefined ? [] : [attr("crux.replay.id", run.replayId)]),
    ...(run.variant === undefined ? [] : [attr("crux.variant", run.variant)]),
    attr("crux.task.id", run.taskId),
    ...(run.trial === undefined ? [] : [attr("crux.trial", run.trial)]),
    ...(run.activeAgents === undefined ? [] : [attr("crux.agents.active", run.activeAgents)]),
    ...(run.baseline === true ? [attr("crux.baseline", true)] : []),
    attr("crux.outcome.success", run.success),
  ];
  const spans: object[] = [
    {
      traceId,
      spanId: rootId,
      name: "invoke_agent orchestrator",
      kind: 1,
      startTimeUnixNano: ns(run.startMs),
      endTimeUnixNano: ns(run.startMs + 900),
      attributes: [attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.agent.name", "orchestrator"), ...tags],
      status: { code: 1 },
    },
  ];
  agents.forEach((agent, i) => {
    const agentId = randomBytes(8).toString("hex");
    const s = run.startMs + 10 + i * 400;
    spans.push(
      {
        traceId,
        spanId: agentId,
        parentSpanId: rootId,
        name: `invoke_agent ${agent}`,
        kind: 1,
        startTimeUnixNano: ns(s),
        endTimeUnixNano: ns(s + 300),
        attributes: [attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.agent.name", agent)],
        status: { code: 1 },
      },
      {
        traceId,
        spanId: randomBytes(8).toString("hex"),
        parentSpanId: agentId,
        name: "chat gpt-4o-mini",
        kind: 3,
        startTimeUnixNano: ns(s + 10),
        endTimeUnixNano: ns(s + 200),
        attributes: [
          attr("gen_ai.operation.name", "chat"),
          attr("gen_ai.system", "openai"),
          attr("gen_ai.request.model", "gpt-4o-mini"),
          attr("gen_ai.usage.input_tokens", 400),
          attr("gen_ai.usage.output_tokens", 100),
        ],
        status: { code: 1 },
      },
    );
  });
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [attr("service.name", "experiment-runner")] }, scopeSpans: [{ scope: { name: "crux-api-test" }, spans }] }],
  });
}

/** Ingests and scores each run; returns their trace ids in order. */
export async function ingestRuns(database: Database, projectId: string, runs: readonly OtlpRun[]): Promise<string[]> {
  const traceIds: string[] = [];
  for (const run of runs) {
    const traceId = randomBytes(16).toString("hex");
    const decoded = decodeExportRequest(new TextEncoder().encode(exportOf(run, traceId)), "json");
    if (decoded.rejectedSpans > 0) throw new Error(decoded.rejectionMessage);
    await insertSpanBatch(database, projectId, normalizeSpans(decoded.spans));
    const found = await getTrace(database, projectId, traceId);
    const record = scoreTrace({
      projectId,
      traceId,
      version: found!.trace.settleVersion,
      spans: found!.spans.map(addContent),
      config: await loadScoringConfig(database, projectId, found!.trace.serviceName, run.taskId),
      outcomeOverride: null,
      baselineRun: null,
      validateSchema: () => ({ valid: true, errors: [] }),
      evaluateMilestone: () => false,
    });
    await persistTraceScores(database, projectId, record);
    traceIds.push(traceId);
  }
  return traceIds;
}
