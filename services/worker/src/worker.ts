/** The worker as a unit: queue processors plus the sweeper, from explicit dependencies. */
import type { Database } from "@crux/db";
import type { JobQueue } from "@crux/queue";
import type { Logger } from "@crux/runtime";
import type { WorkerConfig } from "./config.ts";
import { createSettleProcessor } from "./settle.processor.ts";
import { createSweeper } from "./sweeper.ts";

export interface WorkerDeps {
  database: Database;
  queue: JobQueue;
  config: WorkerConfig;
  log: Logger;
}

export function createWorker(deps: WorkerDeps) {
  const sweeper = createSweeper({
    database: deps.database,
    queue: deps.queue,
    intervalMs: deps.config.CRUX_SWEEP_INTERVAL_MS,
    quietMs: deps.config.CRUX_SWEEP_QUIET_MS,
    log: deps.log,
  });
  return {
    sweeper,
    start() {
      deps.queue.process("trace.settle", createSettleProcessor(deps), { concurrency: deps.config.CRUX_WORKER_CONCURRENCY });
      sweeper.start();
    },
    /** Stops the sweeper; the queue's own close() lets in-flight jobs finish. */
    async stop() {
      await sweeper.stop();
    },
  };
}

export type Worker = ReturnType<typeof createWorker>;
