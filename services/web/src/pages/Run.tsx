/**
 * One run, three synchronised views (agent graph, timeline, tree + transcript) and a side panel.
 * The selection is one span id kept in the URL (?span=): whatever selects it (a node, a bar, a
 * tree row, a step, a finding, an attribution) selects it in every view, and the URL opens the
 * same run with the same span selected.
 */
import { useQuery } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import { api } from "../api.ts";
import { formatCost, formatDuration, formatTime, formatTokens } from "../format.ts";
import { Link, useLocation, useSearchUpdate, useTitle } from "../router.tsx";
import { AgentGraph } from "../run/AgentGraph.tsx";
import { deriveAgentGraph } from "../run/graph-layout.ts";
import { deriveInvocationGraph } from "../run/invocations.ts";
import { quotesByStep as quotesOf, verdictCitations } from "../run/quotes.ts";
import { LabelForm } from "../run/LabelForm.tsx";
import { ReplaySection } from "../replay/ReplaySection.tsx";
import { AttributionSection, FindingsSection, ScoresSection, VerdictsSection } from "../run/SidePanel.tsx";
import { SpanTree } from "../run/SpanTree.tsx";
import { firstAgentSpans, indexSpans } from "../run/spans.ts";
import { Timeline } from "../run/Timeline.tsx";
import { layoutTimeline } from "../run/timeline-layout.ts";
import { Transcript } from "../run/Transcript.tsx";
import type { AttributionBody, FindingsBody, ScoresBody, TraceDetailBody, TrajectoriesBody, VerdictsBody } from "../types.ts";
import { ErrorState, Loading, OutcomeBadge } from "../ui.tsx";

export default function RunPage({ traceId }: { traceId: string }) {
  useTitle(`Run ${traceId.slice(0, 8)}`);
  const detail = useQuery({ queryKey: ["trace", traceId], queryFn: ({ signal }) => api<TraceDetailBody>(`/traces/${traceId}`, { signal }) });
  const findings = useQuery({ queryKey: ["findings", traceId], queryFn: () => api<FindingsBody>(`/traces/${traceId}/findings?limit=500`) });
  const attribution = useQuery({ queryKey: ["attribution", traceId], queryFn: () => api<AttributionBody>(`/traces/${traceId}/attribution`) });
  const trajectories = useQuery({ queryKey: ["trajectories", traceId], queryFn: () => api<TrajectoriesBody>(`/traces/${traceId}/trajectories`) });
  const verdicts = useQuery({ queryKey: ["verdicts", traceId], queryFn: () => api<VerdictsBody>(`/traces/${traceId}/verdicts?limit=100`) });
  const scores = useQuery({ queryKey: ["scores", traceId], queryFn: () => api<ScoresBody>(`/traces/${traceId}/scores`) });

  if (detail.isPending) return <Loading what="the run" />;
  if (detail.isError) return <ErrorState error={detail.error} what="the run" retry={() => void detail.refetch()} />;
  return (
    <RunView
      detail={detail.data}
      findings={findings.data}
      attribution={attribution.data}
      trajectories={trajectories.data}
      verdicts={verdicts.data}
      scores={scores.data}
      errors={[findings, attribution, trajectories, verdicts, scores].filter((q) => q.isError).map((q) => q.error)}
    />
  );
}

function RunView({
  detail,
  findings,
  attribution,
  trajectories,
  verdicts,
  scores,
  errors,
}: {
  detail: TraceDetailBody;
  findings: FindingsBody | undefined;
  attribution: AttributionBody | undefined;
  trajectories: TrajectoriesBody | undefined;
  verdicts: VerdictsBody | undefined;
  scores: ScoresBody | undefined;
  errors: unknown[];
}) {
  const { search } = useLocation();
  const update = useSearchUpdate();
  const selectedSpanId = search.get("span");
  const select = useCallback((spanId: string) => update({ span: spanId }, { replace: true }), [update]);
  const index = useMemo(() => indexSpans(detail.roots), [detail.roots]);
  const findingSpanIds = useMemo(() => new Set((findings?.items ?? []).map((f) => f.spanId)), [findings]);
  const timeline = useMemo(() => layoutTimeline(index.ordered, index.startNs, findingSpanIds), [index, findingSpanIds]);
  const scoring = detail.scoring.status === "scored" ? detail.scoring : null;
  const attributedAgent = attribution?.methods[0]?.pick?.agent ?? scoring?.attributions[0]?.agent ?? null;
  const graph = useMemo(
    () =>
      deriveAgentGraph({
        agents: scoring?.agents ?? [],
        handoffs: scoring?.handoffs ?? [],
        findings: (findings?.items ?? []).map((f) => ({ mode: f.mode, agent: f.agent, spanId: f.spanId, source: f.source })),
        attributedAgent,
        agentOrder: detail.trace.agents,
      }),
    [scoring, findings, attributedAgent, detail.trace.agents],
  );
  const perInvocation = search.get("graph") === "invocations";
  const invocations = useMemo(
    () =>
      perInvocation
        ? deriveInvocationGraph({
            index,
            agents: scoring?.agents ?? [],
            handoffs: scoring?.handoffs ?? [],
            findings: (findings?.items ?? []).map((f) => ({ mode: f.mode, agent: f.agent, spanId: f.spanId, source: f.source })),
            attributedAgent,
            attributedSpanId: attribution?.methods[0]?.pick?.spanId ?? scoring?.attributions[0]?.spanId ?? null,
          })
        : null,
    [perInvocation, index, scoring, findings, attributedAgent, attribution],
  );
  const agentSpan = useMemo(() => firstAgentSpans(index), [index]);
  const selectedSpan = selectedSpanId ? (index.byId.get(selectedSpanId) ?? null) : null;
  const selectedAgent = selectedSpan?.agent ?? null;
  const [transcriptAgent, setTranscriptAgent] = useState<string | null>(null);
  const stepBySpan = useMemo(() => {
    const m = new Map<string, { index: number; agent: string }>();
    for (const t of trajectories?.items ?? []) for (const s of t.steps) m.set(s.spanId, { index: s.index, agent: t.agent });
    return m;
  }, [trajectories]);
  const quotesByStep = useMemo(
    () =>
      quotesOf([
        ...(findings?.items ?? []).map((f) => ({ stepIndex: f.stepIndex, evidence: f.evidence })),
        ...verdictCitations((verdicts?.items ?? []).filter((v) => v.status === "succeeded").map((v) => v.result)),
      ]),
    [findings, verdicts],
  );
  const transcriptShows = transcriptAgent ?? stepBySpan.get(selectedSpanId ?? "")?.agent ?? selectedAgent;
  const selectAgent = useCallback(
    (agent: string) => {
      const spanId = agentSpan.get(agent);
      if (spanId) select(spanId);
      setTranscriptAgent(null);
    },
    [agentSpan, select],
  );
  const selectNode = useCallback(
    (node: string) => {
      if (!invocations) return selectAgent(node);
      const spanId = invocations.spanOf.get(node);
      if (spanId) select(spanId);
      setTranscriptAgent(null);
    },
    [invocations, selectAgent, select],
  );
  const selectSpan = useCallback(
    (spanId: string) => {
      select(spanId);
      setTranscriptAgent(null);
    },
    [select],
  );
  const t = detail.trace;
  const outcome = scores?.scores?.run.success === true ? "success" : scores?.scores?.run.success === false ? "failed" : "unknown";

  return (
    <div className="page run">
      <nav className="crumbs" aria-label="Breadcrumb">
        <Link to="/runs">Runs</Link> / <span>{t.traceId}</span>
      </nav>
      <header className="run-head">
        <h1>
          {t.rootName ?? "Run"} <OutcomeBadge outcome={outcome} />
        </h1>
        <p className="muted">
          {t.serviceName ?? "(no service)"} · {formatTime(t.startTime)} · {formatDuration(t.durationMs)} · {t.spanCount} spans · {t.agents.length} agents
          {scoring && (
            <>
              {" "}
              · <span data-testid="header-tokens">{formatTokens(scoring.totals.totalTokens)}</span> tokens ·{" "}
              <span data-testid="header-cost">{formatCost(scoring.totals.costUsd)}</span>
            </>
          )}
          {!scoring && " · not scored yet"}
          {!t.settled && " · spans may still arrive"} · <Link to={`/compare?a=${t.traceId}`}>Compare</Link>
        </p>
      </header>
      {errors.map((e, i) => (
        <ErrorState key={i} error={e} what="part of this run" />
      ))}
      <div className="run-layout">
        <div className="run-views">
          <section className="view" aria-label="Agent graph">
            <header className="view-head">
              <h2>Agent graph</h2>
              <div className="toggle" role="group" aria-label="Graph nodes">
                <button type="button" aria-pressed={!perInvocation} onClick={() => update({ graph: null }, { replace: true })}>
                  Per agent
                </button>
                <button type="button" aria-pressed={perInvocation} onClick={() => update({ graph: "invocations" }, { replace: true })}>
                  Per invocation
                </button>
              </div>
            </header>
            <AgentGraph
              graph={invocations?.graph ?? graph}
              selectedNode={invocations ? (invocations.invocationOf.get(selectedSpanId ?? "") ?? null) : selectedAgent}
              selectedSpanId={selectedSpanId}
              onSelectNode={selectNode}
              onSelectSpan={selectSpan}
            />
          </section>
          <section className="view" aria-label="Timeline">
            <h2>Timeline</h2>
            <Timeline layout={timeline} selectedSpanId={selectedSpanId} onSelect={selectSpan} />
          </section>
          <div className="tree-transcript">
            <section className="view" aria-label="Span tree">
              <h2>Span tree</h2>
              <SpanTree index={index} selectedSpanId={selectedSpanId} findingSpanIds={findingSpanIds} onSelect={selectSpan} />
            </section>
            <section className="view" aria-label="Transcript">
              <h2>Transcript</h2>
              {trajectories ? (
                <Transcript
                  trajectories={trajectories}
                  agent={transcriptShows}
                  onAgent={setTranscriptAgent}
                  selectedSpanId={selectedSpanId}
                  quotesByStep={quotesByStep}
                  onSelect={selectSpan}
                />
              ) : (
                <Loading what="the steps" />
              )}
            </section>
          </div>
          {selectedSpan && (
            <section className="view span-detail" aria-label="Selected span">
              <h2>Selected span</h2>
              <p>
                <strong>{selectedSpan.name}</strong> <span className="muted">{selectedSpan.spanId}</span> · {selectedSpan.operation} ·{" "}
                {selectedSpan.agent ?? "(no agent)"} · {formatDuration(selectedSpan.durationMs)}
                {selectedSpan.isError && ` · error ${selectedSpan.errorType ?? ""} ${selectedSpan.status.message}`}
              </p>
              <details>
                <summary>Attributes</summary>
                <pre className="msg-text">{JSON.stringify(selectedSpan.attributes, null, 2)}</pre>
              </details>
            </section>
          )}
        </div>
        <aside className="run-side" aria-label="Findings, attribution, verdicts and scores">
          {findings ? <FindingsSection findings={findings} selectedSpanId={selectedSpanId} onSelect={selectSpan} /> : <Loading what="findings" />}
          {attribution ? (
            <AttributionSection attribution={attribution} selectedSpanId={selectedSpanId} onSelect={selectSpan} />
          ) : (
            <Loading what="attribution" />
          )}
          <ReplaySection
            traceId={t.traceId}
            failed={outcome === "failed"}
            agents={graph.nodes.map((n) => n.agent)}
            selected={selectedSpan ? { spanId: selectedSpan.spanId, name: selectedSpan.name, agent: selectedSpan.agent } : null}
          />
          {verdicts ? <VerdictsSection verdicts={verdicts} /> : <Loading what="verdicts" />}
          {scores ? <ScoresSection scores={scores} /> : <Loading what="scores" />}
          <LabelForm
            traceId={t.traceId}
            agents={graph.nodes.map((n) => n.agent)}
            selected={
              selectedSpan ? { spanId: selectedSpan.spanId, stepIndex: stepBySpan.get(selectedSpan.spanId)?.index ?? null, agent: selectedSpan.agent } : null
            }
          />
        </aside>
      </div>
    </div>
  );
}
