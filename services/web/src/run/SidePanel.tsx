/** The run's side panel: findings, attribution per method, judge verdicts, the score set. */
import { AgentTable } from "../AgentTable.tsx";
import { formatCost, formatNumber, formatPercent, formatTokens } from "../format.ts";
import type { AttributionBody, FindingsBody, ScoresBody, VerdictsBody } from "../types.ts";
import { ModeBadge, Section } from "../ui.tsx";

type Select = (spanId: string) => void;

export function FindingsSection({ findings, selectedSpanId, onSelect }: { findings: FindingsBody; selectedSpanId: string | null; onSelect: Select }) {
  return (
    <Section title={`Findings (${findings.items.length})`}>
      {findings.items.length === 0 ? (
        <p className="muted">{findings.scored ? "No failure mode found in this run." : "Not scored yet."}</p>
      ) : (
        <ul className="findings-list">
          {findings.items.map((f, i) => (
            <li key={i} className={f.spanId === selectedSpanId ? "selected" : ""}>
              <button type="button" className="row-button" data-finding-span={f.spanId} onClick={() => onSelect(f.spanId)}>
                <ModeBadge mode={f.mode} source={f.source === "judge" ? "judge" : "code"} /> {f.agent ?? "(no agent)"}
                {f.stepIndex !== null && <span className="muted"> · step {f.stepIndex}</span>}
                <span className="muted">
                  {" "}
                  · {f.source === "judge" ? (f.judge ?? "judge") : `code (${f.detector ?? f.source})`} · confidence {formatNumber(f.confidence)}
                </span>
              </button>
              <p className="evidence">{f.evidence}</p>
              {f.explanation && <p className="muted small">{f.explanation}</p>}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

export function AttributionSection({
  attribution,
  selectedSpanId,
  onSelect,
}: {
  attribution: AttributionBody;
  selectedSpanId: string | null;
  onSelect: Select;
}) {
  return (
    <Section title="Attribution">
      {attribution.methods.length === 0 && attribution.items.length === 0 ? (
        <p className="muted">{attribution.scored ? "No decisive error named (attribution runs on failed runs)." : "Not scored yet."}</p>
      ) : (
        <ol className="methods">
          {attribution.methods.map((m) => (
            <li key={`${m.method}:${m.source}`} className={m.pick?.spanId && m.pick.spanId === selectedSpanId ? "selected" : ""}>
              <div>
                <strong data-testid="attribution-method">{m.method}</strong> <span className="muted">({m.source})</span> ·{" "}
                {m.method === "replay" && "re-ran the system with corrections · "}
                {m.measured
                  ? `step accuracy ${formatPercent(m.step.accuracy)} (n ${m.step.n}), agent ${formatPercent(m.agent.accuracy)} (n ${m.agent.n})`
                  : "not measured on labelled runs"}
              </div>
              {m.pick ? (
                <button
                  type="button"
                  className="row-button"
                  data-attribution-span={m.pick.spanId ?? ""}
                  disabled={!m.pick.spanId}
                  onClick={() => m.pick?.spanId && onSelect(m.pick.spanId)}
                >
                  → {m.pick.agent ?? "(no agent)"}
                  {m.pick.stepIndex !== null && ` · step ${m.pick.stepIndex}`}
                </button>
              ) : (
                <span className="muted"> named nothing</span>
              )}
              {m.pick?.explanation && <p className="muted small">{m.pick.explanation}</p>}
            </li>
          ))}
        </ol>
      )}
      <p className="muted small">An attribution is a lead, not a verdict.</p>
    </Section>
  );
}

interface VerdictResult {
  kind?: string;
  model?: string;
  findings?: { mode: string; stepIndex: number; evidence: string; explanation: string }[];
  attribution?: { agent: string | null; stepIndex: number | null; explanation: string } | null;
  outcome?: { success: boolean; score: number | null; explanation: string } | null;
  error?: string;
}

export function VerdictsSection({ verdicts }: { verdicts: VerdictsBody }) {
  return (
    <Section title={`Judge verdicts (${verdicts.items.length})`}>
      {verdicts.items.length === 0 ? (
        <p className="muted">No judge has judged this run.</p>
      ) : (
        <ul className="verdicts">
          {verdicts.items.map((v, i) => {
            const r = (v.result ?? {}) as VerdictResult;
            return (
              <li key={i}>
                <strong>{v.producerId}</strong> <span className="muted">{v.model}</span> · {v.status}
                {r.outcome && (
                  <p>
                    Outcome: {r.outcome.success ? "success" : "failed"}
                    {r.outcome.score !== null && ` (${formatNumber(r.outcome.score)})`} — {r.outcome.explanation}
                  </p>
                )}
                {r.findings?.map((f, j) => (
                  <blockquote key={j}>
                    <ModeBadge mode={f.mode} source="judge" /> step {f.stepIndex}: “{f.evidence}” <span className="muted">{f.explanation}</span>
                  </blockquote>
                ))}
                {r.error && <p className="field-error">{r.error}</p>}
                {v.selfPreferenceWarning && <p className="muted small">{v.selfPreferenceWarning}</p>}
              </li>
            );
          })}
        </ul>
      )}
    </Section>
  );
}

export function ScoresSection({ scores }: { scores: ScoresBody }) {
  const s = scores.scores;
  if (!s)
    return (
      <Section title="Scores">
        <p className="muted">Not scored yet: the worker scores a run once its spans have been quiet for the settle delay.</p>
      </Section>
    );
  const m = s.multiplier;
  return (
    <Section title="Scores">
      <dl className="facts" data-testid="run-totals">
        <dt>Total tokens</dt>
        <dd data-testid="total-tokens">{formatTokens(s.totals.totalTokens)}</dd>
        <dt>Cost</dt>
        <dd data-testid="total-cost">{formatCost(s.totals.costUsd)}</dd>
        <dt>Outcome</dt>
        <dd>{s.run.success === null ? "unknown" : s.run.success ? "success" : "failed"}</dd>
        <dt>Task</dt>
        <dd>{s.run.taskId ?? "–"}</dd>
        <dt>Token multiplier</dt>
        <dd>{m.tokens.value === null ? `– (${m.tokens.source})` : `${formatNumber(m.tokens.value)}× vs baseline (${m.tokens.source})`}</dd>
        <dt>Cost multiplier</dt>
        <dd>{m.cost.value === null ? `– (${m.cost.source})` : `${formatNumber(m.cost.value)}× vs baseline (${m.cost.source})`}</dd>
        <dt>Coordination</dt>
        <dd>
          {formatNumber(s.coordination.score)} (redundancy {formatNumber(s.coordination.redundancy)}, ignored handoffs{" "}
          {formatNumber(s.coordination.ignoredHandoffs)}, role violations {formatNumber(s.coordination.roleViolations)})
        </dd>
        {s.milestones && (
          <>
            <dt>Milestones</dt>
            <dd>
              {formatPercent(s.milestones.partialCredit)} partial credit, furthest reached{" "}
              {s.milestones.furthestIndex === null ? "none" : (s.milestones.detail[s.milestones.furthestIndex]?.id ?? s.milestones.furthestIndex)}
              <ul className="milestones">
                {s.milestones.detail.map((d) => (
                  <li key={d.id}>
                    {d.passed ? "✓" : d.evaluated === false ? "?" : "✗"} {d.id}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
      <AgentTable
        rows={s.agents}
        columns={["tokens", "cost", "tokenShare", "llm", "tool", "errors"]}
        caption="Per agent"
        className="usage"
        shareDigits={0}
        headings={{ tokenShare: "Share" }}
      />
    </Section>
  );
}
