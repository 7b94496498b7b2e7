/**
 * Ordered, idempotent shutdown (docs/engineering.md §11): steps run in the order they
 * were registered (stop intake first, close the database last), each bounded
 * by the overall deadline; calling it twice returns the same promise.
 */
import type { Logger } from "./logger.ts";

export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

/** `log` is the service's own logger: a step cut at the deadline is a warning, a failed one an error. */
export function createShutdown(opts: { deadlineMs: number; log: Logger }) {
  const steps: ShutdownStep[] = [];
  let running: Promise<void> | null = null;

  function add(name: string, run: () => Promise<void>) {
    steps.push({ name, run });
  }

  function shutdown(reason: string): Promise<void> {
    if (running) return running;
    running = (async () => {
      opts.log.info({ reason }, `shutting down (${reason})`);
      const deadline = Date.now() + opts.deadlineMs;
      for (const step of steps) {
        const left = Math.max(0, deadline - Date.now());
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), left)));
        try {
          const result = await Promise.race([step.run().then(() => "done" as const), timeout]);
          if (result === "timeout") opts.log.warn({ step: step.name, deadlineMs: opts.deadlineMs }, `shutdown step '${step.name}' hit the deadline`);
        } catch (err) {
          opts.log.error({ step: step.name, err }, `shutdown step '${step.name}' failed`);
        } finally {
          clearTimeout(timer);
        }
      }
      opts.log.info("shutdown complete");
    })();
    return running;
  }

  return { add, shutdown };
}

/**
 * A signal delivered twice for one event: a supervisor (or a terminal's Ctrl-C) signals the whole
 * process group, and `pnpm start:*` in it passes the same signal on to its child a few ms later.
 */
const echoWindowMs = 1_000;

/**
 * Wire SIGINT/SIGTERM to shutdown; a second signal exits at once (exit 1), unless it is the same
 * signal within echoWindowMs of the first: that is the one event arriving twice, and exiting on it
 * cut the shutdown short (the worker left mid-drain with exit 1 when its process group got SIGTERM).
 */
export function onSignals(shutdown: (reason: string) => Promise<void>, exit: (code: number) => void, now: () => number = Date.now) {
  let first: { signal: string; at: number } | undefined;
  const handler = (sig: string) => {
    if (first) {
      if (sig !== first.signal || now() - first.at >= echoWindowMs) exit(1);
      return;
    }
    first = { signal: sig, at: now() };
    void shutdown(sig).then(() => exit(0));
  };
  process.on("SIGINT", () => handler("SIGINT"));
  process.on("SIGTERM", () => handler("SIGTERM"));
}
