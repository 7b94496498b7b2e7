import { beforeAll, describe, expect, it } from "vitest";
import { LANGGRAPH_USAGE, recordLangGraph } from "../src/langgraph.ts";
import { allSpans, attr, sumAttr, type ExportJson, type ExportSpan } from "../src/otel.ts";
import { expectNoMachineSpecificValues, scriptedTotals } from "./helpers.ts";

describe("LangGraph supervisor + OpenInference live scenario", () => {
  let json: ExportJson;
  let spans: ExportSpan[];
  beforeAll(async () => {
    json = await recordLangGraph();
    spans = allSpans(json);
  }, 60_000);

  const kind = (s: ExportSpan) => attr(s, "openinference.span.kind");
  /** The agent a span runs in: first segment of LangGraph's checkpoint namespace in the OpenInference metadata JSON. */
  const agentOf = (s: ExportSpan): string | undefined => {
    const metadata = attr(s, "metadata");
    if (typeof metadata !== "string") return undefined;
    const ns = (JSON.parse(metadata) as { langgraph_checkpoint_ns?: string }).langgraph_checkpoint_ns;
    return ns?.split("|")[0]?.split(":")[0];
  };

  it("runs the supervisor and both workers (named CHAIN spans; no AGENT kind)", () => {
    expect(spans.length).toBeGreaterThan(0);
    const names = new Set(spans.map((s) => s.name));
    for (const agent of ["supervisor", "research_expert", "math_expert"]) expect(names.has(agent), agent).toBe(true);
    expect(spans.filter((s) => kind(s) === "AGENT")).toEqual([]);
  });

  it("records each scripted model call's usage on an LLM span inside that agent", () => {
    const llm = spans.filter((s) => kind(s) === "LLM");
    for (const [agent, calls] of Object.entries(LANGGRAPH_USAGE)) {
      const own = llm.filter((s) => agentOf(s) === agent);
      expect(own.length, agent).toBe(calls.length);
      expect({ input: sumAttr(own, "llm.token_count.prompt"), output: sumAttr(own, "llm.token_count.completion") }, agent).toEqual(scriptedTotals(calls));
    }
  });

  it("hands off through transfer_to_* tool spans that succeed", () => {
    const transfers = spans.filter((s) => kind(s) === "TOOL" && String(attr(s, "tool.name")).startsWith("transfer_to_"));
    expect(transfers.map((s) => [attr(s, "tool.name"), agentOf(s), s.status?.code])).toEqual([
      ["transfer_to_research_expert", "supervisor", 1],
      ["transfer_to_math_expert", "supervisor", 1],
    ]);
  });

  it("has error status on the throwing web_search tool and on ParentCommand control-flow spans only", () => {
    const errors = spans.filter((s) => s.status?.code === 2);
    const failing = errors.filter((s) => !(s.status?.message ?? "").includes("ParentCommand"));
    expect(failing.map((s) => [s.name, kind(s), agentOf(s)])).toEqual([["web_search", "TOOL", "research_expert"]]);
    const controlFlow = errors.filter((s) => (s.status?.message ?? "").includes("ParentCommand"));
    expect(controlFlow.map((s) => s.name).sort()).toEqual(["supervisor", "supervisor", "supervisor", "supervisor", "tools", "tools"]);
  });

  it("leaves nothing machine-specific in the export", () => {
    expectNoMachineSpecificValues(json);
  });
});
