/**
 * Ordered, idempotent shutdown (docs/engineering.md §11): steps run in the order they
 * were registered (stop intake first, close the database last), each bounded
 * by the overall deadline; calling it twice returns the same promise.
 */
export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

export function createShutdown(opts: { deadlineMs: number; log: (msg: string, extra?: object) => void }) {
  const steps: ShutdownStep[] = [];
  let running: Promise<void> | null = null;

  function add(name: string, run: () => Promise<void>) {
    steps.push({ name, run });
  }

  function shutdown(reason: string): Promise<void> {
    if (running) return running;
    running = (async () => {
      opts.log(`shutting down (${reason})`);
      const deadline = Date.now() + opts.deadlineMs;
      for (const step of steps) {
        const left = Math.max(0, deadline - Date.now());
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), left)));
        try {
          const result = await Promise.race([step.run().then(() => "done" as const), timeout]);
          if (result === "timeout") opts.log(`shutdown step '${step.name}' hit the deadline`);
        } catch (err) {
          opts.log(`shutdown step '${step.name}' failed`, { err: String(err) });
        } finally {
          clearTimeout(timer);
        }
      }
      opts.log("shutdown complete");
    })();
    return running;
  }

  return { add, shutdown };
}

/** Wire SIGINT/SIGTERM to shutdown; a second signal exits at once. */
export function onSignals(shutdown: (reason: string) => Promise<void>, exit: (code: number) => void) {
  let count = 0;
  const handler = (sig: string) => {
    count++;
    if (count > 1) exit(1);
    void shutdown(sig).then(() => exit(0));
  };
  process.on("SIGINT", () => handler("SIGINT"));
  process.on("SIGTERM", () => handler("SIGTERM"));
}
