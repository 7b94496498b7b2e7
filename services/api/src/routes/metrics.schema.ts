/** Query parameters shared by the metrics endpoints, and the time window they resolve to. */
import type { MetricsFilter } from "@crux/db";
import { z } from "zod";
import { ApiError } from "../errors.ts";
import { isoToNs } from "../time.ts";
import { IsoTime, cursorParam, limitParam, text } from "../validation.ts";

const defaultWindowMs = 24 * 60 * 60 * 1000;
const maxBuckets = 1_000;

export const bucketNs = {
  "1m": 60_000_000_000n,
  "5m": 300_000_000_000n,
  "1h": 3_600_000_000_000n,
  "1d": 86_400_000_000_000n,
} as const;

/** Strict: an unknown parameter (a typo like `servce`) is a 400, never silently ignored. */
export const WindowQuery = z.strictObject({
  service: text().optional().describe("Only traces of this service"),
  agent: text().optional().describe("Only traces this agent took part in (and, per endpoint, this agent's rows)"),
  from: IsoTime.optional().describe("Inclusive start of the window on the trace start (ISO 8601); default: `to` minus 24 hours"),
  to: IsoTime.optional().describe("Exclusive end of the window (ISO 8601); default: now"),
});

export const PageQuery = z.strictObject({
  cursor: cursorParam.optional().describe("Opaque nextCursor of the previous page"),
  limit: limitParam(),
});

export const BucketParam = z.enum(["1m", "5m", "1h", "1d"]);

export const WindowDto = z.object({ from: z.string(), to: z.string() });

/** Whether anything measures a failure mode (or category) in scope: an unmeasured mode's rate is null, never 0 (docs/metrics.md §11). */
export const MeasurementDto = z.object({
  measured: z
    .boolean()
    .describe("False when nothing measures the mode for this scope (no detector, or the configuration it needs is not set): its rate is null"),
  detectors: z.array(z.string()).describe("Detectors that measure it (packages/core/src/scorers/detectors.ts ids)"),
  reason: z
    .string()
    .nullable()
    .describe(
      'What is not measured and why ("no detector", "needs an agent contract with isVerifier for a named agent; none configured for this project"); null when fully measured',
    ),
});

/** Resolves from/to (default: the 24 hours before now), rejecting an inverted window and too many buckets. */
export function resolveWindow(
  q: { service?: string | undefined; agent?: string | undefined; from?: string | undefined; to?: string | undefined },
  nowMs: number,
  bucket?: keyof typeof bucketNs,
): { filter: MetricsFilter; window: { from: string; to: string } } {
  const toMs = q.to !== undefined ? Date.parse(q.to) : nowMs;
  const fromMs = q.from !== undefined ? Date.parse(q.from) : toMs - defaultWindowMs;
  if (fromMs > toMs) {
    throw new ApiError(400, "invalid_window", `'from' (${new Date(fromMs).toISOString()}) is after 'to' (${new Date(toMs).toISOString()})`);
  }
  const fromNs = q.from !== undefined ? isoToNs(q.from) : BigInt(fromMs) * 1_000_000n;
  const toNs = q.to !== undefined ? isoToNs(q.to) : BigInt(toMs) * 1_000_000n;
  if (bucket !== undefined) {
    const span = toNs - fromNs;
    const buckets = (span + bucketNs[bucket] - 1n) / bucketNs[bucket];
    if (buckets > BigInt(maxBuckets)) {
      throw new ApiError(
        400,
        "too_many_buckets",
        `bucket ${bucket} over this window gives ${buckets} buckets; at most ${maxBuckets}: pick a larger bucket or a shorter window`,
      );
    }
  }
  return {
    filter: { fromNs, toNs, service: q.service, agent: q.agent },
    window: { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() },
  };
}
