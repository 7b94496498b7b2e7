import { beforeAll, describe, expect, it } from "vitest";
import { allSpans, attr, sumAttr, type ExportJson, type ExportSpan } from "../src/otel.ts";
import { VERCEL_AI_USAGE, recordVercelAi } from "../src/vercel-ai.ts";
import { expectNoMachineSpecificValues, scriptedTotals } from "./helpers.ts";

describe("Vercel AI SDK 6 live scenario", () => {
  let json: ExportJson;
  let spans: ExportSpan[];
  beforeAll(async () => {
    json = await recordVercelAi();
    spans = allSpans(json);
  }, 60_000);

  const byFunction = (id: string, op: string) => spans.filter((s) => attr(s, "ai.telemetry.functionId") === id && attr(s, "ai.operationId") === op);

  it("traces one ai.generateText span per agent", () => {
    expect(spans.length).toBeGreaterThan(0);
    const agents = spans.filter((s) => s.name === "ai.generateText").map((s) => attr(s, "ai.telemetry.functionId"));
    expect(agents.sort()).toEqual(["orchestrator", "researcher", "writer"]);
  });

  it("records each scripted model call's usage on its doGenerate span", () => {
    for (const [agent, calls] of Object.entries(VERCEL_AI_USAGE)) {
      const steps = byFunction(agent, "ai.generateText.doGenerate");
      expect(steps.length, agent).toBe(calls.length);
      const totals = scriptedTotals(calls);
      expect({ input: sumAttr(steps, "ai.usage.inputTokens"), output: sumAttr(steps, "ai.usage.outputTokens") }, agent).toEqual(totals);
      expect({ input: sumAttr(steps, "gen_ai.usage.input_tokens"), output: sumAttr(steps, "gen_ai.usage.output_tokens") }, agent).toEqual(totals);
    }
  });

  it("marks only the throwing search_web tool call as an error", () => {
    const errors = spans.filter((s) => s.status?.code === 2);
    expect(errors.map((s) => [s.name, attr(s, "ai.toolCall.name")])).toEqual([["ai.toolCall", "search_web"]]);
    expect(errors[0]?.events?.map((e) => e.name)).toContain("exception");
  });

  it("nests each sub-agent under the orchestrator's delegating tool call", () => {
    for (const [tool, agent] of [
      ["ask_researcher", "researcher"],
      ["ask_writer", "writer"],
    ]) {
      const toolSpan = spans.find((s) => attr(s, "ai.toolCall.name") === tool);
      const subAgent = byFunction(agent as string, "ai.generateText")[0];
      expect(toolSpan && attr(toolSpan, "ai.telemetry.functionId")).toBe("orchestrator");
      expect(subAgent?.parentSpanId).toBe(toolSpan?.spanId);
    }
  });

  it("leaves nothing machine-specific in the export", () => {
    expectNoMachineSpecificValues(json);
  });
});
