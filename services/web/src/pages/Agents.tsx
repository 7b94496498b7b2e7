/** Agents and cost: per-agent tokens, cost and shares; the cost multiplier per task against its baseline; the success rate with its interval. */
import { AgentTable } from "../AgentTable.tsx";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { AgentsChart, type AgentMetric } from "../charts/AgentsChart.tsx";
import { timeBuckets } from "../charts/buckets.ts";
import { api, qs } from "../api.ts";
import { formatNumber, formatPercent } from "../format.ts";
import { Link, useLocation, useSearchUpdate, useTitle } from "../router.tsx";
import type { AgentsBody, CostMultiplierBody, SuccessBody } from "../types.ts";
import { ErrorState, Loading } from "../ui.tsx";
import { WindowPicker, windowFrom } from "./window.tsx";

export default function AgentsPage() {
  useTitle("Agents and cost");
  const { search } = useLocation();
  const update = useSearchUpdate();
  const from = windowFrom(search);
  const windowKey = search.get("window");
  const buckets = useMemo(() => timeBuckets(windowKey, Date.now()), [windowKey]);
  const metric = (["tokens", "cost", "costShare"].includes(search.get("metric") ?? "") ? search.get("metric") : "tokens") as AgentMetric;
  const agents = useQuery({ queryKey: ["agents", from], queryFn: () => api<AgentsBody>(`/metrics/agents${qs({ from, limit: 500 })}`) });
  const multiplier = useQuery({
    queryKey: ["multiplier", from],
    queryFn: () => api<CostMultiplierBody>(`/metrics/cost-multiplier${qs({ from, limit: 500 })}`),
  });
  const success = useQuery({ queryKey: ["success", from], queryFn: () => api<SuccessBody>(`/metrics/success${qs({ from })}`) });
  return (
    <div className="page">
      <h1>Agents and cost</h1>
      <div className="filters">
        <WindowPicker />
        <label>
          Chart
          <select value={metric} onChange={(e) => update({ metric: e.target.value === "tokens" ? null : e.target.value })}>
            <option value="tokens">tokens</option>
            <option value="cost">cost</option>
            <option value="costShare">cost share</option>
          </select>
        </label>
      </div>
      <h2>Over time</h2>
      <AgentsChart buckets={buckets} metric={metric} />
      <h2>Per agent</h2>
      {agents.isPending ? (
        <Loading what="agent usage" />
      ) : agents.isError ? (
        <ErrorState error={agents.error} what="agent usage" />
      ) : (
        <>
          <AgentTable
            rows={agents.data.agents}
            columns={["runs", "tokens", "tokenShare", "cost", "costShare", "errors"]}
            agentHref={(agent) => `/runs?agent=${encodeURIComponent(agent)}`}
          />
          {agents.data.totals.tokensNotReportedRows > 0 && (
            <p className="muted" data-testid="tokens-not-reported-total">
              {agents.data.totals.tokensNotReportedRows} per-run agent row{agents.data.totals.tokensNotReportedRows === 1 ? "" : "s"} reported no token counts:
              the tokens, costs and shares leave {agents.data.totals.tokensNotReportedRows === 1 ? "it" : "them"} out
              {agents.data.totals.tokensReported ? "" : " (no row reported any: tokens and cost are not reported)"}.
            </p>
          )}
        </>
      )}
      <h2>Cost multiplier per task</h2>
      {multiplier.isPending ? (
        <Loading what="multipliers" />
      ) : multiplier.isError ? (
        <ErrorState error={multiplier.error} what="multipliers" />
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col" className="num">
                Runs
              </th>
              <th scope="col" className="num">
                Baseline runs
              </th>
              <th scope="col" className="num">
                Token ×
              </th>
              <th scope="col" className="num">
                Cost ×
              </th>
              <th scope="col">Baseline</th>
            </tr>
          </thead>
          <tbody>
            {multiplier.data.tasks.map((t) => (
              <tr key={t.taskId}>
                <td>
                  <Link to={`/runs?task=${encodeURIComponent(t.taskId)}`}>{t.taskId}</Link>
                </td>
                <td className="num">{t.runs}</td>
                <td className="num">{t.baselineRuns}</td>
                <td className="num">{formatNumber(t.tokens.value)}</td>
                <td className="num">{formatNumber(t.cost.value)}</td>
                <td>{t.cost.source}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Success rate</h2>
      {success.isPending ? (
        <Loading what="the success rate" />
      ) : success.isError ? (
        <ErrorState error={success.error} what="the success rate" />
      ) : success.data.successRate ? (
        <p>
          {formatPercent(success.data.successRate.estimate)} ({formatPercent(success.data.successRate.confidence, 0)} interval{" "}
          {formatPercent(success.data.successRate.lower)} – {formatPercent(success.data.successRate.upper)}) over {success.data.successRate.runs} runs of{" "}
          {success.data.successRate.tasks} tasks.
          {success.data.successRate.tasks < 10 && " The interval is wide because it resamples tasks, and there are few: more tasks narrow it."}
        </p>
      ) : (
        <p className="muted">No run with an outcome in the window.</p>
      )}
    </div>
  );
}
