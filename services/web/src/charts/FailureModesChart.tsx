/**
 * Failure-mode rates over time: one /metrics/failure-modes call per time bucket (from/to), the
 * same grouping and source as the table. A bucket where a mode is unmeasured leaves a gap. The
 * eight series with the most runs affected are drawn; a point opens that bucket's runs.
 */
import { useQueries } from "@tanstack/react-query";
import { useMemo } from "react";
import { api, qs } from "../api.ts";
import { formatPercent } from "../format.ts";
import type { FailureModesBody } from "../types.ts";
import { ErrorState, Loading } from "../ui.tsx";
import { runsHref, type TimeBucket } from "./buckets.ts";
import { LineChart, type ChartSeries } from "./LineChart.tsx";

const maxSeries = 8;

export function FailureModesChart({ buckets, groupBy, source }: { buckets: TimeBucket[]; groupBy: string; source: string }) {
  const results = useQueries({
    queries: buckets.map((b) => ({
      queryKey: ["failure-modes", groupBy, source, b.from, b.to],
      queryFn: () => api<FailureModesBody>(`/metrics/failure-modes${qs({ groupBy, source, from: b.from, to: b.to, limit: 500 })}`),
    })),
  });
  const pending = results.some((r) => r.isPending);
  const failed = results.find((r) => r.isError);
  const data = results.map((r) => r.data);
  // The results array is new on every render: the data's update times say when it changed.
  const stamp = results.map((r) => r.dataUpdatedAt).join(",");
  const { series, keys, dropped } = useMemo(() => {
    if (data.some((d) => d === undefined)) return { series: [], keys: new Map<string, { mode: string; group: string | null }>(), dropped: 0 };
    const byKey = new Map<string, { mode: string; group: string | null; values: (number | null)[]; affected: number }>();
    data.forEach((d, i) => {
      for (const r of d!.rates) {
        const name = r.group === null ? r.mode : `${r.group} · ${r.mode}`;
        let s = byKey.get(name);
        if (!s) byKey.set(name, (s = { mode: r.mode, group: r.group, values: buckets.map(() => null), affected: 0 }));
        s.values[i] = r.measured ? r.rate : null;
        s.affected += r.numerator;
      }
    });
    const ranked = [...byKey.entries()]
      .filter(([, s]) => s.values.some((v) => v !== null))
      .sort((a, b) => b[1].affected - a[1].affected || a[0].localeCompare(b[0]));
    const top = ranked.slice(0, maxSeries);
    return {
      series: top.map(([name, s]): ChartSeries => ({ name, values: s.values })),
      keys: new Map(top.map(([name, s]) => [name, { mode: s.mode, group: s.group }])),
      dropped: ranked.length - top.length,
    };
  }, [buckets, stamp]);
  if (failed) return <ErrorState error={failed.error} what="failure-mode rates over time" retry={() => results.forEach((r) => void r.refetch())} />;
  if (pending) return <Loading what="failure-mode rates over time" />;
  if (series.length === 0) return <p className="muted">No measured rate in the window.</p>;
  const href = (s: ChartSeries, i: number) => {
    const k = keys.get(s.name)!;
    return runsHref(buckets[i]!, {
      [groupBy === "category" ? "category" : "mode"]: k.mode,
      ...(groupBy === "agent" || groupBy === "service" ? { [groupBy]: k.group } : {}),
      source: source === "all" ? null : source,
    });
  };
  return (
    <>
      <LineChart label="Failure-mode rates over time" buckets={buckets} series={series} format={(v) => formatPercent(v, 0)} max={1} href={href} />
      {dropped > 0 && <p className="muted small">{dropped} more series with fewer affected runs are in the table below.</p>}
    </>
  );
}
