/**
 * The time buckets of a metrics page's window: the window cut into equal buckets (12 for an
 * hour or a day, one a day for a week, 10 for a month), each with the from/to a metrics call
 * or the runs list takes.
 */
export interface TimeBucket {
  from: string;
  to: string;
  label: string;
}

const windows: Record<string, { ms: number; buckets: number }> = {
  "1h": { ms: 3_600_000, buckets: 12 },
  "24h": { ms: 86_400_000, buckets: 12 },
  "7d": { ms: 7 * 86_400_000, buckets: 7 },
  "30d": { ms: 30 * 86_400_000, buckets: 10 },
};

const short = new Intl.DateTimeFormat(undefined, { month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit" });

export function timeBuckets(window: string | null, nowMs: number): TimeBucket[] {
  const w = windows[window ?? "24h"] ?? windows["24h"]!;
  // Ends on the next whole minute so the buckets (and the queries keyed by them) are stable across renders.
  const end = Math.ceil(nowMs / 60_000) * 60_000;
  const size = w.ms / w.buckets;
  return Array.from({ length: w.buckets }, (_, i) => {
    const from = end - w.ms + i * size;
    return { from: new Date(from).toISOString(), to: new Date(from + size).toISOString(), label: short.format(new Date(from)) };
  });
}

/** The runs list narrowed to one bucket (and whatever else the point stands for). */
export function runsHref(bucket: TimeBucket, filters: Record<string, string | null | undefined>): string {
  const p = new URLSearchParams({ from: bucket.from, to: bucket.to });
  for (const [k, v] of Object.entries(filters)) if (v) p.set(k, v);
  return `/runs?${p.toString()}`;
}
