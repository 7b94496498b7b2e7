/**
 * Per-agent tokens or cost over time: one /metrics/agents call per time bucket (from/to), so the
 * buckets are the same as the failure-mode chart's. A point opens that agent's runs in that bucket.
 * Where no run of the agent in a bucket reported tokens, its tokens, cost and share are unknown:
 * a hollow "not reported" marker, never 0; where some runs did not, the point says how many.
 */
import { useQueries } from "@tanstack/react-query";
import { useMemo } from "react";
import { api, qs } from "../api.ts";
import { formatCost, formatPercent, formatTokens } from "../format.ts";
import type { AgentsBody } from "../types.ts";
import { ErrorState, Loading } from "../ui.tsx";
import { runsHref, type TimeBucket } from "./buckets.ts";
import { LineChart, type ChartSeries } from "./LineChart.tsx";

export type AgentMetric = "tokens" | "cost" | "costShare";
const maxSeries = 8;

type Row = AgentsBody["agents"][number];
const pick: Record<AgentMetric, (a: Row) => number | null> = {
  tokens: (a) => a.totalTokens,
  cost: (a) => a.costUsd,
  costShare: (a) => a.costShare,
};

/** "not reported" where no run reported tokens; how many runs did not where some did not. */
function tokensNote(a: Pick<Row, "tokensReported" | "tokensNotReportedRows">): string | null {
  if (!a.tokensReported) return "not reported";
  if (a.tokensNotReportedRows > 0) return `tokens not reported by ${a.tokensNotReportedRows} run${a.tokensNotReportedRows === 1 ? "" : "s"}`;
  return null;
}

export function AgentsChart({ buckets, metric }: { buckets: TimeBucket[]; metric: AgentMetric }) {
  const results = useQueries({
    queries: buckets.map((b) => ({
      queryKey: ["agents", b.from, b.to],
      queryFn: () => api<AgentsBody>(`/metrics/agents${qs({ from: b.from, to: b.to, limit: 500 })}`),
    })),
  });
  const pending = results.some((r) => r.isPending);
  const failed = results.find((r) => r.isError);
  const data = results.map((r) => r.data);
  // The results array is new on every render: the data's update times say when it changed.
  const stamp = results.map((r) => r.dataUpdatedAt).join(",");
  const series = useMemo(() => {
    if (data.some((d) => d === undefined)) return [];
    const byAgent = new Map<string, { values: (number | null)[]; notes: (string | null)[]; total: number }>();
    data.forEach((d, i) => {
      for (const a of d!.agents) {
        let s = byAgent.get(a.agent);
        // An agent absent from a bucket used nothing there: 0, except for a share, which has no base.
        if (!s)
          byAgent.set(
            a.agent,
            (s = {
              values: buckets.map((_, j) => (metric === "costShare" || data[j]!.agents.length === 0 ? null : 0)),
              notes: buckets.map(() => null),
              total: 0,
            }),
          );
        s.values[i] = a.tokensReported ? pick[metric](a) : null;
        s.notes[i] = tokensNote(a);
        s.total += a.totalTokens ?? 0;
      }
    });
    return [...byAgent.entries()]
      .sort((a, b) => b[1].total - a[1].total || a[0].localeCompare(b[0]))
      .slice(0, maxSeries)
      .map(([name, s]): ChartSeries => ({ name, values: s.values, notes: s.notes }));
  }, [buckets, metric, stamp]);
  if (failed) return <ErrorState error={failed.error} what="agent usage over time" retry={() => results.forEach((r) => void r.refetch())} />;
  if (pending) return <Loading what="agent usage over time" />;
  if (series.length === 0) return <p className="muted">No agent activity in the window.</p>;
  const format = metric === "tokens" ? formatTokens : metric === "cost" ? formatCost : (v: number) => formatPercent(v, 0);
  return (
    <LineChart
      label={`Per-agent ${metric === "tokens" ? "tokens" : metric === "cost" ? "cost" : "cost share"} over time`}
      buckets={buckets}
      series={series}
      format={format}
      max={metric === "costShare" ? 1 : undefined}
      href={(s, i) => runsHref(buckets[i]!, { agent: s.name })}
      footnote={
        series.some((s) => s.notes?.some((n) => n !== null)) ? "A hollow marker: no run of the agent in that bucket reported tokens (not 0)." : undefined
      }
    />
  );
}
