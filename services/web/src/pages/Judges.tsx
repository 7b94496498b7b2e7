/** Judges and validation: settings (the key is write-only), spend today, calls, and per-mode agreement with human labels. */
import { useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import { JudgeSettingsForm } from "../judges/SettingsForm.tsx";
import { formatCost, formatNumber, formatTime } from "../format.ts";
import { useTitle } from "../router.tsx";
import type { JudgeCalls, JudgeSettingsBody, ValidationBody } from "../types.ts";
import { ErrorState, Loading } from "../ui.tsx";

export default function JudgesPage() {
  useTitle("Judges and validation");
  const settings = useQuery({ queryKey: ["judge-settings"], queryFn: () => api<JudgeSettingsBody>("/judge-settings") });
  const calls = useQuery({ queryKey: ["judge-calls"], queryFn: () => api<JudgeCalls>("/judge-calls?limit=50") });
  const validation = useQuery({ queryKey: ["validation"], queryFn: () => api<ValidationBody>("/validation") });
  return (
    <div className="page">
      <h1>Judges and validation</h1>
      <h2>Settings</h2>
      {settings.isPending ? (
        <Loading what="judge settings" />
      ) : settings.isError ? (
        <ErrorState error={settings.error} what="judge settings" />
      ) : (
        <>
          <dl className="facts">
            <dt>Judges</dt>
            <dd>{settings.data.effective.enabled ? "on" : `off (${settings.data.effective.reason ?? ""})`}</dd>
            <dt>Model</dt>
            <dd>
              {settings.data.effective.provider ?? "–"} {settings.data.effective.model ?? ""} <span className="muted">({settings.data.effective.source})</span>
            </dd>
            <dt>Provider key</dt>
            <dd>{settings.data.stored.apiKeySet ? `set (…${settings.data.stored.apiKeyLast4 ?? ""})` : "not set"}</dd>
            <dt>Sampling</dt>
            <dd>{formatNumber(settings.data.effective.samplingShare)} of unfailed runs</dd>
            <dt>Spend today</dt>
            <dd>
              {formatCost(settings.data.budget.spentUsd)} of {formatCost(settings.data.budget.dailyBudgetUsd)} ({settings.data.budget.day})
              {settings.data.budget.pausedUntil && ` · paused until ${formatTime(settings.data.budget.pausedUntil)}`}
            </dd>
          </dl>
          <JudgeSettingsForm settings={settings.data} />
        </>
      )}
      <h2>Agreement with human labels</h2>
      {validation.isPending ? (
        <Loading what="validation" />
      ) : validation.isError ? (
        <ErrorState error={validation.error} what="validation" />
      ) : (
        <>
          <p className="muted" data-testid="labelled-traces">
            {validation.data.labelledTraces} labelled runs · validated at kappa ≥ {validation.data.bar.kappaBar} on at least {validation.data.bar.minLabels}{" "}
            labels
          </p>
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Mode</th>
                <th scope="col">Source</th>
                <th scope="col" className="num">
                  n
                </th>
                <th scope="col" className="num">
                  Kappa
                </th>
                <th scope="col" className="num">
                  Precision
                </th>
                <th scope="col" className="num">
                  Recall
                </th>
                <th scope="col">Validated</th>
              </tr>
            </thead>
            <tbody>
              {validation.data.modes.map((m, i) => (
                <tr key={i} data-validation={`${m.mode}:${m.source}`}>
                  <td>{m.mode}</td>
                  <td>{m.source}</td>
                  <td className="num">{m.n}</td>
                  <td className="num">{m.kappa === null ? <span className="muted">{m.kappaReason ?? "–"}</span> : formatNumber(m.kappa)}</td>
                  <td className="num">{formatNumber(m.precision)}</td>
                  <td className="num">{formatNumber(m.recall)}</td>
                  <td>{m.validated ? "yes" : <span className="muted">{m.reason ?? "no"}</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h2>Recent calls</h2>
      {calls.isPending ? (
        <Loading what="judge calls" />
      ) : calls.isError ? (
        <ErrorState error={calls.error} what="judge calls" />
      ) : calls.data.items.length === 0 ? (
        <p className="muted">No judge call yet.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Model</th>
              <th scope="col">Outcome</th>
              <th scope="col" className="num">
                Cost
              </th>
            </tr>
          </thead>
          <tbody>
            {calls.data.items.map((c, i) => (
              <tr key={i}>
                <td>{c.kind}</td>
                <td>{c.model}</td>
                <td>{c.outcome}</td>
                <td className="num">{formatCost(c.costUsd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
