/**
 * Every answered export, HTTP or gRPC, goes through here once: request
 * metrics always; for a failure, one bounded log line (status, reason,
 * project, span count when known, and for storage failures the database's
 * own short description: never SQL text or parameters). Identical failures
 * repeating within a window are counted instead of logged, and the count is
 * logged when the window ends (an outage of many exporters would otherwise
 * write a line per request).
 */
import { describeStorageError } from "@crux/db";
import type { IngestFailure } from "./errors.ts";
import type { Logger } from "./ingest.ts";
import type { ReceiverMetrics, Transport } from "./metrics.ts";

export interface ExportReport {
  transport: Transport;
  /** HTTP status code, or gRPC status name. */
  status: number | string;
  durationSeconds: number;
  failure?: IngestFailure;
  projectId?: string;
  /** Spans decoded from the request, when it got that far. */
  spans?: number;
  /** What was thrown, for failures the receiver did not decide itself (storage, internal). */
  error?: unknown;
}

export interface ExportReporterOptions {
  log: Logger;
  metrics: ReceiverMetrics;
  /** Identical failures within this window after a logged one are only counted (default 10 s). */
  windowMs?: number;
}

const MAX_KEYS = 1_000;

interface Seen {
  at: number;
  suppressed: number;
  fields: Record<string, unknown>;
  level: "warn" | "error";
}

export function createExportReporter(opts: ExportReporterOptions) {
  const windowMs = opts.windowMs ?? 10_000;
  const seen = new Map<string, Seen>();
  const timer = setInterval(() => flush(false), windowMs);
  timer.unref();

  function write(level: "warn" | "error", fields: Record<string, unknown>, msg: string) {
    if (level === "error") opts.log.error(fields, msg);
    else opts.log.warn(fields, msg);
  }

  /** Logs the counts of failures suppressed in windows that have ended (all of them when `all`). */
  function flush(all: boolean) {
    const now = Date.now();
    for (const [key, entry] of seen) {
      if (!all && now - entry.at < windowMs) continue;
      if (entry.suppressed > 0) write(entry.level, { ...entry.fields, suppressed: entry.suppressed }, "identical export failures suppressed");
      seen.delete(key);
    }
  }

  function failed(r: ExportReport & { failure: IngestFailure }) {
    const f = r.failure;
    const level = f.reason === "storage_unavailable" || f.reason === "internal" || f.reason === "data_rejected" ? "error" : "warn";
    const fields: Record<string, unknown> = { transport: r.transport, status: r.status, kind: f.kind, reason: f.reason, message: f.message.slice(0, 300) };
    if (r.projectId !== undefined) fields.project = r.projectId;
    if (r.spans !== undefined) fields.spans = r.spans;
    if (r.error !== undefined && level === "error") fields.error = describeStorageError(r.error);
    const key = `${r.transport}|${r.status}|${f.reason}|${r.projectId ?? ""}|${f.message}`;
    const now = Date.now();
    const entry = seen.get(key);
    if (entry && now - entry.at < windowMs) {
      entry.suppressed++;
      entry.fields = fields;
      return;
    }
    if (seen.size >= MAX_KEYS) flush(true);
    seen.set(key, { at: now, suppressed: 0, fields, level });
    write(level, entry && entry.suppressed > 0 ? { ...fields, suppressed: entry.suppressed } : fields, "export failed");
  }

  return {
    finished(r: ExportReport) {
      const m = opts.metrics;
      m.requests.inc({ transport: r.transport, status: String(r.status) });
      m.requestDuration.observe({ transport: r.transport }, r.durationSeconds);
      if (!r.failure) return;
      if (r.failure.reason === "data_rejected" && r.spans) m.spansRejected.inc({ reason: "data_rejected" }, r.spans);
      failed(r as ExportReport & { failure: IngestFailure });
    },
    /** Stops the window timer and logs what is still counted. */
    close() {
      clearInterval(timer);
      flush(true);
    },
  };
}

export type ExportReporter = ReturnType<typeof createExportReporter>;
