/**
 * The worker's Prometheus instruments, defined on a registry the composition
 * root passes in (the all-in-one process shares one registry between services).
 */
import { Counter, durationBuckets, Histogram, type Registry } from "@crux/runtime";

export type JobOutcome = "completed" | "retry" | "failed" | "deferred";

export function createWorkerMetrics(registry: Registry) {
  const registers = [registry];
  return {
    jobs: new Counter({
      name: "crux_worker_jobs_total",
      help: "Job runs by queue and outcome (completed, retry, failed, deferred)",
      labelNames: ["queue", "outcome"],
      registers,
    }),
    jobDuration: new Histogram({
      name: "crux_worker_job_duration_seconds",
      help: "Duration of a job run by queue and outcome",
      labelNames: ["queue", "outcome"],
      buckets: durationBuckets,
      registers,
    }),
    scoreParts: new Histogram({
      name: "crux_worker_score_part_seconds",
      help: "Time of each part of a scored trace (read_state, read_config, read_spans, trajectories, milestones, scorers, persist)",
      labelNames: ["part"],
      buckets: durationBuckets,
      registers,
    }),
    retries: new Counter({ name: "crux_worker_job_retries_total", help: "Failed runs that will be retried", labelNames: ["queue"], registers }),
    permanentFailures: new Counter({
      name: "crux_worker_job_failures_total",
      help: "Jobs failed for good: a permanent error, or the last attempt failed (reason permanent | exhausted)",
      labelNames: ["queue", "reason"],
      registers,
    }),
    sweeperReenqueued: new Counter({ name: "crux_worker_sweeper_reenqueued_total", help: "Dirty traces the sweeper enqueued again", registers }),
    milestoneBudgetExhausted: new Counter({
      name: "crux_worker_milestone_budget_exhausted_total",
      help: "Traces whose milestone checks were cut short by a budget (budget trace | project)",
      labelNames: ["budget"],
      registers,
    }),
    milestoneChecksNotEvaluated: new Counter({
      name: "crux_worker_milestone_checks_not_evaluated_total",
      help: "Milestone checks left not evaluated, by budget (trace | project)",
      labelNames: ["budget"],
      registers,
    }),
    alertEvents: new Counter({
      name: "crux_worker_alert_events_total",
      help: "Alert transitions recorded, by type (alert.firing | alert.resolved)",
      labelNames: ["type"],
      registers,
    }),
    webhookAttempts: new Counter({
      name: "crux_worker_webhook_attempts_total",
      help: "Webhook delivery attempts by what followed (delivered | retry | failed)",
      labelNames: ["result"],
      registers,
    }),
    rollupTracesFolded: new Counter({
      name: "crux_worker_rollup_traces_folded_total",
      help: "Scored traces folded into the score rollups in batches (rollups.compact); until then metrics compute them from their rows",
      registers,
    }),
    rollupDeltasCompacted: new Counter({
      name: "crux_worker_rollup_deltas_compacted_total",
      help: "Score rollup delta rows folded into their hourly cells (rollups.compact)",
      registers,
    }),
    milestoneThreadsTerminated: new Counter({
      name: "crux_worker_milestone_threads_terminated_total",
      help: "Evaluation threads terminated because an expression overran its limit",
      registers,
    }),
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
