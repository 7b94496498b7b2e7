/** The report's directive: ship or hold against the project's bar, the dominant failure mode and where it starts, the structural change, agent changes. */
import { Link } from "../router.tsx";
import type { ExperimentReportBody } from "../types.ts";
import { runsOf } from "./links.ts";

const decisionText = { ship: "Ship", hold: "Hold", no_bar: "No bar set" } as const;

export function Directive({ report }: { report: ExperimentReportBody }) {
  const d = report.directive;
  return (
    <section className={`directive decision-${d.decision}`} aria-label="Directive">
      <h2>
        Directive: <span data-testid="directive-decision">{decisionText[d.decision]}</span>
        {report.candidate && <span className="muted small"> (about {report.candidate}, the whole system)</span>}
      </h2>
      {d.decision === "no_bar" && <p className="muted">Set a ship bar (PUT /api/v1/experiment-settings, shipBar) to get a ship or hold decision.</p>}
      <ul data-testid="directive-reasons">
        {d.reasons.map((r, i) => (
          <li key={i}>{r}</li>
        ))}
      </ul>
      {d.dominantMode && (
        <p data-testid="directive-mode">
          Dominant failure mode:{" "}
          {report.candidate ? (
            <Link to={runsOf(report.experimentId, [report.candidate], { mode: d.dominantMode.mode })}>{d.dominantMode.mode}</Link>
          ) : (
            d.dominantMode.mode
          )}{" "}
          in {(d.dominantMode.rate * 100).toFixed(1)}% of the candidate's runs
          {d.dominantMode.startsAt && <>, starting at the {d.dominantMode.startsAt} stage</>}.
        </p>
      )}
      {d.structuralChange && <p data-testid="directive-change">Structural change: {d.structuralChange}</p>}
      {d.agentChanges.length > 0 && (
        <ul aria-label="Agent changes">
          {d.agentChanges.map((c, i) => (
            <li key={i}>{c}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
