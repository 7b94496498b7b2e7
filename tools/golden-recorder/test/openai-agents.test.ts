import { beforeAll, describe, expect, it } from "vitest";
import { OPENAI_AGENTS_USAGE, recordOpenAiAgents } from "../src/openai-agents.ts";
import { allSpans, attr, sumAttr, type ExportJson, type ExportSpan } from "../src/otel.ts";
import { expectNoMachineSpecificValues, scriptedTotals } from "./helpers.ts";

describe("OpenAI Agents SDK + OpenInference live scenario", () => {
  let json: ExportJson;
  let spans: ExportSpan[];
  beforeAll(async () => {
    json = await recordOpenAiAgents();
    spans = allSpans(json);
  }, 60_000);

  const kind = (s: ExportSpan) => attr(s, "openinference.span.kind");
  const byId = (id: string | undefined) => spans.find((s) => s.spanId === id);
  /** The nearest AGENT span above (agent spans have graph.node.id; the workflow root does not). */
  const owningAgent = (s: ExportSpan): string | undefined => {
    for (let p = byId(s.parentSpanId); p; p = byId(p.parentSpanId)) {
      if (kind(p) === "AGENT" && attr(p, "graph.node.id") !== undefined) return p.name;
    }
    return undefined;
  };

  it("traces the three agents as AGENT spans with graph.node.id", () => {
    expect(spans.length).toBeGreaterThan(0);
    const agents = spans.filter((s) => kind(s) === "AGENT" && attr(s, "graph.node.id") !== undefined);
    expect(agents.map((s) => attr(s, "graph.node.id")).sort()).toEqual(["billing_specialist", "classifier", "triage"]);
    expect(
      agents.find((s) => s.name === "billing_specialist") &&
        attr(
          agents.find((s) => s.name === "billing_specialist")!,
          "graph.node.parent_id",
        ),
    ).toBe("triage");
  });

  it("records each scripted model call's usage on an LLM span of that agent", () => {
    const llm = spans.filter((s) => kind(s) === "LLM");
    for (const [agent, calls] of Object.entries(OPENAI_AGENTS_USAGE)) {
      const own = llm.filter((s) => owningAgent(s) === agent);
      expect(own.length, agent).toBe(calls.length);
      expect({ input: sumAttr(own, "llm.token_count.prompt"), output: sumAttr(own, "llm.token_count.completion") }, agent).toEqual(scriptedTotals(calls));
    }
  });

  it("marks only the throwing lookup_invoice tool as an error", () => {
    const errors = spans.filter((s) => s.status?.code === 2);
    expect(errors.map((s) => [s.name, attr(s, "tool.name"), owningAgent(s)])).toEqual([["lookup_invoice", "lookup_invoice", "billing_specialist"]]);
    expect(errors[0]?.events?.map((e) => e.name)).toContain("exception");
    // The SDK's non-fatal wrapper names the tool (the error text inside it differs between SDK lines).
    expect(errors[0]?.status?.message).toMatch(/^Error running tool \(non-fatal\): .*"tool_name":"lookup_invoice"/);
  });

  it("records the handoff as a TOOL span from triage to billing_specialist", () => {
    const handoff = spans.find((s) => s.name === "handoff to billing_specialist");
    expect(handoff && kind(handoff)).toBe("TOOL");
    expect(handoff && owningAgent(handoff)).toBe("triage");
    expect(JSON.parse(String(handoff && attr(handoff, "input.value")))).toEqual({ from_agent: "triage" });
    expect(JSON.parse(String(handoff && attr(handoff, "output.value")))).toEqual({ to_agent: "billing_specialist" });
  });

  it("nests the agent-as-tool run (classifier) under triage's classify_ticket tool span", () => {
    const classifier = spans.find((s) => kind(s) === "AGENT" && s.name === "classifier");
    let p = classifier && byId(classifier.parentSpanId);
    while (p && kind(p) !== "TOOL") p = byId(p.parentSpanId);
    expect(p && attr(p, "tool.name")).toBe("classify_ticket");
    expect(p && owningAgent(p)).toBe("triage");
  });

  it("leaves nothing machine-specific in the export", () => {
    expectNoMachineSpecificValues(json);
  });
});
