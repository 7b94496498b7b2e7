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

export interface QueueDefinition {
  readonly payload: z.ZodType;
  readonly defaults: JobDefaults;
}

const traceId = z.string().regex(/^[0-9a-f]{32}$/, "traceId must be 32 lowercase hex characters");

/**
 * Every queue, its payload contract and its job defaults, in one place.
 * Payloads carry ids, never span bodies. A field added to a payload stays
 * `.optional()` until jobs enqueued by the previous version have drained.
 */
export const queueRegistry = {
  /** Rebuild a trace once it has been quiet for the debounce delay. */
  "trace.settle": {
    payload: z.object({ projectId: z.string().min(1), traceId }),
    defaults: {
      attempts: 5,
      backoff: { type: "exponential", delay: 2_000 },
      removeOnComplete: 1_000,
      removeOnFail: 10_000,
    },
  },
  /** Deterministic scoring of a settled trace; skipped when its input hash is unchanged. */
  "trace.score": {
    payload: z.object({ projectId: z.string().min(1), traceId }),
    defaults: {
      attempts: 5,
      backoff: { type: "exponential", delay: 2_000 },
      removeOnComplete: 1_000,
      removeOnFail: 10_000,
    },
  },
  /** The registered judge producers of a scored trace; each runs only when its verdict for the current inputs is missing. */
  "trace.judge": {
    payload: z.object({ projectId: z.string().min(1), traceId }),
    defaults: {
      attempts: 5,
      backoff: { type: "exponential", delay: 2_000 },
      removeOnComplete: 1_000,
      removeOnFail: 10_000,
    },
  },
} as const satisfies Record<string, QueueDefinition>;

export type QueueName = keyof typeof queueRegistry;

/** The debounce key of a trace's settle job: every producer (receiver, sweeper, API) must use the same one. */
export function settleJobKey(projectId: string, traceId: string): string {
  return `${projectId}:${traceId}`;
}

/** The debounce key of a trace's score job (worker's settle stage and sweeper, API outcome). */
export function scoreJobKey(projectId: string, traceId: string): string {
  return `${projectId}:${traceId}`;
}

/** The debounce key of a trace's judge job. */
export function judgeJobKey(projectId: string, traceId: string): string {
  return `${projectId}:${traceId}`;
}
export type Payload<N extends QueueName> = z.infer<(typeof queueRegistry)[N]["payload"]>;

export const queueNames = Object.keys(queueRegistry) as QueueName[];

/** Per-queue overrides of the registry defaults (from service config, or short delays in tests). */
export type JobDefaultsOverrides = { readonly [N in QueueName]?: Partial<JobDefaults> };

export function jobDefaultsFor(name: QueueName, overrides: JobDefaultsOverrides | undefined): JobDefaults {
  return { ...queueRegistry[name].defaults, ...overrides?.[name] };
}

/** Delay before retry number `retry` (1 = the first retry). */
export function backoffDelayMs(defaults: JobDefaults, retry: number): number {
  return defaults.backoff.delay * 2 ** (retry - 1);
}

/**
 * Parses a payload with its queue's schema. An invalid payload can never
 * succeed on retry, so it is a PermanentError with every issue listed.
 */
export function parsePayload<N extends QueueName>(name: N, payload: unknown): Payload<N> {
  if (!Object.hasOwn(queueRegistry, name)) {
    throw new PermanentError("unknown_queue", `unknown queue "${String(name)}"`);
  }
  const result = queueRegistry[name].payload.safeParse(payload);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new PermanentError("invalid_payload", `invalid ${name} payload: ${issues.join("; ")}`, {
      issues: result.error.issues,
    });
  }
  return result.data as Payload<N>;
}
