import { describe, expect, it } from "vitest";
import { AgentUsage, Handoff, SpanId, TraceDetail, TraceId } from "../src/index.ts";

describe("shared shapes", () => {
  it("ids: trace ids are 32 hex characters and span ids 16, served lowercase", () => {
    expect(TraceId.parse("AB".repeat(16))).toBe("ab".repeat(16));
    expect(TraceId.safeParse("ab".repeat(15)).success).toBe(false);
    expect(SpanId.parse("0123456789ABCDEF")).toBe("0123456789abcdef");
    expect(SpanId.safeParse("0123456789abcdeg").success).toBe(false);
  });

  it("a handoff names its sender and receiver; per-agent usage names its agent and costUsd", () => {
    const handoff = {
      index: 0,
      sender: "lead",
      receiver: "search",
      spanId: "0000000000000001",
      via: "transfer_tool",
      message: null,
      time: "2026-01-01T00:00:00.000Z",
    };
    expect(Handoff.parse(handoff)).toEqual(handoff);
    expect(Handoff.safeParse({ ...handoff, sender: undefined, from: "lead" }).success).toBe(false);
    const usage = {
      agent: "lead",
      agentId: null,
      parentAgent: null,
      spans: 2,
      llmCalls: 1,
      toolCalls: 0,
      errors: 0,
      inputTokens: 10,
      outputTokens: 2,
      cachedTokens: 0,
      totalTokens: 12,
      tokensReported: true,
      tokensNotReported: null,
      costUsd: null,
      tokenShare: 1,
      wallMs: 5,
      milestoneCredit: null,
    };
    expect(AgentUsage.parse(usage)).toEqual(usage);
    expect(AgentUsage.safeParse({ ...usage, costUsd: undefined }).success).toBe(false);
    // Tokens the tracer did not report are null with a reason, never 0; the flag is required.
    const unreported = {
      ...usage,
      inputTokens: null,
      outputTokens: null,
      cachedTokens: null,
      totalTokens: null,
      tokensReported: false,
      tokensNotReported: "no model calls traced",
    };
    expect(AgentUsage.parse(unreported)).toEqual(unreported);
    expect(AgentUsage.safeParse({ ...usage, tokensReported: undefined }).success).toBe(false);
  });

  it("a trace's scoring is either pending (nothing else) or the stored set", () => {
    const detail = {
      trace: {
        traceId: "ab".repeat(16),
        serviceName: null,
        rootSpanId: null,
        rootName: null,
        startTime: "t",
        endTime: "t",
        durationMs: 0,
        spanCount: 0,
        errorCount: 0,
        agents: [],
        hasError: false,
        settled: false,
        lastReceivedAt: "t",
      },
      roots: [],
      orphanSpanIds: [],
    };
    expect(TraceDetail.parse({ ...detail, scoring: { status: "pending" } }).scoring).toEqual({ status: "pending" });
    expect(TraceDetail.safeParse({ ...detail, scoring: { status: "scored" } }).success).toBe(false);
    expect(TraceDetail.safeParse({ ...detail, scoring: { status: "computed" } }).success).toBe(false);
  });
});
