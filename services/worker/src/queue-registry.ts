import { queueRegistry, withScheduleEvery } from "@crux/queue";

/** The app's queues with the scheduled ones' intervals from the worker's config; the queue adapter is created with it. */
export function workerQueueRegistry(config: { CRUX_ALERTS_EVALUATE_INTERVAL_MS: number; CRUX_ROLLUP_COMPACT_INTERVAL_MS: number }) {
  const withAlerts = withScheduleEvery(queueRegistry, "alerts.evaluate", config.CRUX_ALERTS_EVALUATE_INTERVAL_MS);
  return withScheduleEvery(withAlerts, "rollups.compact", config.CRUX_ROLLUP_COMPACT_INTERVAL_MS);
}
