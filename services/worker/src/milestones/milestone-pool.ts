/**
 * Worker threads (piscina) for milestone expressions, so a slow or runaway
 * user expression never blocks the main event loop (BullMQ lock renewal,
 * other traces, the metrics server).
 *
 * - One task evaluates one trace's expressions in order (the view is sent
 *   once). The thread reports "start" (with the limit) before each one; if an
 *   expression is still running limit + grace later (it blocks the thread,
 *   which JSONata's own timeout cannot interrupt) the task is aborted: piscina
 *   terminates that thread and starts a replacement.
 * - Fair between projects: tasks wait in one queue per project; a free
 *   thread takes the project with the fewest tasks running, the one served
 *   longest ago first, so one project's backlog delays another project's
 *   trace by at most one task per thread.
 */
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";

export interface ExpressionLimits {
  /** Evaluation time limit per expression, ms. */
  timeoutMs: number;
  /** Maximum evaluation stack depth. */
  maxDepth: number;
  /** Maximum length of a sequence an expression builds. */
  maxSequence: number;
}

type LimitedBy = "timeout" | "trace_budget" | "project_budget";

type CheckOutcome =
  | { kind: "value"; value: unknown }
  | { kind: "compile_error"; message: string }
  | { kind: "error"; message: string }
  /** Ran into its limit (JSONata's timeout, or terminated by the pool). */
  | { kind: "limit"; limitedBy: LimitedBy; limitMs: number };

export type ThreadMessage =
  | { type: "start"; index: number; limitMs: number; limitedBy: LimitedBy }
  | { type: "done"; index: number; elapsedMs: number; outcome: CheckOutcome }
  | { type: "stopped"; index: number; reason: "trace_budget" | "project_budget" }
  | { type: "end" };

export interface PoolTask {
  projectId: string;
  viewJson: string;
  sources: string[];
  limits: ExpressionLimits;
  traceLeftMs: number;
  projectLeftMs: number;
}

interface Waiting {
  task: PoolTask;
  onMessage: (m: ThreadMessage) => void;
  resolve: () => void;
}

export interface MilestonePoolOptions {
  threads: number;
  /** Extra time past an expression's limit before its thread is terminated (JSONata stops itself within it normally). */
  graceMs?: number;
  onThreadTerminated?: () => void;
}

export function createMilestonePool(opts: MilestonePoolOptions) {
  const graceMs = opts.graceMs ?? 250;
  // Started on first use: a worker whose projects have no milestones never starts a thread.
  let piscina: Piscina | null = null;
  const threads = () =>
    (piscina ??= new Piscina({
      filename: new URL("./milestone-thread.mjs", import.meta.url).href,
      minThreads: 1,
      maxThreads: opts.threads,
      idleTimeout: 30_000,
    }));
  const queues = new Map<string, Waiting[]>();
  const runningByProject = new Map<string, number>();
  const lastServed = new Map<string, number>();
  let served = 0;
  let running = 0;
  let closed = false;

  /** The waiting project with the fewest running tasks, the one served longest ago first. */
  function next(): Waiting | undefined {
    let best: string | undefined;
    for (const projectId of queues.keys()) {
      if (best === undefined) {
        best = projectId;
        continue;
      }
      const [r, rb] = [runningByProject.get(projectId) ?? 0, runningByProject.get(best) ?? 0];
      if (r < rb || (r === rb && (lastServed.get(projectId) ?? -1) < (lastServed.get(best) ?? -1))) best = projectId;
    }
    if (best === undefined) return undefined;
    const waiting = queues.get(best)!;
    const item = waiting.shift();
    if (waiting.length === 0) queues.delete(best);
    lastServed.set(best, served++);
    if (lastServed.size > 10_000) lastServed.clear(); // bounded
    return item;
  }

  function pump(): void {
    while (!closed && running < opts.threads) {
      const item = next();
      if (!item) return;
      running++;
      const projectId = item.task.projectId;
      runningByProject.set(projectId, (runningByProject.get(projectId) ?? 0) + 1);
      void execute(item).finally(() => {
        running--;
        const left = (runningByProject.get(projectId) ?? 1) - 1;
        if (left === 0) runningByProject.delete(projectId);
        else runningByProject.set(projectId, left);
        item.resolve();
        pump();
      });
    }
  }

  async function execute({ task, onMessage }: Waiting): Promise<void> {
    const { port1, port2 } = new MessageChannel();
    const abort = new AbortController();
    let watchdog: NodeJS.Timeout | undefined;
    let ended!: () => void;
    const endReceived = new Promise<void>((resolve) => (ended = resolve));
    port1.on("message", (m: ThreadMessage) => {
      clearTimeout(watchdog);
      if (m.type === "start") {
        watchdog = setTimeout(() => {
          // Still in this expression past its limit: it blocks the thread. Terminate it; a new one replaces it.
          opts.onThreadTerminated?.();
          onMessage({ type: "done", index: m.index, elapsedMs: m.limitMs, outcome: { kind: "limit", limitedBy: m.limitedBy, limitMs: m.limitMs } });
          abort.abort(new Error(`milestone expression ran past its ${m.limitMs} ms limit`));
        }, m.limitMs + graceMs);
      }
      if (m.type === "end") ended();
      else if (!abort.signal.aborted) onMessage(m);
    });
    try {
      const { projectId: _projectId, ...rest } = task;
      await threads().run({ ...rest, port: port2 }, { transferList: [port2], signal: abort.signal });
      await endReceived; // progress travels on its own channel; wait for its last message
    } catch {
      // Aborted (reported above) or the thread died: the caller sees which expressions got no "done".
    } finally {
      clearTimeout(watchdog);
      port1.close();
    }
  }

  return {
    /** Runs one trace's task when a thread is free and it is the project's turn; resolves when it is over. */
    run(task: PoolTask, onMessage: (m: ThreadMessage) => void): Promise<void> {
      if (closed) return Promise.reject(new Error("milestone pool is closed"));
      return new Promise<void>((resolve) => {
        const waiting = queues.get(task.projectId) ?? [];
        waiting.push({ task, onMessage, resolve });
        queues.set(task.projectId, waiting);
        pump();
      });
    },
    /** Tasks waiting for a thread, all projects. */
    get waiting(): number {
      let n = 0;
      for (const w of queues.values()) n += w.length;
      return n;
    },
    get running(): number {
      return running;
    },
    async close(): Promise<void> {
      closed = true;
      for (const waiting of queues.values()) for (const w of waiting) w.resolve();
      queues.clear();
      await piscina?.destroy();
    },
  };
}
