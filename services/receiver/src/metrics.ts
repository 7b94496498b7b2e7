/**
 * The receiver's Prometheus instruments, on a registry it is given (the
 * all-in-one process shares one registry between its services). A second
 * receiver on the same registry reuses the instruments instead of failing on a
 * duplicate name.
 */
import { Counter, Gauge, Histogram, durationBuckets, type Registry } from "@crux/runtime";

export type Transport = "http" | "grpc";

export function createReceiverMetrics(registry: Registry) {
  function metric<M>(name: string, make: () => M): M {
    return (registry.getSingleMetric(name) as M | undefined) ?? make();
  }
  const registers = [registry];
  return {
    spansAccepted: metric(
      "crux_receiver_spans_accepted_total",
      () =>
        new Counter({ name: "crux_receiver_spans_accepted_total", help: "Spans committed to storage (including exact duplicates of stored spans)", registers }),
    ),
    spansRejected: metric(
      "crux_receiver_spans_rejected_total",
      () =>
        new Counter({
          name: "crux_receiver_spans_rejected_total",
          help: "Spans not stored and not to be retried: rejected one by one (bad ids, timestamps) or with their whole request (data the database refused)",
          labelNames: ["reason"] as const,
          registers,
        }),
    ),
    requests: metric(
      "crux_receiver_requests_total",
      () =>
        new Counter({
          name: "crux_receiver_requests_total",
          help: "Export requests answered, by transport and status (HTTP status code, or gRPC status name)",
          labelNames: ["transport", "status"] as const,
          registers,
        }),
    ),
    requestDuration: metric(
      "crux_receiver_request_duration_seconds",
      () =>
        new Histogram({
          name: "crux_receiver_request_duration_seconds",
          help: "Export request latency, first byte in to answer out",
          labelNames: ["transport"] as const,
          buckets: durationBuckets,
          registers,
        }),
    ),
    inflightRequests: metric(
      "crux_receiver_inflight_requests",
      () => new Gauge({ name: "crux_receiver_inflight_requests", help: "Export requests being processed (until their settle enqueue is done)", registers }),
    ),
    inflightBytes: metric(
      "crux_receiver_inflight_bytes",
      () => new Gauge({ name: "crux_receiver_inflight_bytes", help: "Request bytes held by requests in flight (as received plus decompressed)", registers }),
    ),
    queueDepth: metric(
      "crux_receiver_queue_depth",
      () =>
        new Gauge({
          name: "crux_receiver_queue_depth",
          help: "Settle and score jobs pending at the last background reading (the backlog ceiling compares against it)",
          registers,
        }),
    ),
  };
}

export type ReceiverMetrics = ReturnType<typeof createReceiverMetrics>;
