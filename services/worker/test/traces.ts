/**
 * Traces for worker tests, emitted through the real OpenTelemetry SDK, then
 * serialized, decoded and normalized exactly as the receiver does.
 *
 * The "report" scenario: a planner hands a task to a writer (transfer tool
 * with a JSON payload), the writer drafts and saves report.md, a reviewer
 * reads it and approves. Options inject failures.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";
import type { NormalizedSpan, SchemaValidator } from "@crux/core";
import type { Database } from "@crux/db";
import { addContent, decodeExportRequest, normalizeSpans } from "@crux/otlp";
import { createInProcessQueue, type JobQueue, type QueueName } from "@crux/queue";
import type { Logger, Registry } from "@crux/runtime";
import { recordSpans, toProtobuf } from "@crux/testkit";
import type { JudgeProducer } from "../src/judging/judge-producer.ts";
import { createJudgeProcessor } from "../src/processors/judge.processor.ts";
import { createScoreProcessor } from "../src/processors/score.processor.ts";
import { createSettleProcessor } from "../src/processors/settle.processor.ts";
import type { Worker } from "../src/worker.ts";

const REPORT_GOAL = "Write a report on heat pumps in Norway, under 500 words, cite sources";

export interface ReportOptions {
  startMs: number;
  /** crux.outcome.success on the root span; omitted = unknown. */
  success?: boolean;
  /** The transfer payload omits "path" (fails a schema requiring it). */
  payloadWithoutPath?: boolean;
  /** The handoff message drops "cite sources". */
  dropConstraint?: boolean;
  /** The save_file tool fails and is never retried. */
  saveFails?: boolean;
  /** No reviewer step at all. */
  noReviewer?: boolean;
}

export function normalized(emit: (tracer: Tracer) => void, serviceName = "report-crew"): NormalizedSpan[] {
  const decoded = decodeExportRequest(toProtobuf(recordSpans(emit, serviceName)), "protobuf");
  return normalizeSpans(decoded.spans).map(addContent);
}

function emitReportTrace(tracer: Tracer, o: ReportOptions): { traceId: string } {
  let t = o.startMs;
  const at = (d: number) => (t += d);
  const start = (name: string, parent: Span | null, attributes: Record<string, string | number | boolean>, kind = SpanKind.INTERNAL) =>
    tracer.startSpan(name, { kind, attributes, startTime: at(5) }, parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT);
  const agent = (parent: Span | null, name: string, input: string) =>
    start(`invoke_agent ${name}`, parent, {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": name,
      "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: input }] }]),
    });
  const chat = (parent: Span, input: number, output: number, text: string) =>
    start(
      "chat gpt-4o-mini",
      parent,
      {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.usage.input_tokens": input,
        "gen_ai.usage.output_tokens": output,
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: text }] }]),
      },
      SpanKind.CLIENT,
    ).end(at(30));
  const tool = (parent: Span, name: string, args: object, fail = false) => {
    const s = start(`execute_tool ${name}`, parent, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": name,
      "gen_ai.tool.call.arguments": JSON.stringify(args),
    });
    if (fail) s.setStatus({ code: SpanStatusCode.ERROR, message: "disk full" });
    return s;
  };

  const root = agent(null, "planner", REPORT_GOAL);
  if (o.success !== undefined) root.setAttribute("crux.outcome.success", o.success);
  root.setAttribute("crux.task.id", "heat-pumps");
  chat(root, 300, 60, "Plan: the writer drafts the report, the reviewer checks it");
  const message = o.dropConstraint ? "Write the heat pump report, under 500 words" : "Write the heat pump report, under 500 words, cite sources";
  const payload = o.payloadWithoutPath ? { message } : { message, path: "report.md" };
  const handoff = tool(root, "transfer_to_writer", payload);
  const writer = agent(handoff, "writer", message);
  chat(writer, 800, 400, "Heat pumps in Norway: over 60% of homes use them (source: Enova)");
  tool(writer, "save_file", { path: "report.md" }, o.saveFails).end(at(10));
  writer.end(at(2));
  handoff.end(at(1));
  if (!o.noReviewer) {
    const reviewer = agent(root, "reviewer", "Review report.md");
    chat(reviewer, 500, 40, "Approved: the heat pump report cites Enova");
    reviewer.end(at(2));
  }
  chat(root, 200, 30, "Report on heat pumps in Norway delivered");
  root.end(at(2));
  return { traceId: root.spanContext().traceId };
}

export function reportTrace(o: ReportOptions): NormalizedSpan[] {
  return normalized((tracer) => emitReportTrace(tracer, o));
}

/** Runs of `queue` with `outcome` so far, from the worker's crux_worker_jobs_total. */
export async function jobsCounted(registry: Registry, queue: QueueName, outcome: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === "crux_worker_jobs_total");
  return metric?.values.find((v) => v.labels.queue === queue && v.labels.outcome === outcome)?.value ?? 0;
}

/** Shuts down what a worker test started, in the composition root's order. */
export async function stopTestWorker(parts: { worker: Worker; queue: JobQueue; purge: () => Promise<unknown>; database: Database }): Promise<void> {
  await parts.worker.stop();
  await parts.queue.close(5_000);
  await parts.worker.close();
  await parts.purge();
  await parts.database.close();
}

/** Polls `probe` every 20 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A logger that records warnings (the worker only calls info/warn on it). */
export function recordingLog() {
  const warnings: Array<{ obj: unknown; msg: string }> = [];
  const debugs: string[] = [];
  const log = {
    warn: (obj: unknown, msg: string) => warnings.push({ obj, msg }),
    info: () => {},
    debug: (_obj: unknown, msg: string) => debugs.push(msg),
    error: (obj: unknown, msg: string) => warnings.push({ obj, msg }),
  };
  return { log: log as unknown as Logger, warnings, debugs };
}

/**
 * The stages as the worker composes them, called one after the other by the test. The jobs
 * they enqueue for the next stage wait in a real in-process queue that nobody processes.
 */
export function directStages(database: Database, opts: { log?: Logger; validateSchema?: SchemaValidator; judges?: readonly JudgeProducer[] } = {}) {
  const queue = createInProcessQueue();
  const log = opts.log ?? recordingLog().log;
  const judges = opts.judges ?? [];
  const settle = createSettleProcessor({ database, queue, log });
  const score = createScoreProcessor({
    database,
    queue,
    log,
    judging: judges.length > 0,
    ...(opts.validateSchema ? { validateSchema: opts.validateSchema } : {}),
  });
  const judge = createJudgeProcessor({ database, log, producers: judges, leaseMs: 60_000 });
  return {
    queue,
    settle,
    score,
    judge,
    /** settle → score → judge, as the queue would run them for one trace. */
    async run(payload: { projectId: string; traceId: string }): Promise<void> {
      await settle(payload);
      await score(payload);
      if (judges.length > 0) await judge(payload);
    },
    close: () => queue.close(0),
  };
}
