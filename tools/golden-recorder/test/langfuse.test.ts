import { beforeAll, describe, expect, it } from "vitest";
import { LANGFUSE_USAGE, recordLangfuse } from "../src/langfuse.ts";
import { allSpans, attr, type ExportJson, type ExportSpan } from "../src/otel.ts";
import { expectNoMachineSpecificValues } from "./helpers.ts";

describe("@langfuse/tracing + @langfuse/otel live scenario", () => {
  let json: ExportJson;
  let spans: ExportSpan[];
  beforeAll(async () => {
    json = await recordLangfuse();
    spans = allSpans(json);
  }, 60_000);

  const type = (s: ExportSpan) => attr(s, "langfuse.observation.type");
  const byId = (id: string | undefined) => spans.find((s) => s.spanId === id);
  const owningAgent = (s: ExportSpan): string | undefined => {
    for (let p = byId(s.parentSpanId); p; p = byId(p.parentSpanId)) if (type(p) === "agent") return p.name;
    return undefined;
  };

  it("exports only the Langfuse SDK's spans, the three agents named by their span names", () => {
    expect(new Set(json.resourceSpans.flatMap((rs) => rs.scopeSpans.map((ss) => ss.scope?.name)))).toEqual(new Set(["langfuse-sdk"]));
    expect(
      spans
        .filter((s) => type(s) === "agent")
        .map((s) => s.name)
        .sort(),
    ).toEqual(["orchestrator", "researcher", "writer"]);
  });

  it("nests the researcher and the writer directly under the orchestrator", () => {
    for (const agent of ["researcher", "writer"]) {
      const run = spans.find((s) => type(s) === "agent" && s.name === agent);
      expect(run && byId(run.parentSpanId)?.name, agent).toBe("orchestrator");
    }
  });

  it("puts each scripted usage, as Langfuse usage details, on one generation span of its agent", () => {
    for (const [agent, calls] of Object.entries(LANGFUSE_USAGE)) {
      const generations = spans.filter((s) => type(s) === "generation" && owningAgent(s) === agent);
      expect(generations.map((g) => g.name).sort(), agent).toEqual(calls.map((c) => c.name).sort());
      for (const call of calls) {
        const g = generations.find((s) => s.name === call.name) as ExportSpan;
        expect(JSON.parse(String(attr(g, "langfuse.observation.usage_details"))), call.name).toEqual(call.usage);
        expect(attr(g, "langfuse.observation.model.name")).toBe("mock-model-1");
      }
    }
  });

  it("records the throwing fetch_rates tool as level ERROR with its message and no OTel error status", () => {
    expect(spans.filter((s) => (s.status?.code ?? 0) !== 0)).toEqual([]);
    const errors = spans.filter((s) => attr(s, "langfuse.observation.level") === "ERROR");
    expect(errors.map((s) => [s.name, type(s), owningAgent(s), attr(s, "langfuse.observation.status_message")])).toEqual([
      ["fetch_rates", "tool", "researcher", "rate service timed out for EU-road-1"],
    ]);
  });

  it("captures each tool's single argument as its input JSON", () => {
    const search = spans.find((s) => s.name === "search_carriers") as ExportSpan;
    expect(JSON.parse(String(attr(search, "langfuse.observation.input")))).toEqual({ region: "EU", mode: "road" });
  });

  it("leaves nothing machine-specific in the export", () => {
    expectNoMachineSpecificValues(json);
  });
});
