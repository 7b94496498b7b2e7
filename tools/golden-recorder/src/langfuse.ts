/**
 * Langfuse JS SDK scenario: manual instrumentation with @langfuse/tracing
 * (`startActiveObservation` for agents and generations, `observe` for tools),
 * exported through @langfuse/otel's LangfuseSpanProcessor, whose `exporter`
 * option takes any OTel SpanExporter, so spans are collected in memory
 * instead of being posted to Langfuse.
 *
 * An `orchestrator` agent plans, delegates to a nested `researcher` agent
 * (search_carriers succeeds, fetch_rates throws: `observe` records it as
 * level ERROR with a status message and leaves the OTel status unset; the
 * researcher catches it and answers anyway) and to a nested `writer` agent
 * (format_report), then answers. The "model" is a script: each generation
 * reports its usage the way Langfuse's own integrations do, `input` without
 * the cached tokens, which come separately as `input_cached_tokens`.
 */
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { observe, setLangfuseTracerProvider, startActiveObservation } from "@langfuse/tracing";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { ensureAsyncContext, serializeSpans, type ExportJson } from "./otel.ts";

const LANGFUSE_SERVICE = "golden-langfuse";
const MODEL = "mock-model-1";

/** One scripted model call: Langfuse usage details (input excludes input_cached_tokens), and a reported cost on some calls. */
interface ScriptedCall {
  name: string;
  usage: { input: number; input_cached_tokens?: number; output: number };
  cost?: { input: number; output: number; total: number };
  output: string;
}

/** Scripted model calls per agent, in call order (expected.json sums these). */
export const LANGFUSE_USAGE = {
  orchestrator: [
    {
      name: "plan",
      usage: { input: 100, input_cached_tokens: 40, output: 20 },
      cost: { input: 0.0007, output: 0.0006, total: 0.0013 },
      output: "Delegate research, then writing.",
    },
    { name: "summarize", usage: { input: 260, input_cached_tokens: 140, output: 45 }, output: "Final: the EU road report is ready." },
  ],
  researcher: [
    { name: "research", usage: { input: 80, input_cached_tokens: 20, output: 15 }, output: "Search carriers, then fetch rates." },
    { name: "findings", usage: { input: 150, output: 30 }, output: "Two EU road carriers found; rates unavailable." },
  ],
  writer: [{ name: "draft", usage: { input: 120, input_cached_tokens: 60, output: 70 }, output: "Report: two EU road carriers, rates pending." }],
} as const satisfies Record<string, readonly ScriptedCall[]>;

/** Collects exported spans; unlike InMemorySpanExporter it keeps them through shutdown(). */
class CollectingSpanExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter["export"]>[1]): void {
    this.spans.push(...spans);
    resultCallback({ code: 0 });
  }
  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}

/** A generation observation answering from the script, as an instrumented model call would. */
async function generate(call: ScriptedCall, input: string): Promise<string> {
  return startActiveObservation(
    call.name,
    async (generation) => {
      generation.update({ model: MODEL, input: [{ role: "user", content: input }] });
      await Promise.resolve();
      generation.update({
        output: { role: "assistant", content: call.output },
        usageDetails: call.usage,
        ...(call.cost ? { costDetails: call.cost } : {}),
      });
      return call.output;
    },
    { asType: "generation" },
  );
}

const searchCarriers = observe(
  async (args: { region: string; mode: string }) => {
    await Promise.resolve();
    return { carriers: [`${args.region}-road-1`, `${args.region}-road-2`] };
  },
  { name: "search_carriers", asType: "tool" },
);

const fetchRates = observe(
  async (args: { carrier: string }) => {
    await Promise.resolve();
    throw new Error(`rate service timed out for ${args.carrier}`);
  },
  { name: "fetch_rates", asType: "tool" },
);

const formatReport = observe(
  async (args: { sections: string[] }) => {
    await Promise.resolve();
    return { markdown: args.sections.map((s) => `## ${s}`).join("\n") };
  },
  { name: "format_report", asType: "tool" },
);

function agent<T>(name: string, input: string, body: () => Promise<T>): Promise<T> {
  return startActiveObservation(
    name,
    async (observation) => {
      observation.update({ input });
      const output = await body();
      observation.update({ output });
      return output;
    },
    { asType: "agent" },
  );
}

async function runScenario(): Promise<string> {
  const [plan, summarize] = LANGFUSE_USAGE.orchestrator;
  const [research, findings] = LANGFUSE_USAGE.researcher;
  const [draft] = LANGFUSE_USAGE.writer;
  return agent("orchestrator", "Report on EU road carriers and their rates.", async () => {
    await generate(plan, "Report on EU road carriers and their rates.");
    const found = await agent("researcher", "Find EU road carriers and their rates.", async () => {
      await generate(research, "Find EU road carriers and their rates.");
      const { carriers } = await searchCarriers({ region: "EU", mode: "road" });
      try {
        await fetchRates({ carrier: carriers[0] ?? "" });
      } catch {
        // The researcher goes on without rates: the tool's error is the run's only failure.
      }
      return generate(findings, `Carriers: ${carriers.join(", ")}; rates failed.`);
    });
    const report = await agent("writer", `Write the report from: ${found}`, async () => {
      await formatReport({ sections: ["Carriers", "Rates"] });
      return generate(draft, `Write the report from: ${found}`);
    });
    return generate(summarize, `Report written: ${report}`);
  });
}

export async function recordLangfuse(): Promise<ExportJson> {
  ensureAsyncContext();
  const exporter = new CollectingSpanExporter();
  // exportMode immediate: a SimpleSpanProcessor inside, so every span is exported as it ends; no media upload (no network).
  const processor = new LangfuseSpanProcessor({ exporter, exportMode: "immediate", mediaUploadEnabled: false });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": LANGFUSE_SERVICE }),
    spanProcessors: [processor],
  });
  // The Langfuse SDK's own provider slot: the scenario never touches the global OTel provider.
  setLangfuseTracerProvider(provider);
  try {
    await runScenario();
    await provider.forceFlush();
  } finally {
    await provider.shutdown();
    setLangfuseTracerProvider(null);
  }
  return serializeSpans(exporter.spans);
}
