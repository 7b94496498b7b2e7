import { PermanentError } from "@crux/core";
import { z } from "zod";

/**
 * Default options every job of a queue gets (docs/engineering.md §5): retries with
 * exponential backoff, and bounded retention of finished jobs in Redis.
 */
export interface JobDefaults {
  /** Total tries, the first run included. */
  readonly attempts: number;
  /** Retry n (1-based) waits delay × 2^(n-1) ms. */
  readonly backoff: { readonly type: "exponential"; readonly delay: number };
  /** Finished jobs kept in Redis (count); the in-process adapter keeps none. */
  readonly removeOnComplete: number;
  readonly removeOnFail: number;
}

/**
 * How a queue treats a second enqueue, decided per queue in the registry:
 * - `debounced`: one pending job per key; a re-enqueue replaces its payload and
 *   pushes its run to now + delay; a re-enqueue during a run schedules one more
 *   run after it (never in parallel).
 * - `unique`: one pending-or-running job per key; a second enqueue of the key
 *   is a no-op (never replaces); other keys are independent.
 * - `rate-limited`: every enqueue is its own job; at most `max` runs per
 *   `windowMs` window per key (across every worker process); jobs over the
 *   cap wait for the next window, without using up an attempt.
 * - `scheduled`: no producer; `data` runs every `everyMs`, exactly once per
 *   tick however many worker processes run it.
 */
export type QueueMode = "debounced" | "unique" | "rate-limited" | "scheduled";

export interface RateLimit {
  /** Runs allowed per key in one window. */
  readonly max: number;
  /** Fixed window length (windows start at multiples of it). */
  readonly windowMs: number;
}

/** What each mode adds to a definition; `key` is a method so definitions of any payload fit the generic registry type. */
interface ModeFields<P> {
  debounced: { key(payload: P): string };
  unique: { key(payload: P): string };
  "rate-limited": { key(payload: P): string; readonly rateLimit: RateLimit };
  scheduled: { readonly everyMs: number; readonly data: P };
}

export type QueueDefinition<S extends z.ZodType = z.ZodType, M extends QueueMode = QueueMode> = {
  readonly mode: M;
  readonly payload: S;
  readonly defaults: JobDefaults;
} & ModeFields<z.infer<S>>[M];

/** Any queue of any mode (the constraint of a registry's entries). */
export type AnyQueueDefinition = { [M in QueueMode]: QueueDefinition<z.ZodType, M> }[QueueMode];
export type QueueRegistry = Readonly<Record<string, AnyQueueDefinition>>;

/** Throws a RangeError on a limit no window could hold: max a positive integer, windowMs positive. */
export function assertRateLimit(limit: RateLimit): void {
  if (!(Number.isInteger(limit.max) && limit.max > 0 && Number.isFinite(limit.windowMs) && limit.windowMs > 0)) {
    throw new RangeError(`rateLimit needs a positive integer max and a positive windowMs, got ${JSON.stringify(limit)}`);
  }
}

/** Declares one queue; infers the payload type so `key` and `data` are checked against the schema. */
export function defineQueue<S extends z.ZodType, M extends QueueMode>(definition: QueueDefinition<S, M>): QueueDefinition<S, M> {
  const d = definition as AnyQueueDefinition;
  if (d.mode === "rate-limited") assertRateLimit(d.rateLimit);
  if (d.mode === "scheduled") {
    if (!(Number.isInteger(d.everyMs) && d.everyMs > 0)) throw new RangeError(`everyMs must be a positive integer, got ${d.everyMs}`);
    d.payload.parse(d.data); // a schedule whose data fails its own schema would fail on every tick
  }
  return definition;
}

const traceId = z.string().regex(/^[0-9a-f]{32}$/, "traceId must be 32 lowercase hex characters");
/** Every trace stage's job names one trace of one project. */
const tracePayload = z.object({ projectId: z.string().min(1), traceId });
const traceKey = (p: z.infer<typeof tracePayload>) => `${p.projectId}:${p.traceId}`;
const traceStageDefaults: JobDefaults = {
  attempts: 5,
  backoff: { type: "exponential", delay: 2_000 },
  removeOnComplete: 1_000,
  removeOnFail: 10_000,
};

/**
 * Every queue of the app: its mode, key, payload contract and job defaults, in
 * one place. Payloads carry ids, never span bodies. A field added to a payload
 * stays `.optional()` until jobs enqueued by the previous version have drained.
 */
export const queueRegistry = {
  /** Rebuild a trace once it has been quiet for the debounce delay; one job per trace. */
  "trace.settle": defineQueue({ mode: "debounced", payload: tracePayload, key: traceKey, defaults: traceStageDefaults }),
  /** Deterministic scoring of a settled trace (or of a new outcome); skipped when its input hash is unchanged. Debounced so a request during a run gets one more run after it. */
  "trace.score": defineQueue({ mode: "debounced", payload: tracePayload, key: traceKey, defaults: traceStageDefaults }),
  /**
   * The registered judge producers of a scored trace; each runs only when its verdict for the current
   * inputs is missing. Debounced per trace like the other stages: the sweeper's re-enqueue of a judge
   * request whose job still waits is no second job, and a request during a run gets one more run after
   * it. The paid calls are limited where the provider is known (the worker's judge policy: a rate per
   * provider endpoint across processes, concurrency per process, the project's daily budget).
   */
  "trace.judge": defineQueue({ mode: "debounced", payload: tracePayload, key: traceKey, defaults: traceStageDefaults }),
  /**
   * Evaluates every enabled alert rule over the stored scores and re-enqueues webhook deliveries
   * still pending in Postgres. Once per tick across all workers; the interval is the worker's
   * CRUX_ALERTS_EVALUATE_INTERVAL_MS (withScheduleEvery). Idempotent, so a retry and the next tick may overlap.
   */
  "alerts.evaluate": defineQueue({
    mode: "scheduled",
    payload: z.object({}),
    everyMs: 60_000,
    data: {},
    defaults: { attempts: 3, backoff: { type: "exponential", delay: 1_000 }, removeOnComplete: 100, removeOnFail: 1_000 },
  }),
  /**
   * Folds the score rollups' delta rows into their cells (packages/db compactScoreRollups), so the
   * rows a metrics query adds stay few. Once per tick across all workers; the interval is the
   * worker's CRUX_ROLLUP_COMPACT_INTERVAL_MS. Safe to overlap (rows a run holds are skipped).
   */
  "rollups.compact": defineQueue({
    mode: "scheduled",
    payload: z.object({}),
    everyMs: 1_000,
    data: {},
    defaults: { attempts: 3, backoff: { type: "exponential", delay: 1_000 }, removeOnComplete: 100, removeOnFail: 1_000 },
  }),
  /**
   * One alert rule evaluated now, enqueued by the API when the rule is created or replaced, so it
   * does not wait for the next alerts.evaluate tick. Keyed by rule: a second enqueue while one is
   * pending is a no-op (the run reads the rule as stored then). Same evaluation as a tick's.
   */
  "alerts.evaluate-rule": defineQueue({
    mode: "unique",
    payload: z.object({ projectId: z.string().min(1).max(256), ruleId: z.string().min(1).max(64) }),
    key: (p) => `${p.projectId}:${p.ruleId}`,
    defaults: traceStageDefaults,
  }),
  /**
   * One webhook delivery, keyed by its id: never two sends of one delivery at once. The handler makes one
   * attempt and defers itself (JobDeferral) to its next one, so the receiver's backoff and Retry-After
   * decide the wait; the queue's own attempts cover storage errors only.
   */
  "webhook.deliver": defineQueue({
    mode: "unique",
    payload: z.object({ deliveryId: z.string().min(1).max(64) }),
    key: (p) => p.deliveryId,
    defaults: traceStageDefaults,
  }),
  /**
   * One run of a started experiment sent to its runner, keyed by the dispatch id: never two sends of one
   * run at once. The handler takes a concurrency slot of the experiment (or defers until one frees), makes
   * one signed attempt and defers itself to the next on a retryable failure, as webhook.deliver does.
   */
  "experiment.dispatch": defineQueue({
    mode: "unique",
    payload: z.object({ dispatchId: z.string().min(1).max(64) }),
    key: (p) => p.dispatchId,
    defaults: traceStageDefaults,
  }),
} as const satisfies QueueRegistry;

export type AppQueueRegistry = typeof queueRegistry;

/**
 * The registry with a scheduled queue's interval replaced (from service config; short in tests).
 * The copy is what the queue adapter is created with.
 */
export function withScheduleEvery<R extends QueueRegistry>(registry: R, name: QueueName<R>, everyMs: number): R {
  const definition = definitionOf(registry, name);
  if (definition.mode !== "scheduled") throw new TypeError(`queue "${name}" is not scheduled`);
  return { ...registry, [name]: defineQueue({ ...definition, everyMs }) };
}

/** Queue names of a registry (default: the app's). */
export type QueueName<R extends QueueRegistry = AppQueueRegistry> = keyof R & string;
export type Payload<N extends QueueName<R>, R extends QueueRegistry = AppQueueRegistry> = z.infer<R[N]["payload"]>;
/** Queues a producer may enqueue to: every mode but `scheduled` (those run on their schedule only). */
export type EnqueueableName<R extends QueueRegistry = AppQueueRegistry> = {
  [N in QueueName<R>]: R[N]["mode"] extends "scheduled" ? never : N;
}[QueueName<R>];

export function queueNamesOf<R extends QueueRegistry>(registry: R): QueueName<R>[] {
  return Object.keys(registry) as QueueName<R>[];
}
export const queueNames = queueNamesOf(queueRegistry);

/** Per-queue overrides of the registry defaults (from service config, or short delays in tests). */
export type JobDefaultsOverrides<R extends QueueRegistry = AppQueueRegistry> = { readonly [N in QueueName<R>]?: Partial<JobDefaults> };

export function jobDefaultsFor<R extends QueueRegistry>(registry: R, name: QueueName<R>, overrides: JobDefaultsOverrides<R> | undefined): JobDefaults {
  return { ...definitionOf(registry, name).defaults, ...overrides?.[name] };
}

/** Delay before retry number `retry` (1 = the first retry). */
export function backoffDelayMs(defaults: JobDefaults, retry: number): number {
  return defaults.backoff.delay * 2 ** (retry - 1);
}

export function definitionOf<R extends QueueRegistry>(registry: R, name: string): AnyQueueDefinition {
  if (!Object.hasOwn(registry, name)) throw new PermanentError("unknown_queue", `unknown queue "${name}"`);
  return registry[name]!;
}

/** The job's key as its queue defines it; scheduled queues have one job per tick, keyed by the queue name. */
export function jobKeyOf(definition: AnyQueueDefinition, name: string, payload: unknown): string {
  return definition.mode === "scheduled" ? name : definition.key(payload);
}

/**
 * Parses a payload with its queue's schema. An invalid payload can never
 * succeed on retry, so it is a PermanentError with every issue listed.
 */
export function parsePayload<R extends QueueRegistry, N extends QueueName<R>>(registry: R, name: N, payload: unknown): Payload<N, R> {
  const result = definitionOf(registry, name).payload.safeParse(payload);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new PermanentError("invalid_payload", `invalid ${name} payload: ${issues.join("; ")}`, {
      issues: result.error.issues,
    });
  }
  return result.data as Payload<N, R>;
}
