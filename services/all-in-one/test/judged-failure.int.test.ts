/**
 * LLM judges end to end: a failed multi-agent run whose failure leaves no
 * mechanical trace (no error span, no failing tool, no contract) is exported
 * with a real OTel exporter. The planner's handoff to the booker drops the
 * request's "EU carriers only"; the verifier approves without checking. The
 * project's judges are configured over REST (OpenAI-compatible base URL of
 * the local mock provider, default sampling), the real createJudgeSuite runs
 * in the worker, and the mock answers each judge's prompt as a model would:
 * it reads the step and handoff numbers from the prompt and quotes the steps.
 * The verdicts are served as judge findings citing the right spans, in the
 * judge-source rates (not in the code-source ones), with their calls; a
 * re-posted outcome re-runs only the judges that read the outcome, an
 * unchanged one calls nobody, and one more span re-runs them all; every
 * earlier verdict is kept.
 */
import { ROOT_CONTEXT, SpanKind, trace, type Span, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { startMockLlmServer, type MockLlmReply, type MockLlmRequest } from "@crux/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, eventually, getJson, startTestCrux, type TestCrux } from "./harness.ts";

const SERVICE = "travel-crew";
const REQUEST = "Book a flight from Paris to Lisbon on 12 March for one adult. EU carriers only.";
const HANDOFF = "Book a flight from Paris to Lisbon on 12 March for one adult.";
const APPROVAL = "APPROVED. The booking looks fine.";
const JUDGE_MODEL = "gpt-4o-mini";
const TOKENS = { inputTokens: 1_200, outputTokens: 150 };
/** gpt-4o-mini at $0.15 / $0.60 per million tokens (packages/judges prices). */
const CALL_COST = (1_200 * 0.15 + 150 * 0.6) / 1e6;

const text = (role: string, content: string) => JSON.stringify([{ role, parts: [{ type: "text", content }] }]);

/** The run: planner → booker (the handoff drops the constraint) → verifier (approves unchecked); the outcome tag says it failed. */
function emitRun(tracer: Tracer, startMs: number) {
  let t = startMs;
  const open = (name: string, parent: Span | null, attrs: Record<string, string | number | boolean>, kind = SpanKind.INTERNAL) =>
    tracer.startSpan(name, { kind, attributes: attrs, startTime: (t += 10) }, parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT);
  const agent = (name: string, parent: Span | null) =>
    open(`invoke_agent ${name}`, parent, { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name });
  const chat = (parent: Span, input: string, output: string) => {
    const s = open(
      "chat mistral-large",
      parent,
      {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "mistral-large",
        "gen_ai.usage.input_tokens": 200,
        "gen_ai.usage.output_tokens": 40,
        "gen_ai.input.messages": text("user", input),
        "gen_ai.output.messages": text("assistant", output),
      },
      SpanKind.CLIENT,
    );
    s.end((t += 30));
    return s;
  };
  const tool = (parent: Span, name: string, args: object, result?: string) =>
    open(`execute_tool ${name}`, parent, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": name,
      "gen_ai.tool.call.arguments": JSON.stringify(args),
      ...(result === undefined ? {} : { "gen_ai.tool.call.result": result }),
    });

  const planner = agent("planner", null);
  planner.setAttributes({ "crux.task.goal": REQUEST, "crux.outcome.success": false });
  chat(planner, REQUEST, "I will hand the booking to the booker, then have it verified.");
  const toBooker = tool(planner, "transfer_to_booker", { message: HANDOFF });
  const booker = agent("booker", toBooker);
  chat(booker, HANDOFF, "Searching flights Paris to Lisbon on 12 March.");
  tool(booker, "book_flight", { from: "CDG", to: "LIS", date: "2027-03-12", flight: "TK1916" }, "Booked TK1916 (Turkish Airlines) via Istanbul.").end(
    (t += 20),
  );
  booker.end((t += 5));
  toBooker.end((t += 1));
  const toVerifier = tool(planner, "transfer_to_verifier", { message: "Verify the booking TK1916 Paris to Lisbon on 12 March." });
  const verifier = agent("verifier", toVerifier);
  const approval = chat(verifier, "Verify the booking TK1916 Paris to Lisbon on 12 March.", APPROVAL);
  verifier.end((t += 5));
  toVerifier.end((t += 1));
  planner.end((t += 5));
  return {
    root: planner.spanContext(),
    traceId: planner.spanContext().traceId,
    handoffSpanId: toBooker.spanContext().spanId,
    approvalSpanId: approval.spanContext().spanId,
  };
}

/** The number of the first step whose header line matches, as the prompt numbers it ("[3] verifier · model call ..."). */
function stepOf(prompt: string, header: RegExp): number {
  for (const line of prompt.split("\n")) {
    const m = /^\[(\d+)\] (.*)$/.exec(line);
    if (m && header.test(m[2]!)) return Number(m[1]);
  }
  throw new Error(`mock: no step matching ${header} in the prompt`);
}

type JudgeAsked = "handoff" | "mast" | "all-at-once" | "step-by-step";

function judgeAsked(prompt: string): JudgeAsked {
  if (prompt.includes("\nHandoffs:\n")) return "handoff";
  if (prompt.includes("Answer every question below")) return "mast";
  if (prompt.includes("You are walking the run step by step")) return "step-by-step";
  if (prompt.includes("Read the whole trajectory, then name the agent")) return "all-at-once";
  throw new Error(`mock: a prompt no judge of this test sends: ${prompt.slice(0, 200)}`);
}

const MAST_MODES = ["FM-1.1", "FM-1.2", "FM-1.3", "FM-1.4", "FM-1.5", "FM-2.1", "FM-2.2", "FM-2.3", "FM-2.4", "FM-2.5", "FM-2.6", "FM-3.1", "FM-3.2", "FM-3.3"];

/** What a model would answer each judge on this trace, read off the prompt it was sent. */
function answer(request: MockLlmRequest): MockLlmReply {
  const prompt = request.prompt;
  const reply = (body: unknown): MockLlmReply => ({ text: JSON.stringify(body), ...TOKENS });
  switch (judgeAsked(prompt)) {
    case "handoff": {
      const handoff = Number(/Handoff (\d+): planner → booker/.exec(prompt)?.[1]);
      return reply({
        issues: [
          {
            handoff,
            constraint: "EU carriers only",
            change: "dropped",
            handoffQuote: HANDOFF,
            explanation: "The booker is never told to keep to EU carriers.",
            confidence: 0.9,
          },
        ],
      });
    }
    case "mast": {
      const approval = stepOf(prompt, /^verifier · model call/);
      const answers = MAST_MODES.map((mode) =>
        mode === "FM-3.2" || mode === "FM-3.3"
          ? {
              mode,
              answer: "yes",
              step: approval,
              evidence: APPROVAL,
              explanation: mode === "FM-3.2" ? "The verifier approves without checking the carrier." : "It approves a booking on a non-EU carrier.",
              confidence: 0.8,
            }
          : { mode, answer: "no", explanation: "" },
      );
      return reply({ answers });
    }
    case "all-at-once":
    case "step-by-step": {
      const handoff = stepOf(prompt, /^planner · .*booker/);
      return reply({ agent: "planner", step: handoff, evidence: HANDOFF, explanation: "The constraint is lost at this handoff." });
    }
  }
}

describe.each(backends())("a failed run judged end to end on $name", (backend) => {
  let crux: TestCrux;
  let mock: Awaited<ReturnType<typeof startMockLlmServer>>;
  beforeAll(async () => {
    mock = await startMockLlmServer(answer);
    crux = await startTestCrux(backend, { CRUX_SECRET_KEY: "an end-to-end secret of thirty-two characters" });
  });
  afterAll(async () => {
    await crux?.stop();
    await mock?.close();
  });

  it("finds the dropped constraint and the rubber stamp by judge only, serves their calls, and keeps the verdicts on a re-settle", async () => {
    const api = `${crux.apiUrl}/api/v1`;
    const put = await fetch(`${api}/judge-settings`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ provider: "openai", model: JUDGE_MODEL, baseUrl: mock.openAiBaseUrl, apiKey: "sk-local-judge" }),
    });
    expect(put.status, await put.clone().text()).toBe(200);

    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": SERVICE }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: crux.otlpUrl }))],
    });
    const run = emitRun(provider.getTracer("crux-test"), Date.now() - 60_000);
    await provider.forceFlush();
    await provider.shutdown();
    const { traceId } = run;

    const judgeFindings = async () => ((await getJson(`${api}/traces/${traceId}/findings?limit=500`)).body.items as any[]).filter((f) => f.source === "judge");
    const findings = await eventually(async () => {
      const items = await judgeFindings();
      return ["FM-2.4", "FM-3.2", "FM-3.3"].every((m) => items.some((f) => f.mode === m)) ? items : undefined;
    }, 15_000);
    const dropped = findings.filter((f) => f.mode === "FM-2.4");
    expect(dropped).toEqual([expect.objectContaining({ judge: "judge.handoff-preservation", agent: "planner", spanId: run.handoffSpanId, evidence: HANDOFF })]);
    expect(dropped[0].explanation).toContain("EU carriers only");
    for (const mode of ["FM-3.2", "FM-3.3"]) {
      expect(findings.filter((f) => f.mode === mode)).toEqual([
        expect.objectContaining({ judge: "judge.mast-checklist", agent: "verifier", spanId: run.approvalSpanId, evidence: APPROVAL }),
      ]);
    }
    // Nothing mechanical: no detector sees the dropped constraint or the unchecked result. (The approval heuristic
    // does flag FM-3.3: an agent named verifier approved a run that failed; it cannot say what went unchecked.)
    const codeFindings = ((await getJson(`${api}/traces/${traceId}/findings?limit=500`)).body.items as any[]).filter((f) => f.source !== "judge");
    expect(codeFindings.filter((f) => ["FM-2.4", "FM-3.2"].includes(f.mode))).toEqual([]);

    // The decisive-error judges name the planner's handoff.
    const attribution = await eventually(async () => {
      const methods = (await getJson(`${api}/traces/${traceId}/attribution`)).body.methods as any[];
      return methods.filter((m) => m.source !== "code" && m.pick !== null).length === 2 ? methods : undefined;
    });
    for (const m of attribution.filter((x) => x.source !== "code")) expect(m.pick).toMatchObject({ agent: "planner", spanId: run.handoffSpanId });

    const rates = async (source: string) => {
      const r = await getJson(`${api}/metrics/failure-modes?service=${SERVICE}&source=${source}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return new Map((r.body.rates as any[]).map((x) => [x.mode, x]));
    };
    const byJudge = await rates("judge");
    for (const mode of ["FM-2.4", "FM-3.2", "FM-3.3"]) expect(byJudge.get(mode)?.rate, mode).toBeGreaterThan(0);
    const byCode = await rates("code");
    expect(byCode.get("FM-2.4")?.numerator ?? 0).toBe(0);

    // One call per judge prompt (the outcome is known: the outcome-rubric judge asks nothing), each with tokens and cost.
    const asked = () => mock.requests.map((r) => judgeAsked(r.prompt));
    expect(asked().sort()).toEqual(["all-at-once", "handoff", "mast", "step-by-step"]);
    expect(mock.requests.every((r) => r.body.model === JUDGE_MODEL && r.headers.authorization === "Bearer sk-local-judge")).toBe(true);
    const calls = (await getJson(`${api}/judge-calls?traceId=${traceId}`)).body.items as any[];
    expect(calls).toHaveLength(4);
    for (const c of calls) {
      expect(c).toMatchObject({ model: JUDGE_MODEL, provider: "openai", outcome: "ok", ...TOKENS });
      expect(c.costUsd).toBeCloseTo(CALL_COST, 12);
    }

    // Re-scored with the outcome posted (the same as the tracer's tag, now an override): the span set is unchanged,
    // so the handoff judge (it reads spans only) is not asked again; the judges that read the outcome are, once
    // each. Every earlier verdict is kept.
    const verdictsBefore = (await getJson(`${api}/traces/${traceId}/verdicts`)).body.items as any[];
    const postOutcome = async () => {
      const res = await fetch(`${api}/traces/${traceId}/outcome`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ success: false }),
      });
      expect(res.status).toBe(202);
    };
    await postOutcome();
    await eventually(async () => (mock.requests.length >= 7 ? true : undefined), 10_000);
    const verdictsAfter = await eventually(async () => {
      const items = (await getJson(`${api}/traces/${traceId}/verdicts`)).body.items as any[];
      // The three that asked again and the outcome-rubric judge's skip (no call).
      return items.length === verdictsBefore.length + 4 ? items : undefined;
    });
    expect(asked().slice(4).sort()).toEqual(["all-at-once", "mast", "step-by-step"]);
    for (const v of verdictsBefore) expect(verdictsAfter).toContainEqual(v);
    expect(verdictsAfter.filter((v) => v.producerId === "judge.handoff-preservation")).toHaveLength(1);
    const kept = await judgeFindings();
    for (const mode of ["FM-2.4", "FM-3.2", "FM-3.3"]) expect(kept.some((f) => f.mode === mode)).toBe(true);

    // The same outcome again: the judge stage runs (counted at /metrics) and, nothing having changed, calls no provider.
    const judgeJobs = async () => {
      const line = (await (await fetch(`${crux.apiUrl}/metrics`)).text())
        .split("\n")
        .find((l) => l.startsWith("crux_worker_jobs_total{") && l.includes('queue="trace.judge"') && l.includes('outcome="completed"'));
      return line === undefined ? 0 : Number(line.split(" ").at(-1));
    };
    // Read once the count is still (the job that stored the verdicts above may not be counted yet).
    const judgedBefore = await eventually(async () => {
      const n = await judgeJobs();
      await new Promise((r) => setTimeout(r, 300));
      return (await judgeJobs()) === n ? n : undefined;
    });
    await postOutcome();
    await eventually(async () => ((await judgeJobs()) > judgedBefore ? true : undefined));
    expect(mock.requests).toHaveLength(7);
    expect((await getJson(`${api}/judge-calls?traceId=${traceId}`)).body.items).toHaveLength(7);

    // One more span in the trace: a new span set, so every judge reads the trace again; the older verdicts stay.
    const late = new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": SERVICE }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: crux.otlpUrl }))],
    });
    const at = Date.now() - 30_000;
    late
      .getTracer("crux-test")
      .startSpan("planner.summary", { startTime: at }, trace.setSpanContext(ROOT_CONTEXT, run.root))
      .end(at + 5);
    await late.forceFlush();
    await late.shutdown();
    await eventually(async () => (mock.requests.length >= 11 ? true : undefined), 10_000);
    expect(asked().slice(7).sort()).toEqual(["all-at-once", "handoff", "mast", "step-by-step"]);
    const verdictsLast = await eventually(async () => {
      const items = (await getJson(`${api}/traces/${traceId}/verdicts`)).body.items as any[];
      return items.length === verdictsAfter.length + 5 ? items : undefined;
    });
    for (const v of verdictsAfter) expect(verdictsLast).toContainEqual(v);
    const rejudged = await judgeFindings();
    expect(rejudged.filter((f) => f.mode === "FM-2.4").map((f) => f.spanId)).toEqual([run.handoffSpanId]);
  }, 30_000);
});
