/**
 * Liveness vs readiness. Live: the process runs its event loop (never depends
 * on a dependency, so an orchestrator does not restart a healthy process
 * during a Postgres outage). Ready: every dependency answered within its
 * timeout just now, so traffic may be sent to it; the body says which did not.
 */
export type HealthCheck = () => Promise<void>;

export interface DependencyStatus {
  ok: boolean;
  /** Why it is not ready, bounded and without connection strings. */
  error?: string;
  latencyMs: number;
}

export interface Readiness {
  ready: boolean;
  checks: Record<string, DependencyStatus>;
}

export function createReadiness(checks: Record<string, HealthCheck>, opts: { timeoutMs?: number } = {}) {
  const timeoutMs = opts.timeoutMs ?? 2_000;
  return async function readiness(): Promise<Readiness> {
    const entries = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        const started = performance.now();
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
            }),
          ]);
          return [name, { ok: true, latencyMs: Math.round(performance.now() - started) }] as const;
        } catch (err) {
          const error = (err instanceof Error ? err.message : String(err)).slice(0, 200) || "unavailable";
          return [name, { ok: false, error, latencyMs: Math.round(performance.now() - started) }] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const result: Record<string, DependencyStatus> = Object.fromEntries(entries);
    return { ready: entries.every(([, s]) => s.ok), checks: result };
  };
}

export type ReadinessProbe = ReturnType<typeof createReadiness>;
