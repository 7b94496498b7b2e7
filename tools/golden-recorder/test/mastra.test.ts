import { beforeAll, describe, expect, it } from "vitest";
import { MASTRA_USAGE, recordMastra } from "../src/mastra.ts";
import { allSpans, attr, type ExportJson, type ExportSpan } from "../src/otel.ts";
import { expectNoMachineSpecificValues, scriptedTotals } from "./helpers.ts";

describe("Mastra + @mastra/otel-exporter live scenario", () => {
  let json: ExportJson;
  let spans: ExportSpan[];
  beforeAll(async () => {
    json = await recordMastra();
    spans = allSpans(json);
  }, 60_000);

  const type = (s: ExportSpan) => attr(s, "mastra.span.type");
  const byId = (id: string | undefined) => spans.find((s) => s.spanId === id);
  const owningAgent = (s: ExportSpan): string | undefined => {
    for (let p = byId(s.parentSpanId); p; p = byId(p.parentSpanId)) if (type(p) === "agent_run") return String(attr(p, "agent.id"));
    return undefined;
  };

  it("traces the three agents as agent_run spans", () => {
    expect(spans.length).toBeGreaterThan(0);
    const agents = spans.filter((s) => type(s) === "agent_run");
    expect(agents.map((s) => attr(s, "gen_ai.agent.id")).sort()).toEqual(["researcher", "supervisor", "writer"]);
  });

  it("puts each agent's summed scripted usage on its single model_generation span", () => {
    for (const [agent, calls] of Object.entries(MASTRA_USAGE)) {
      const generations = spans.filter((s) => type(s) === "model_generation" && owningAgent(s) === agent);
      expect(generations.length, agent).toBe(1);
      const g = generations[0] as ExportSpan;
      expect({ input: attr(g, "gen_ai.usage.input_tokens"), output: attr(g, "gen_ai.usage.output_tokens") }, agent).toEqual(scriptedTotals(calls));
      const steps = spans.filter((s) => type(s) === "model_step" && s.parentSpanId === g.spanId);
      expect(steps.length, `${agent} model steps`).toBe(calls.length);
    }
  });

  it("marks only the throwing fetch_sources tool as an error", () => {
    const errors = spans.filter((s) => s.status?.code === 2);
    expect(errors.map((s) => [s.name, attr(s, "gen_ai.tool.name"), owningAgent(s), attr(s, "error.type")])).toEqual([
      ["tool.execute fetch_sources", "fetch_sources", "researcher", "unknown"],
    ]);
    expect(errors[0]?.events?.map((e) => e.name)).toContain("exception");
  });

  it("runs each sub-agent inside the supervisor's agent-<name> tool span", () => {
    for (const agent of ["researcher", "writer"]) {
      const run = spans.find((s) => type(s) === "agent_run" && attr(s, "agent.id") === agent);
      const parent = byId(run?.parentSpanId);
      expect(parent && [attr(parent, "gen_ai.tool.name"), owningAgent(parent)]).toEqual([`agent-${agent}`, "supervisor"]);
    }
  });

  it("leaves nothing machine-specific in the export", () => {
    expectNoMachineSpecificValues(json);
  });
});
