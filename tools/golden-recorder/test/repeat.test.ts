/**
 * The `repeat` variants of the LangGraph and Mastra scenarios: the researcher
 * calls search_carriers three times in a row with identical arguments, and
 * each framework records those arguments where Crux reads tool arguments
 * (OpenInference `input.value`, Mastra `gen_ai.tool.input`).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { LANGGRAPH_REPEAT_USAGE, recordLangGraphRepeat, REPEATED_SEARCH_ARGS as LANGGRAPH_ARGS } from "../src/langgraph.ts";
import { MASTRA_REPEAT_USAGE, recordMastraRepeat, REPEATED_SEARCH_ARGS as MASTRA_ARGS } from "../src/mastra.ts";
import { allSpans, attr, sumAttr, type ExportJson, type ExportSpan } from "../src/otel.ts";
import { expectNoMachineSpecificValues, scriptedTotals } from "./helpers.ts";

describe.each([
  {
    framework: "LangGraph",
    record: recordLangGraphRepeat,
    args: LANGGRAPH_ARGS,
    isSearch: (s: ExportSpan) => attr(s, "openinference.span.kind") === "TOOL" && attr(s, "tool.name") === "search_carriers",
    argsKey: "input.value",
    failing: "web_search",
    usage: LANGGRAPH_REPEAT_USAGE.research_expert,
    usageOf: (spans: ExportSpan[]) => {
      const llm = spans.filter(
        (s) => attr(s, "openinference.span.kind") === "LLM" && String(attr(s, "metadata")).includes('"langgraph_checkpoint_ns":"research_expert:'),
      );
      return { input: sumAttr(llm, "llm.token_count.prompt"), output: sumAttr(llm, "llm.token_count.completion") };
    },
  },
  {
    framework: "Mastra",
    record: recordMastraRepeat,
    args: MASTRA_ARGS,
    isSearch: (s: ExportSpan) => attr(s, "mastra.span.type") === "tool_call" && attr(s, "gen_ai.tool.name") === "search_carriers",
    argsKey: "gen_ai.tool.input",
    failing: "fetch_sources",
    usage: MASTRA_REPEAT_USAGE.researcher,
    usageOf: (spans: ExportSpan[]) => {
      const agent = spans.find((s) => attr(s, "mastra.span.type") === "agent_run" && attr(s, "agent.id") === "researcher");
      const chat = spans.find((s) => attr(s, "mastra.span.type") === "model_generation" && s.parentSpanId === agent?.spanId);
      return { input: Number(chat && attr(chat, "gen_ai.usage.input_tokens")), output: Number(chat && attr(chat, "gen_ai.usage.output_tokens")) };
    },
  },
])("$framework repeat variant", ({ record, args, isSearch, argsKey, failing, usage, usageOf }) => {
  let json: ExportJson;
  let spans: ExportSpan[];
  beforeAll(async () => {
    json = await record();
    spans = allSpans(json);
  }, 60_000);

  it("records three search_carriers calls in a row with identical arguments, all successful", () => {
    const searches = spans.filter(isSearch).sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
    expect(searches.map((s) => JSON.parse(String(attr(s, argsKey))))).toEqual([args, args, args]);
    expect(searches.map((s) => s.status?.code ?? 0).filter((c) => c === 2)).toEqual([]);
  });

  it("keeps the scenario's failing tool as the only error, and the researcher's scripted usage", () => {
    const errors = spans.filter((s) => s.status?.code === 2 && (attr(s, "tool.name") ?? attr(s, "gen_ai.tool.name")) !== undefined);
    expect(errors.map((s) => attr(s, "tool.name") ?? attr(s, "gen_ai.tool.name"))).toEqual([failing]);
    expect(usageOf(spans)).toEqual(scriptedTotals(usage));
  });

  it("leaves nothing machine-specific in the export", () => {
    expectNoMachineSpecificValues(json);
  });
});
