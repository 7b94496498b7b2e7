/**
 * The ingest pipeline shared by OTLP/HTTP and OTLP/gRPC: decode → normalize →
 * one transaction → (answer) → enqueue settle jobs. Transport code maps the
 * outcome to status codes; this module decides nothing about HTTP or gRPC.
 *
 * The answer goes out once the transaction commits; the settle enqueue follows
 * it. The exporter never waits on Redis (a slow or down Redis costs it
 * nothing), and nothing is lost if the enqueue fails or the process dies
 * first: the write marked every touched trace dirty and the sweeper enqueues
 * dirty traces. A request counts as in flight until its enqueue is done, so a
 * slow Redis still limits concurrency, and drain() waits for those enqueues.
 */
import { OverloadedError } from "@crux/core";
import { insertSpanBatch, type Database } from "@crux/db";
import { decodeExportRequest, normalizeSpans, type DecodeLimits, type OtlpFormat } from "@crux/otlp";
import type { JobQueue } from "@crux/queue";
import { ThrottledError } from "./errors.ts";
import type { ReceiverMetrics } from "./metrics.ts";

export interface IngestDeps {
  database: Database;
  queue: JobQueue;
  limits: DecodeLimits;
  /** Quiet period before a trace is settled; each new batch of the trace pushes it back. */
  settleDelayMs: number;
  /**
   * Shorter delay for a trace whose root span arrived in this batch with every
   * parent of the batch's spans present: the run is over and its children are
   * in, so there is no reason to wait out the quiet period. A later span still
   * re-opens the trace (its enqueue replaces this one with the full delay).
   */
  settleRootDelayMs: number;
  /** Above this many pending settle jobs the receiver sheds load with a retryable status. */
  maxQueueDepth: number;
  /** Max ingest requests processed at once; more are refused with a retryable status. */
  maxInFlight: number;
  /** How often the settle queue's depth is read in the background (default 1 s). */
  depthRefreshMs?: number;
  metrics: ReceiverMetrics;
  log: Logger;
}

/** Filled in by ingest() as it learns things, so a failure can still be reported with them. */
export interface ExportAttempt {
  /** Spans decoded from the request (valid ones). */
  spans?: number;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface IngestOutcome {
  accepted: number;
  duplicates: number;
  rejectedSpans: number;
  /** "" when every span was accepted; else what was rejected and why (OTLP partial_success.error_message). */
  rejectionMessage: string;
}

const defaultDepthRefreshMs = 1_000;

export function createIngestPipeline(deps: IngestDeps) {
  let inFlight = 0;
  const pendingEnqueues = new Set<Promise<void>>();
  const { metrics } = deps;
  const setInFlight = (n: number) => {
    inFlight = n;
    metrics.inflightRequests.set(n);
  };

  /**
   * The trace pipeline's backlog (settle plus score jobs: a worker that cannot
   * keep up with scoring is as far behind as one that cannot settle), read on a timer (not when a request arrives: a
   * reading taken only on demand is stale for the first request after a quiet
   * spell, which refused exports minutes after a backlog had cleared). An
   * export never waits on Redis for it. Unknown or unreachable counts as 0:
   * ingest still works without the queue (the sweeper re-enqueues), so that
   * is no reason to shed load.
   */
  let depth = 0;
  let depthReading: Promise<void> | null = null;
  function readDepth(): void {
    if (depthReading) return; // a stuck Redis holds one reading at a time, not one per tick
    depthReading = Promise.all([deps.queue.depth("trace.settle"), deps.queue.depth("trace.score")])
      .then(([settle, score]) => settle + score)
      .catch(() => 0)
      .then((value) => {
        depth = value;
        metrics.queueDepth.set(value);
        depthReading = null;
      });
  }
  readDepth();
  const depthTimer = setInterval(readDepth, deps.depthRefreshMs ?? defaultDepthRefreshMs);
  depthTimer.unref();

  /**
   * A place among the requests in flight, or a throw: ThrottledError (429) at
   * the request limit, OverloadedError (503) above the backlog ceiling. The
   * HTTP server takes it on the request's headers, before the body is read,
   * so requests past the limit are answered at once instead of queueing.
   */
  function admit(): InFlightSlot {
    const refused = refusal();
    if (refused) throw refused;
    setInFlight(inFlight + 1);
    return new InFlightSlot(() => setInFlight(inFlight - 1));
  }

  /** What admit() would throw now, without taking a place (gRPC refuses on metadata with it). */
  function refusal(): Error | null {
    if (inFlight >= deps.maxInFlight) {
      return new ThrottledError(
        "inflight_requests",
        `too many concurrent export requests (limit ${deps.maxInFlight}, CRUX_MAX_INFLIGHT_REQUESTS); retry later`,
      );
    }
    if (depth > deps.maxQueueDepth) return new OverloadedError("processing backlog is above its ceiling", 5);
    return null;
  }

  /**
   * Throws PermanentError for an undecodable request (nothing stored) and
   * ThrottledError/OverloadedError when the service is saturated (nothing
   * stored, retry later). Any other error means the write failed and is
   * retryable. `slot` (from admit()) is taken when not given; either way the
   * pipeline keeps it until the settle enqueue after the answer is done.
   */
  async function ingest(
    body: Uint8Array,
    format: OtlpFormat,
    projectId: string,
    attempt: ExportAttempt = {},
    slot: InFlightSlot = admit(),
  ): Promise<IngestOutcome> {
    const free = slot.handOff();
    let handedOff = false; // once the enqueue runs, it frees the slot
    try {
      const decoded = decodeExportRequest(body, format, deps.limits);
      for (const [reason, count] of Object.entries(decoded.rejectedByCode)) metrics.spansRejected.inc({ reason }, count);
      attempt.spans = decoded.spans.length;
      if (decoded.spans.length === 0) {
        return { accepted: 0, duplicates: 0, rejectedSpans: decoded.rejectedSpans, rejectionMessage: decoded.rejectionMessage };
      }
      const spans = normalizeSpans(decoded.spans);
      const written = await insertSpanBatch(deps.database, projectId, spans);
      metrics.spansAccepted.inc(spans.length);
      const stored = {
        projectId,
        spans: spans.length,
        inserted: written.inserted,
        duplicates: written.duplicates,
        rejected: decoded.rejectedSpans,
        traces: written.traceIds.length,
      };
      const enqueue: Promise<void> = enqueueSettle(projectId, written.traceIds, completedTraces(spans))
        .then((enqueued) => deps.log.info({ ...stored, enqueued }, "export stored"))
        .finally(() => {
          pendingEnqueues.delete(enqueue);
          free();
        });
      pendingEnqueues.add(enqueue);
      handedOff = true;
      return {
        accepted: written.inserted,
        duplicates: written.duplicates,
        rejectedSpans: decoded.rejectedSpans,
        rejectionMessage: decoded.rejectionMessage,
      };
    } finally {
      if (!handedOff) free();
    }
  }

  /** Never rejects: a failed enqueue is logged and left to the sweeper. */
  async function enqueueSettle(projectId: string, traceIds: string[], completed: Set<string>): Promise<boolean> {
    if (traceIds.length === 0) return true;
    const payload = (traceId: string) => ({ projectId, traceId });
    const rootDelay = Math.min(deps.settleRootDelayMs, deps.settleDelayMs);
    const soon = traceIds.filter((id) => completed.has(id));
    const later = traceIds.filter((id) => !completed.has(id));
    try {
      if (soon.length > 0) await deps.queue.enqueueMany("trace.settle", soon.map(payload), { delayMs: rootDelay });
      if (later.length > 0) await deps.queue.enqueueMany("trace.settle", later.map(payload), { delayMs: deps.settleDelayMs });
      return true;
    } catch (err) {
      // Spans are committed and their traces are marked dirty: the sweeper enqueues them later.
      deps.log.warn({ err: String(err), traces: traceIds.length }, "settle enqueue failed; traces left dirty for the sweeper");
      return false;
    }
  }

  /** Resolves once every settle enqueue started so far has finished (shutdown calls it after intake stops); stops the depth readings. */
  async function drain(): Promise<void> {
    clearInterval(depthTimer);
    while (pendingEnqueues.size > 0) await Promise.all(pendingEnqueues);
  }

  return { admit, refusal, ingest, drain, inFlight: () => inFlight, queueDepth: () => depth };
}

/**
 * One request's place among those in flight. The transport releases it when
 * the request ends before reaching the pipeline (refused, bad key, client
 * gone); once handed to ingest(), only the pipeline frees it, after the
 * settle enqueue. Both are idempotent.
 */
export class InFlightSlot {
  private state: "held" | "handed_off" | "freed" = "held";

  constructor(private readonly free: () => void) {}

  release(): void {
    if (this.state !== "held") return;
    this.state = "freed";
    this.free();
  }

  handOff(): () => void {
    if (this.state !== "held") throw new Error("in-flight slot already released or handed off");
    this.state = "handed_off";
    return () => {
      if (this.state === "freed") return;
      this.state = "freed";
      this.free();
    };
  }
}

/** Traces of the batch whose root span is in it and whose spans' parents are all in it too. */
export function completedTraces(spans: readonly { traceId: string; spanId: string; parentSpanId: string | null }[]): Set<string> {
  const ids = new Set<string>();
  const withRoot = new Set<string>();
  for (const s of spans) {
    ids.add(`${s.traceId}/${s.spanId}`);
    if (s.parentSpanId === null) withRoot.add(s.traceId);
  }
  const incomplete = new Set<string>();
  for (const s of spans) if (s.parentSpanId !== null && !ids.has(`${s.traceId}/${s.parentSpanId}`)) incomplete.add(s.traceId);
  return new Set([...withRoot].filter((t) => !incomplete.has(t)));
}

export type IngestPipeline = ReturnType<typeof createIngestPipeline>;
