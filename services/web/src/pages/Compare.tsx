/** Two runs side by side: per-agent tokens, cost, steps, findings and outcome, differences marked. */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../api.ts";
import { formatCost, formatTokens } from "../format.ts";
import { Link, useLocation, useSearchUpdate, useTitle } from "../router.tsx";
import type { FindingsBody, ScoresBody } from "../types.ts";
import { ErrorState, Loading } from "../ui.tsx";

function useRun(traceId: string | null) {
  const valid = traceId !== null && /^[0-9a-f]{32}$/.test(traceId);
  const scores = useQuery({ queryKey: ["scores", traceId], queryFn: () => api<ScoresBody>(`/traces/${traceId}/scores`), enabled: valid });
  const findings = useQuery({ queryKey: ["findings", traceId], queryFn: () => api<FindingsBody>(`/traces/${traceId}/findings?limit=500`), enabled: valid });
  return { valid, scores, findings };
}

export default function ComparePage() {
  useTitle("Compare");
  const { search } = useLocation();
  const update = useSearchUpdate();
  const a = search.get("a");
  const b = search.get("b");
  const [ids, setIds] = useState({ a: a ?? "", b: b ?? "" });
  const runA = useRun(a);
  const runB = useRun(b);
  const ready = runA.scores.data?.scores && runB.scores.data?.scores;
  const agents = ready
    ? [...new Set([...runA.scores.data!.scores!.agents.map((x) => x.agent), ...runB.scores.data!.scores!.agents.map((x) => x.agent)])].sort()
    : [];
  const cell = (run: typeof runA, agent: string) => run.scores.data?.scores?.agents.find((x) => x.agent === agent);
  const findingsOf = (run: typeof runA, agent: string) => (run.findings.data?.items ?? []).filter((f) => f.agent === agent).map((f) => f.mode);
  return (
    <div className="page">
      <h1>Compare runs</h1>
      <form
        className="inline-form"
        aria-label="Runs to compare"
        onSubmit={(e) => {
          e.preventDefault();
          update({ a: ids.a.trim(), b: ids.b.trim() });
        }}
      >
        <label>
          Run A (trace id)
          <input value={ids.a} onChange={(e) => setIds((x) => ({ ...x, a: e.target.value }))} />
        </label>
        <label>
          Run B (trace id)
          <input value={ids.b} onChange={(e) => setIds((x) => ({ ...x, b: e.target.value }))} />
        </label>
        <button type="submit">Compare</button>
      </form>
      {!runA.valid || !runB.valid ? (
        <p className="muted">Give two trace ids (32 hex characters), for example a run and its single-agent baseline of the same task.</p>
      ) : runA.scores.isPending || runB.scores.isPending ? (
        <Loading what="the two runs" />
      ) : runA.scores.isError || runB.scores.isError ? (
        <ErrorState error={runA.scores.error ?? runB.scores.error} what="a run" />
      ) : !ready ? (
        <p className="muted">A run is not scored yet.</p>
      ) : (
        <table className="data compare">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">
                <Link to={`/runs/${a}`}>A</Link> tokens
              </th>
              <th scope="col">
                <Link to={`/runs/${b}`}>B</Link> tokens
              </th>
              <th scope="col">A cost</th>
              <th scope="col">B cost</th>
              <th scope="col">A steps</th>
              <th scope="col">B steps</th>
              <th scope="col">A findings</th>
              <th scope="col">B findings</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">whole run</th>
              <td>{formatTokens(runA.scores.data!.scores!.totals.totalTokens)}</td>
              <td className={runA.scores.data!.scores!.totals.totalTokens !== runB.scores.data!.scores!.totals.totalTokens ? "diff" : ""}>
                {formatTokens(runB.scores.data!.scores!.totals.totalTokens)}
              </td>
              <td>{formatCost(runA.scores.data!.scores!.totals.costUsd)}</td>
              <td>{formatCost(runB.scores.data!.scores!.totals.costUsd)}</td>
              <td colSpan={2}>
                outcome A {String(runA.scores.data!.scores!.run.success ?? "unknown")}, B {String(runB.scores.data!.scores!.run.success ?? "unknown")}
              </td>
              <td>{runA.findings.data?.items.length ?? "…"}</td>
              <td>{runB.findings.data?.items.length ?? "…"}</td>
            </tr>
            {agents.map((agent) => {
              const x = cell(runA, agent);
              const y = cell(runB, agent);
              const fa = findingsOf(runA, agent).join(" ");
              const fb = findingsOf(runB, agent).join(" ");
              return (
                <tr key={agent}>
                  <th scope="row">{agent}</th>
                  <td>{x ? formatTokens(x.totalTokens) : "absent"}</td>
                  <td className={x?.totalTokens !== y?.totalTokens ? "diff" : ""}>{y ? formatTokens(y.totalTokens) : "absent"}</td>
                  <td>{formatCost(x?.costUsd)}</td>
                  <td className={x?.costUsd !== y?.costUsd ? "diff" : ""}>{formatCost(y?.costUsd)}</td>
                  <td>{x ? x.llmCalls + x.toolCalls : "–"}</td>
                  <td className={(x?.llmCalls ?? 0) + (x?.toolCalls ?? 0) !== (y?.llmCalls ?? 0) + (y?.toolCalls ?? 0) ? "diff" : ""}>
                    {y ? y.llmCalls + y.toolCalls : "–"}
                  </td>
                  <td>{fa || "–"}</td>
                  <td className={fa !== fb ? "diff" : ""}>{fb || "–"}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
