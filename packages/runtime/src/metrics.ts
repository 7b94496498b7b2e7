/**
 * Prometheus metrics (prom-client). Each service builds one registry in its
 * composition root and defines its own instruments on it; the all-in-one
 * process shares one registry between receiver, worker and API so a single
 * /metrics shows all three. Names follow `crux_<service>_<noun>_<unit|total>`.
 */
import { collectDefaultMetrics, Registry } from "prom-client";

export { Counter, Gauge, Histogram, Registry } from "prom-client";

export interface MetricsRegistryOptions {
  /** Added to every series, e.g. { service: "receiver" }. Leave empty for the all-in-one registry. */
  defaultLabels?: Record<string, string>;
  /** Process metrics (CPU, memory, event-loop lag, GC); default true. */
  processMetrics?: boolean;
}

export function createMetricsRegistry(opts: MetricsRegistryOptions = {}): Registry {
  const registry = new Registry();
  if (opts.defaultLabels) registry.setDefaultLabels(opts.defaultLabels);
  if (opts.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: "crux_" });
  return registry;
}

/** The body and content type of a scrape of `registry`. */
export async function scrape(registry: Registry): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** Latency buckets in seconds for request and job durations (1 ms .. 60 s). */
export const durationBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
