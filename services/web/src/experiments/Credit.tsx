/**
 * Per-agent credit: the measured coalitions and their values, leave-one-out with its interval and
 * verdict, and Shapley values (exact, Monte-Carlo with standard errors, or the coalitions missing
 * for either). Each row links to the runs of the variants behind it.
 */
import { formatNumber } from "../format.ts";
import { Link } from "../router.tsx";
import type { ExperimentReportBody } from "../types.ts";
import { runsOf } from "./links.ts";
import { IntervalText } from "./Report.tsx";

const num = (x: number) => formatNumber(x, 3);
const verdictText = { contributes: "contributes", dead_weight: "dead weight", harmful: "harmful" } as const;

export function Credit({ report }: { report: ExperimentReportBody }) {
  const credit = report.credit;
  const id = report.experimentId;
  if (credit === null)
    return (
      <>
        <h2>Per-agent credit</h2>
        <p className="muted">No agents to credit: no variant names its active agents (crux.agents.active). Add ablation variants to measure each agent.</p>
      </>
    );
  const candidate = report.candidate ? [report.candidate] : [];
  const shapley = credit.shapley;
  return (
    <>
      <h2>Per-agent credit</h2>
      <div className="credit">
        <table className="data shapley">
          <caption>
            Shapley values{" "}
            {shapley.method === "exact"
              ? `(exact; they sum to ${num(shapley.sum)} = V(all) − V(none) ${num(shapley.grandMinusEmpty)})`
              : shapley.method === "monte_carlo"
                ? `(Monte-Carlo over ${shapley.orderings} orderings, seed ${shapley.seed})`
                : "(not computed)"}
          </caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col" className="num">
                Shapley value
              </th>
              <th scope="col">Leave-one-out Δ [95% interval]</th>
              <th scope="col" className="num">
                Spread
              </th>
              <th scope="col">Verdict</th>
            </tr>
          </thead>
          <tbody>
            {credit.agents.map((agent) => {
              const loo = credit.leaveOneOut.find((l) => l.agent === agent);
              const value =
                shapley.method === "exact"
                  ? num(shapley.values[agent] ?? 0)
                  : shapley.method === "monte_carlo" && shapley.values[agent]
                    ? `${num(shapley.values[agent].value)} ± ${num(shapley.values[agent].standardError)}`
                    : "–";
              return (
                <tr key={agent} data-credit-agent={agent}>
                  <th scope="row">{agent}</th>
                  <td className="num" data-testid="shapley">
                    {value}
                  </td>
                  <td>
                    {loo ? (
                      <Link to={runsOf(id, [...candidate, ...loo.withoutVariants])}>
                        <IntervalText iv={loo.delta} format={num} testId="loo-delta" />
                      </Link>
                    ) : (
                      <span className="muted">not run without {agent}</span>
                    )}
                    {loo && <div className="muted small">{loo.pairedTasks} paired tasks</div>}
                  </td>
                  <td className="num">{formatNumber(loo?.spread, 3)}</td>
                  <td data-testid="loo-verdict">{loo?.verdict ? <span className={`badge verdict-${loo.verdict}`}>{verdictText[loo.verdict]}</span> : "–"}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {shapley.method === "none" && (
          <p className="muted">
            {shapley.reason}. Missing: {shapley.missingCoalitions.map((c) => `{${c.join(", ")}}`).join(", ")}.
          </p>
        )}
        {credit.missingForLeaveOneOut.length > 0 && (
          <p className="muted">Leave-one-out needs the system run without: {credit.missingForLeaveOneOut.join(", ")}.</p>
        )}
        <table className="data coalitions">
          <caption>Measured coalitions: V(S), the mean over tasks of the runs' value</caption>
          <thead>
            <tr>
              <th scope="col">Agents</th>
              <th scope="col" className="num">
                Value
              </th>
              <th scope="col" className="num">
                Tasks
              </th>
              <th scope="col" className="num">
                Runs
              </th>
            </tr>
          </thead>
          <tbody>
            {credit.coalitions.map((c) => (
              <tr key={c.agents.join("+")} data-coalition={c.agents.join("+")}>
                <th scope="row">{c.agents.length === 0 ? "none" : c.agents.join(", ")}</th>
                <td className="num">{num(c.value)}</td>
                <td className="num">{c.tasks}</td>
                <td className="num">
                  <Link to={runsOf(id, c.variants)}>{c.runs}</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
