/** Query parameters shared by the metrics endpoints, and the time window they resolve to. */
import type { Bucket } from "@crux/contracts";
import type { MetricsFilter } from "@crux/db";
import { ApiError } from "../errors.ts";
import { isoToNs } from "../time.ts";

const defaultWindowMs = 24 * 60 * 60 * 1000;
const maxBuckets = 1_000;

export const bucketNs: Record<Bucket, bigint> = {
  "1m": 60_000_000_000n,
  "5m": 300_000_000_000n,
  "1h": 3_600_000_000_000n,
  "1d": 86_400_000_000_000n,
};

/** Resolves from/to (default: the 24 hours before now), rejecting an inverted window and too many buckets. */
export function resolveWindow(
  q: { service?: string | undefined; agent?: string | undefined; from?: string | undefined; to?: string | undefined },
  nowMs: number,
  bucket?: Bucket,
): { filter: MetricsFilter; window: { from: string; to: string } } {
  const toMs = q.to !== undefined ? Date.parse(q.to) : nowMs;
  const fromMs = q.from !== undefined ? Date.parse(q.from) : toMs - defaultWindowMs;
  if (fromMs > toMs) {
    throw new ApiError("invalid_window", `'from' (${new Date(fromMs).toISOString()}) is after 'to' (${new Date(toMs).toISOString()})`);
  }
  const fromNs = q.from !== undefined ? isoToNs(q.from) : BigInt(fromMs) * 1_000_000n;
  const toNs = q.to !== undefined ? isoToNs(q.to) : BigInt(toMs) * 1_000_000n;
  if (bucket !== undefined) {
    const span = toNs - fromNs;
    const buckets = (span + bucketNs[bucket] - 1n) / bucketNs[bucket];
    if (buckets > BigInt(maxBuckets)) {
      throw new ApiError(
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
