/**
 * The report's per-variant figures (success with its interval, pass@k and pass^k, partial credit,
 * tokens, cost and time per task, failure-mode rates, the time horizon) and each variant against
 * the baseline (paired quality and cost differences, token and cost multipliers, CAU). Every
 * figure links to the runs behind it.
 */
import { formatCost, formatInterval, formatMultiplier, formatNumber, formatPercent, formatTokens } from "../format.ts";
import { Link } from "../router.tsx";
import type { ExperimentInterval, ExperimentReportBody, VariantReportBody } from "../types.ts";
import { runsOf } from "./links.ts";

const pct = (x: number) => formatPercent(x);
const num = (x: number) => formatNumber(x, 3);
const usd = (x: number) => (x < 0 ? `−${formatCost(-x)}` : formatCost(x));
const times = (x: number) => formatMultiplier(x);

/** An interval with its "few tasks" warning: fewer than 10 tasks say little, however narrow. */
export function IntervalText({ iv, format, testId }: { iv: ExperimentInterval | null; format: (x: number) => string; testId?: string }) {
  return (
    <>
      <span data-testid={testId}>{formatInterval(iv, format)}</span>
      {iv?.fewTasks && (
        <span className="badge warn" title={`${iv.tasks} tasks: fewer than 10, the interval says little however narrow it looks`}>
          few tasks
        </span>
      )}
    </>
  );
}

export function VariantsReport({ report }: { report: ExperimentReportBody }) {
  const id = report.experimentId;
  const compared = report.variants.filter((v) => v.vsBaseline !== null);
  const modes = [...new Set(report.variants.flatMap((v) => v.failureModes.map((m) => m.mode)))].sort();
  return (
    <>
      <h2>Variants</h2>
      <div className="table-wide">
        <table className="data variants">
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col" className="num">
                Runs
              </th>
              <th scope="col" className="num">
                Tasks
              </th>
              <th scope="col">Success [95% interval]</th>
              <th scope="col">pass@k / pass^k</th>
              <th scope="col" className="num">
                Partial credit
              </th>
              <th scope="col" className="num">
                Tokens / task
              </th>
              <th scope="col" className="num">
                Cost / task
              </th>
              <th scope="col">Dominant mode</th>
              <th scope="col">Pareto</th>
            </tr>
          </thead>
          <tbody>
            {report.variants.map((v) => (
              <tr key={v.name} data-variant={v.name}>
                <th scope="row">
                  <Link to={runsOf(id, [v.name])}>{v.name}</Link>
                  {v.isBaseline && <span className="badge baseline">baseline</span>}
                  {v.name === report.candidate && <span className="badge">candidate</span>}
                  {v.activeAgents && <div className="muted small">agents: {v.activeAgents.length === 0 ? "none" : v.activeAgents.join(", ")}</div>}
                </th>
                <td className="num">
                  <Link to={runsOf(id, [v.name])} data-testid="variant-runs">
                    {v.runs}
                  </Link>
                  {v.runsWithoutOutcome > 0 && <div className="muted small">{v.runsWithoutOutcome} without outcome</div>}
                </td>
                <td className="num">{v.tasks}</td>
                <td>
                  <Link to={runsOf(id, [v.name])}>
                    <IntervalText iv={v.successRate} format={pct} testId="success-rate" />
                  </Link>
                </td>
                <td>
                  <PassK v={v} experimentId={id} />
                </td>
                <td className="num">{formatNumber(v.meanPartialCredit, 3)}</td>
                <td
                  className="num"
                  title={v.tokensPerTask ? `sd ${formatTokens(Math.round(v.tokensPerTask.sd))} over ${v.tokensPerTask.tasks} tasks` : undefined}
                >
                  {v.tokensPerTask ? formatTokens(Math.round(v.tokensPerTask.mean)) : "–"}
                </td>
                <td className="num" title={v.costPerTask ? `sd ${formatCost(v.costPerTask.sd)} over ${v.costPerTask.tasks} tasks` : undefined}>
                  {v.costPerTask ? formatCost(v.costPerTask.mean) : "–"}
                </td>
                <td>{v.dominantMode ? <Link to={runsOf(id, [v.name], { mode: v.dominantMode })}>{v.dominantMode}</Link> : "–"}</td>
                <td>{v.onParetoFrontier === null ? "–" : v.onParetoFrontier ? "on the frontier" : "beaten"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {report.baseline !== null && (
        <>
          <h2>Against the baseline ({report.baseline})</h2>
          {compared.length === 0 ? (
            <p className="muted">No other variant to compare.</p>
          ) : (
            <div className="table-wide">
              <table className="data paired">
                <thead>
                  <tr>
                    <th scope="col">Variant</th>
                    <th scope="col" className="num">
                      Paired tasks
                    </th>
                    <th scope="col">Quality difference</th>
                    <th scope="col">Cost difference</th>
                    <th scope="col">Token multiplier</th>
                    <th scope="col">Cost multiplier</th>
                    <th scope="col">Cost-adjusted utility (value per extra USD)</th>
                  </tr>
                </thead>
                <tbody>
                  {compared.map((v) => {
                    const c = v.vsBaseline!;
                    const both = runsOf(id, [v.name, report.baseline!]);
                    return (
                      <tr key={v.name} data-variant={v.name}>
                        <th scope="row">
                          <Link to={both}>{v.name}</Link>
                        </th>
                        <td className="num">{c.pairedTasks.length}</td>
                        <td>
                          <Link to={both}>
                            <IntervalText iv={c.qualityDifference} format={num} testId="quality-difference" />
                          </Link>
                          {c.qualityWithinNoise && <div className="muted small">within noise: the interval holds 0</div>}
                        </td>
                        <td>
                          <IntervalText iv={c.costDifference} format={usd} testId="cost-difference" />
                          <div className="muted small">{c.pricedTasks} priced tasks</div>
                        </td>
                        <td>
                          <IntervalText iv={c.tokenMultiplier} format={times} testId="token-multiplier" />
                        </td>
                        <td>
                          <IntervalText iv={c.costMultiplier} format={times} testId="cost-multiplier" />
                        </td>
                        <td>
                          <span className={`badge cau-${c.cau.status}`} data-testid="cau-status">
                            {c.cau.status === "dominated" ? `dominated (${c.cau.dominated} wins)` : c.cau.status.replace("_", " ")}
                          </span>{" "}
                          {c.cau.value && <IntervalText iv={c.cau.value} format={num} testId="cau-value" />}
                          <div className="muted small">{c.cau.reason}</div>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      {modes.length > 0 && (
        <>
          <h2>Failure modes by variant</h2>
          <div className="table-wide">
            <table className="data modes-by-variant">
              <thead>
                <tr>
                  <th scope="col">Mode</th>
                  {report.variants.map((v) => (
                    <th scope="col" key={v.name} className="num">
                      {v.name}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {modes.map((mode) => (
                  <tr key={mode} data-mode={mode}>
                    <th scope="row">{mode}</th>
                    {report.variants.map((v) => {
                      const m = v.failureModes.find((x) => x.mode === mode);
                      return (
                        <td key={v.name} className="num">
                          {!m || !m.measured ? (
                            <span className="muted">unmeasured</span>
                          ) : (
                            <Link to={runsOf(id, [v.name], { mode })}>
                              {formatPercent(m.rate)} ({m.runs})
                            </Link>
                          )}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <h2>Time horizon</h2>
      <ul className="horizons">
        {report.variants.map((v) => (
          <li key={v.name}>
            <strong>{v.name}</strong>: <Horizon v={v} />
          </li>
        ))}
      </ul>
    </>
  );
}

function PassK({ v, experimentId }: { v: VariantReportBody; experimentId: string }) {
  if (v.passK.length === 0) return <span className="muted">–</span>;
  return (
    <ul className="passk" aria-label={`pass@k and pass^k of ${v.name}`}>
      {v.passK.map((p) => (
        <li key={p.k} data-k={p.k}>
          <Link to={runsOf(experimentId, [v.name])}>
            k={p.k}: <span data-testid="pass-at-k">{formatPercent(p.passAtK)}</span> / <span data-testid="pass-hat-k">{formatPercent(p.passHatK)}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

function Horizon({ v }: { v: VariantReportBody }) {
  const h = v.timeHorizon;
  if (h.status === "refused") return <span className="muted">not fitted: {h.message}</span>;
  const est = (e: typeof h.h50) =>
    `${formatNumber(e.minutes, 1)} min [${e.lower === null ? "–" : formatNumber(e.lower, 1)}, ${e.upper === null ? "–" : formatNumber(e.upper, 1)}]${e.extrapolated ? " (extrapolated)" : ""}`;
  return (
    <span>
      50% of tasks up to {est(h.h50)}, 80% up to {est(h.h80)} over {h.tasks} tasks in {h.families} families
      {h.fewTasks && <span className="badge warn">few tasks</span>}
    </span>
  );
}
