/** Hand-built TraceScoreRecords for the API tests: every number is chosen so the expected metrics can be computed by hand. */
import type { AgentScoreRow, Finding, MastModeId, TraceScoreRecord } from "@crux/core";
import { categoryOf, mastDetectors } from "@crux/core";

export function hexTraceId(n: number): string {
  return n.toString(16).padStart(32, "0");
}

export function hexSpanId(n: number): string {
  return n.toString(16).padStart(16, "0");
}

interface AgentSpec {
  agent: string;
  input: number;
  output: number;
  cached?: number;
  cost?: number | null;
  llmCalls?: number;
  toolCalls?: number;
  errors?: number;
  /** false: the tracer reported no tokens for the agent (its counts are 0 for want of a report). */
  tokensReported?: boolean;
}

export interface RecordSpec {
  n: number;
  startMs: number;
  service?: string | null;
  success?: boolean | null;
  taskId?: string | null;
  isBaseline?: boolean;
  agents: AgentSpec[];
  /** detector: default, the first detector of the list that reports the mode ("test" for a mode none reports). */
  findings?: { mode: MastModeId; agent: string | null; source?: Finding["source"]; detector?: string }[];
  tokenMultiplier?: { value: number; baseline: number; source: "baseline_run" | "configured" } | null;
  costMultiplier?: { value: number; baseline: number; source: "baseline_run" | "configured" } | null;
  milestones?: { partialCredit: number; fullSuccess: boolean; furthestIndex: number; passed: boolean[] } | null;
  version?: number;
  /** Run tags beyond the above (experiment runs: experimentId, variant, trial, activeAgents). */
  run?: Partial<TraceScoreRecord["run"]>;
}

export function scoreRecord(spec: RecordSpec): TraceScoreRecord {
  const startNs = BigInt(spec.startMs) * 1_000_000n;
  const input = spec.agents.reduce((s, a) => s + a.input, 0);
  const output = spec.agents.reduce((s, a) => s + a.output, 0);
  const cached = spec.agents.reduce((s, a) => s + (a.cached ?? 0), 0);
  const total = input + output;
  const costs = spec.agents.map((a) => (a.cost === undefined ? 0 : a.cost));
  const cost = costs.some((c) => c === null) ? null : (costs as number[]).reduce((s, c) => s + c, 0);
  const agents: AgentScoreRow[] = spec.agents.map((a) => ({
    agent: a.agent,
    agentId: null,
    parentAgent: null,
    spans: (a.llmCalls ?? 1) + (a.toolCalls ?? 0) + 1,
    llmCalls: a.llmCalls ?? 1,
    toolCalls: a.toolCalls ?? 0,
    errors: a.errors ?? 0,
    inputTokens: a.input,
    outputTokens: a.output,
    cachedTokens: a.cached ?? 0,
    tokensReported: a.tokensReported ?? true,
    costUsd: a.cost === undefined ? 0 : a.cost,
    tokenShare: total === 0 ? 0 : (a.input + a.output) / total,
    wallMs: 10,
    milestoneCredit: null,
  }));
  const tm = spec.tokenMultiplier ?? null;
  const cm = spec.costMultiplier ?? null;
  const findings: Finding[] = (spec.findings ?? []).map((f, i) => ({
    mode: f.mode,
    category: categoryOf(f.mode),
    agent: f.agent,
    spanId: hexSpanId(100 + i),
    stepIndex: i,
    source: f.source ?? "heuristic",
    detector: f.detector ?? mastDetectors.find((d) => d.modes.some((m) => m.mode === f.mode))?.id ?? "test",
    confidence: 0.9,
    evidence: `rule ${f.mode}`,
  }));
  const ms = spec.milestones ?? null;
  return {
    traceId: hexTraceId(spec.n),
    version: spec.version ?? 1,
    serviceName: spec.service === undefined ? "svc" : spec.service,
    startNs,
    endNs: startNs + 5_000_000_000n,
    run: {
      success: spec.success ?? null,
      score: null,
      taskId: spec.taskId ?? null,
      variant: spec.isBaseline ? "baseline" : null,
      isBaseline: spec.isBaseline ?? false,
      experimentId: null,
      seed: null,
      trial: null,
      activeAgents: null,
      replayId: null,
      ...spec.run,
    },
    totals: { inputTokens: input, outputTokens: output, cachedTokens: cached, totalTokens: total, costUsd: cost, unpricedModels: [] },
    multiplier: {
      tokens: tm
        ? { value: tm.value, observed: total, baseline: tm.baseline, source: tm.source }
        : { value: null, observed: total, baseline: null, source: "unknown" },
      cost: cm
        ? { value: cm.value, observed: cost, baseline: cm.baseline, source: cm.source }
        : { value: null, observed: cost, baseline: null, source: "unknown" },
    },
    coordination: { redundancy: 0.1, ignoredHandoffs: 0, roleViolations: 0.2, score: 0.9 },
    communicationEfficiency: null,
    goalDrift: null,
    milestones: ms
      ? {
          setId: "set-1",
          partialCredit: ms.partialCredit,
          fullSuccess: ms.fullSuccess,
          furthestIndex: ms.furthestIndex,
          detail: ms.passed.map((p, i) => ({ id: `m${i + 1}`, passed: p, spanId: null, agent: null })),
        }
      : null,
    agents,
    findings,
    signals: [],
    errorPaths: [],
    attributions: findings.length
      ? [
          {
            method: "first_unrecovered_tool_error",
            rank: 1,
            agent: findings[0]!.agent,
            stepIndex: 0,
            spanId: findings[0]!.spanId,
            reason: "tool failed and nobody retried",
            confidence: 0.6,
          },
        ]
      : [],
    handoffs:
      spec.agents.length > 1
        ? [
            {
              index: 0,
              sender: spec.agents[0]!.agent,
              receiver: spec.agents[1]!.agent,
              spanId: hexSpanId(50),
              via: "tool_call",
              message: "please search",
              startNs: startNs + 1_000n,
            },
          ]
        : [],
    trajectories: spec.agents.map((a, i) => ({
      agent: a.agent,
      steps: [
        {
          index: i,
          spanId: hexSpanId(200 + i),
          kind: "llm",
          toolName: null,
          isError: false,
          inputTokens: a.input,
          outputTokens: a.output,
          startNs: startNs + BigInt(i),
        },
      ],
    })),
    flags: { orphans: 0, multipleRoots: false, clockSkew: 0 },
  };
}
