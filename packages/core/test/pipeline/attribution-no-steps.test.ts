/**
 * Every failed trace gets an attribution, even one with no step at all (no
 * model, tool, handoff or turn): its root span is named, with the agent that
 * owns it (none when the trace has no agent), at the lowest confidence.
 */
import { describe, expect, it } from "vitest";
import { scoreTrace } from "../../src/pipeline/index.ts";
import { defaultPriceTable } from "../../src/metrics/price-table.ts";
import { normalizedSpan, nsAt, spanIdOf } from "../../src/testing/index.ts";

const config = {
  prices: defaultPriceTable,
  agentContracts: [],
  handoffContracts: [],
  milestoneSet: null,
  configuredBaseline: null,
  coordinationWeights: null,
  repetitionK: null,
};

function attributions(success: boolean, spans: ReturnType<typeof normalizedSpan>[]) {
  return scoreTrace({
    projectId: "p",
    traceId: spans[0]!.traceId,
    version: 1,
    spans,
    config,
    outcomeOverride: { success },
    baselineRun: null,
    validateSchema: () => ({ valid: true, errors: [] }),
    evaluateMilestone: () => false,
  }).attributions;
}

const loneAgent = () => [
  normalizedSpan({
    spanId: spanIdOf(1),
    name: "invoke_agent lead",
    operation: "agent",
    agentName: "lead",
    startTimeUnixNano: nsAt(0),
    endTimeUnixNano: nsAt(10),
  }),
];

describe("attribution of a failed trace without steps", () => {
  it("names the root agent span when the only span is an agent that produced nothing", () => {
    expect(attributions(false, loneAgent())).toEqual([
      expect.objectContaining({ rank: 1, method: "suspect_no_steps_fallback", agent: "lead", spanId: spanIdOf(1), stepIndex: null, confidence: 0.05 }),
    ]);
  });

  it("names the root span, with no agent, when the trace has no agent at all", () => {
    const spans = [
      normalizedSpan({ spanId: spanIdOf(2), parentSpanId: spanIdOf(1), name: "db", operation: "other", startTimeUnixNano: nsAt(1), endTimeUnixNano: nsAt(2) }),
      normalizedSpan({ spanId: spanIdOf(1), name: "handler", operation: "other", startTimeUnixNano: nsAt(0), endTimeUnixNano: nsAt(10) }),
    ];
    expect(attributions(false, spans)).toEqual([expect.objectContaining({ rank: 1, method: "suspect_no_steps_fallback", agent: null, spanId: spanIdOf(1) })]);
  });

  it("gives a run that succeeded none", () => {
    expect(attributions(true, loneAgent())).toEqual([]);
  });
});
