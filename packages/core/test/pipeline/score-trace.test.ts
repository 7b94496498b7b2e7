import { describe, expect, it } from "vitest";
import { prepareTrace, scoreTrace, UNKNOWN_MODEL } from "../../src/pipeline/index.ts";
import { scoreCoordination } from "../../src/metrics/coordination.ts";
import type { AgentContract, HandoffContract } from "../../src/mast/contracts.ts";
import { cleanSpecs, withSpecs } from "../trajectory/fixtures.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { config, input } from "./fixtures.ts";

const roles: AgentContract[] = [
  { agent: "researcher", role: "research", allowedTools: ["web_*"] },
  { agent: "writer", role: "write", allowedTools: ["write_file"] },
  { agent: "reviewer", role: "review", forbiddenTools: ["write_file"], isVerifier: true },
];
const constraints: HandoffContract[] = [{ from: "lead", to: "*", requiredConstraints: ["under 500 words", "cite sources"] }];
const milestoneSet = {
  id: "report",
  milestones: [
    { id: "researched", weight: 0.2, check: "res.q" },
    { id: "written", weight: 0.5, check: "wri.save", requires: ["researched"] },
    { id: "reviewed", weight: 0.3, check: "rev.llm", requires: ["written"] },
  ],
};
const failed = { success: false };

describe("scoreTrace on a clean trace", () => {
  const record = scoreTrace(
    input(cleanSpecs, {
      version: 7,
      config: config({
        agentContracts: roles,
        handoffContracts: [{ from: "lead", to: "writer", requiredConstraints: ["under 500 words", "cite sources"] }],
        milestoneSet,
      }),
    }),
  );

  it("yields no findings, signals or attributions with every contract satisfied", () => {
    expect(record.findings).toEqual([]);
    expect(record.signals).toEqual([]);
    expect(record.attributions).toEqual([]);
    expect(record.version).toBe(7);
    expect(record.flags).toEqual({ orphans: 0, multipleRoots: false, clockSkew: 0 });
  });

  it("assembles usage, cost, coordination and milestone credit", () => {
    expect(record.agents.map((a) => a.agent)).toEqual(["lead", "researcher", "writer", "reviewer"]);
    expect(record.totals).toMatchObject({ inputTokens: 3400, outputTokens: 1050, cachedTokens: 300, totalTokens: 4450, unpricedModels: [] });
    // Every agent is priced, so the agents add up to the total.
    const agentSum = record.agents.reduce((n, a) => n + (a.costUsd ?? Number.NaN), 0);
    expect(record.totals.costUsd).toBeCloseTo(agentSum, 12);
    expect(record.coordination).toEqual({ redundancy: 0, ignoredHandoffs: 0, roleViolations: 0, score: 1 });
    expect(record.milestones).toMatchObject({ setId: "report", partialCredit: 1, fullSuccess: true, furthestIndex: 2 });
    const credit = Object.fromEntries(record.agents.map((a) => [a.agent, a.milestoneCredit]));
    expect(credit).toEqual({ lead: 0, researcher: 0.2, writer: 0.5, reviewer: 0.3 });
    expect(record.communicationEfficiency).not.toBeNull();
    expect(record.communicationEfficiency as number).toBeGreaterThan(0);
    expect(record.handoffs.map((h) => [h.sender, h.receiver])).toEqual([
      ["lead", "researcher"],
      ["lead", "writer"],
      ["lead", "reviewer"],
    ]);
    expect(record.trajectories.find((t) => t.agent === "writer")?.steps.map((s) => s.spanId)).toEqual(["wri.llm", "wri.save"]);
  });
});

describe("scoreTrace findings", () => {
  it("reports a repeated tool call as FM-1.3 on the repeating agent", () => {
    const search = (id: string, start: number): SpanSpec => ({
      id,
      parent: "res",
      op: "tool",
      tool: "web_search",
      start,
      end: start + 5,
      args: { query: "solar panel efficiency Germany" },
      output: "Fraunhofer ISE: average module efficiency 20%",
    });
    const record = scoreTrace(input(withSpecs(cleanSpecs, [search("res.q2", 62), search("res.q3", 64)])));
    const repeated = record.findings.filter((f) => f.mode === "FM-1.3");
    expect(repeated).toHaveLength(1);
    expect(repeated[0]).toMatchObject({ agent: "researcher", spanId: "res.q3", source: "heuristic" });
    expect(record.coordination.redundancy as number).toBeGreaterThan(0);
    expect(record.coordination.score as number).toBeLessThan(1);
  });

  it("reports the same coordination rates as scoreCoordination, with the project's weights", () => {
    const specs = withSpecs(cleanSpecs, [{ id: "rev.w", parent: "rev", op: "tool", tool: "write_file", start: 805, end: 810 }]);
    const weights = { redundancy: 0.2, ignoredHandoffs: 0.2, roleViolations: 0.6 };
    const record = scoreTrace(input(specs, { config: config({ agentContracts: roles, coordinationWeights: weights }) }));
    const direct = scoreCoordination(prepareTrace(input(specs).spans), { contracts: roles, weights });
    expect(record.coordination).toEqual({ ...direct.rates, score: direct.coord });
    expect(record.coordination.roleViolations as number).toBeGreaterThan(0);
    expect(record.findings.map((f) => [f.mode, f.agent])).toContainEqual(["FM-1.2", "reviewer"]);
  });

  it("attributes a handoff schema violation to the sender with certainty", () => {
    const specs: SpanSpec[] = [
      { id: "a", op: "agent", agent: "triage", start: 0, end: 10, input: "refund order 42" },
      {
        id: "h",
        parent: "a",
        op: "handoff",
        tool: "transfer_to_billing",
        handoffTo: "billing",
        start: 2,
        end: 3,
        args: '{"message":"refund it"}',
        handoffMessage: "refund it",
      },
      { id: "b", parent: "h", op: "agent", agent: "billing", start: 4, end: 9, input: "refund it" },
      { id: "b.t", parent: "b", op: "tool", tool: "refund", start: 5, end: 6, args: { message: "refund it" } },
    ];
    const contract: HandoffContract = { from: "triage", to: "billing", jsonSchema: { type: "object", required: ["orderId", "message"] } };
    const record = scoreTrace(input(specs, { config: config({ handoffContracts: [contract] }), outcomeOverride: failed }));
    const violation = record.findings.find((f) => f.mode === "FM-1.1");
    expect(violation).toMatchObject({ agent: "triage", spanId: "h", source: "contract", confidence: 1 });
    expect(violation?.evidence).toContain("orderId");
    expect(record.attributions[0]).toMatchObject({ rank: 1, method: "first_failed_handoff_contract", agent: "triage", spanId: "h" });
  });

  it("reports a constraint dropped from a handoff as FM-2.4 on the sender", () => {
    const record = scoreTrace(input(cleanSpecs, { config: config({ handoffContracts: constraints }) }));
    expect(record.findings).toHaveLength(1);
    expect(record.findings[0]).toMatchObject({ mode: "FM-2.4", agent: "lead", spanId: "rev", source: "contract" });
    expect(record.findings[0]?.evidence).toContain("under 500 words");
  });

  it("reports FM-3.2 when a verifier is declared and no verifier step follows the last write", () => {
    const noReview = withSpecs(cleanSpecs, [], ["rev", "rev.llm"]);
    const record = scoreTrace(input(noReview, { config: config({ agentContracts: roles }) }));
    const missing = record.findings.filter((f) => f.mode === "FM-3.2");
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({ agent: "writer", spanId: "wri.save" });
    // Same trace without the verifier contract: nothing to verify against.
    expect(scoreTrace(input(noReview)).findings.filter((f) => f.mode === "FM-3.2")).toEqual([]);
  });

  it("reports FM-3.1 when the run stops on its own with required milestones unmet", () => {
    const noSave = withSpecs(cleanSpecs, [], ["wri.save"]);
    const record = scoreTrace(input(noSave, { config: config({ milestoneSet }) }));
    expect(record.milestones).toMatchObject({ partialCredit: 0.2, fullSuccess: false, furthestIndex: 0 });
    expect(record.findings.map((f) => f.mode)).toContain("FM-3.1");
  });
});

describe("scoreTrace attribution of failed runs", () => {
  const failingFetch: SpanSpec = { id: "res.fetch", parent: "res", op: "tool", tool: "fetch_page", start: 65, end: 68, error: "HTTP 503" };

  it("gives no attribution rows when the run did not fail or its outcome is unknown", () => {
    expect(scoreTrace(input(withSpecs(cleanSpecs, [failingFetch]))).attributions).toEqual([]);
    const ok = scoreTrace(input(withSpecs(cleanSpecs, [failingFetch]), { outcomeOverride: { success: true } }));
    expect(ok.run.success).toBe(true);
    expect(ok.attributions).toEqual([]);
  });

  it("names the unrecovered tool error of a run tagged as failed on its root span", () => {
    const specs = withSpecs(cleanSpecs, [failingFetch, { ...(cleanSpecs[0] as SpanSpec), runTags: { success: false, taskId: "solar" } }]);
    const record = scoreTrace(input(specs));
    expect(record.run).toMatchObject({ success: false, taskId: "solar" });
    expect(record.attributions[0]).toMatchObject({ rank: 1, method: "first_unrecovered_tool_error", agent: "researcher", spanId: "res.fetch" });
    expect(record.signals.map((s) => s.kind)).toContain("cascade");
  });

  it("lets the API override win over span tags", () => {
    const specs = withSpecs(cleanSpecs, [failingFetch, { ...(cleanSpecs[0] as SpanSpec), runTags: { success: true } }]);
    expect(scoreTrace(input(specs)).attributions).toEqual([]);
    expect(scoreTrace(input(specs, { outcomeOverride: failed })).attributions).not.toEqual([]);
  });

  it("ranks suspects when no rule fires", () => {
    const record = scoreTrace(
      input(cleanSpecs, { config: config({ agentContracts: [{ agent: "writer", role: "write", forbiddenTools: ["write_file"] }] }), outcomeOverride: failed }),
    );
    expect(record.attributions.length).toBeGreaterThan(0);
    expect(record.attributions.every((a) => a.method === "suspect")).toBe(true);
    expect(record.attributions.map((a) => a.rank)).toEqual(record.attributions.map((_, i) => i + 1));
    expect(record.attributions[0]).toMatchObject({ agent: "writer", spanId: "wri.save" });
    expect(record.attributions[0]?.confidence as number).toBeGreaterThan(0);
    expect(record.attributions[0]?.confidence as number).toBeLessThan(1);
    expect(record.attributions[1]?.confidence as number).toBeLessThanOrEqual(record.attributions[0]?.confidence as number);
  });
});

describe("scoreTrace cost and multipliers", () => {
  it("reports an unknown model as unpriced with a null cost, never 0", () => {
    const specs = withSpecs(cleanSpecs, [
      { id: "rev.llm", parent: "rev", op: "llm", model: "acme-llm-9", start: 710, end: 800, tokens: { input: 700, output: 50 } },
    ]);
    const record = scoreTrace(input(specs, { config: config({ configuredBaseline: { tokens: 1000, costUsd: 0.01 } }) }));
    expect(record.totals.costUsd).toBeNull();
    expect(record.totals.unpricedModels).toEqual(["acme-llm-9"]);
    expect(record.agents.find((a) => a.agent === "reviewer")?.costUsd).toBeNull();
    expect(record.agents.find((a) => a.agent === "writer")?.costUsd as number).toBeGreaterThan(0);
    expect(record.multiplier.cost).toEqual({ value: null, observed: null, baseline: 0.01, source: "configured" });
    expect(record.multiplier.tokens).toMatchObject({ value: 4.45, source: "configured" });
  });

  it("names tokens without any model as unpriced too", () => {
    const specs = withSpecs(cleanSpecs, [{ id: "final", parent: "lead", op: "llm", start: 910, end: 990, tokens: { input: 500, output: 100 } }]);
    const record = scoreTrace(input(specs));
    expect(record.totals.unpricedModels).toEqual([UNKNOWN_MODEL]);
    expect(record.totals.costUsd).toBeNull();
  });

  it("uses the tracer's reported cost over the table and a baseline run over the configured figure", () => {
    const specs = withSpecs(cleanSpecs, [
      { id: "rev.llm", parent: "rev", op: "llm", model: "acme-llm-9", start: 710, end: 800, tokens: { input: 700, output: 50 }, cost: 0.5 },
    ]);
    const record = scoreTrace(
      input(specs, { baselineRun: { tokens: 890, costUsd: null, runs: 2 }, config: config({ configuredBaseline: { tokens: 1000, costUsd: 0.1 } }) }),
    );
    expect(record.agents.find((a) => a.agent === "reviewer")?.costUsd).toBe(0.5);
    expect(record.totals.unpricedModels).toEqual([]);
    expect(record.multiplier.tokens).toMatchObject({ value: 5, baseline: 890, source: "baseline_run" });
    // The baseline run has no cost: the configured cost figure is used.
    expect(record.multiplier.cost.source).toBe("configured");
    expect(record.multiplier.cost.value as number).toBeCloseTo((record.totals.costUsd as number) / 0.1, 12);
  });
});

describe("scoreTrace on broken span trees", () => {
  it("flags orphans, several roots and clock skew without failing", () => {
    const specs: SpanSpec[] = [
      ...cleanSpecs,
      { id: "lost", parent: "never-arrived", op: "tool", tool: "web_search", start: 50, end: 55 },
      { id: "early", parent: "wri", op: "llm", model: "gpt-4o", start: 250, end: 260, tokens: { input: 10, output: 1 } },
    ];
    const record = scoreTrace(input(specs));
    expect(record.flags).toEqual({ orphans: 1, multipleRoots: true, clockSkew: 1 });
    expect(record.totals.inputTokens).toBe(3410);
  });

  it("scores an empty trace to an empty record", () => {
    const record = scoreTrace(input([]));
    expect(record).toMatchObject({ agents: [], findings: [], attributions: [], startNs: 0n, endNs: 0n, goalDrift: null });
    expect(record.totals.costUsd).toBe(0);
  });
});
