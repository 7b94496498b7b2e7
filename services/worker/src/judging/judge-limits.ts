/**
 * Limits per provider endpoint: many projects may share one endpoint (the service
 * default), and one project may be the only user of its own. An endpoint is the provider and
 * base URL of the credentials a suite was built from; the model does not matter (one quota).
 * - runs per minute: the queue's rate counter (JobQueue.acquireRate), shared by every worker
 *   process of the backend; over it the job is deferred to the next window (no attempt used).
 * - runs at once: a semaphore per endpoint in this process; runs beyond it wait here.
 */
import type { JudgeModelSettings } from "@crux/contracts";

/** `<provider> <base URL>`, the URL without credentials, query or trailing slash; `default` for the provider's public API. */
export function judgeEndpointOf(credentials: Pick<JudgeModelSettings, "provider" | "baseUrl">): string {
  if (credentials.baseUrl === null || credentials.baseUrl === undefined) return `${credentials.provider} default`;
  let url: string;
  try {
    const u = new URL(credentials.baseUrl);
    url = `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    url = credentials.baseUrl;
  }
  return `${credentials.provider} ${url}`;
}

/** At most `concurrency` runs at once per key in this process; the rest wait in arrival order. */
export function createKeyedSemaphore(concurrency: number) {
  const slots = new Map<string, { active: number; waiting: (() => void)[] }>();
  return {
    async run<T>(key: string, task: () => Promise<T>): Promise<T> {
      let slot = slots.get(key);
      if (!slot) {
        slot = { active: 0, waiting: [] };
        slots.set(key, slot);
      }
      if (slot.active >= concurrency) await new Promise<void>((resolve) => slot!.waiting.push(resolve));
      else slot.active++;
      try {
        return await task();
      } finally {
        // The freed place passes straight to the next waiter (active unchanged), so none can cut in.
        const next = slot.waiting.shift();
        if (next) next();
        else if (--slot.active === 0) slots.delete(key);
      }
    },
  };
}
