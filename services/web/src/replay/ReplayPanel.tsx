/**
 * A run's replays (GET /traces/:traceId/replays, newest first): each one's progress and report
 * (per correction set its successes of its trials, the decisive corrections, shared blame, the
 * flip rate and the verdict), read again every second while any is still running. When a replay
 * finishes, the run's attribution is read again: a replay that names a culprit ranks first there.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { api } from "../api.ts";
import { formatPercent, formatTime } from "../format.ts";
import type { ReplayBody, ReplayListBody } from "../types.ts";
import { ErrorState, Loading } from "../ui.tsx";

const progressFields = ["expected", "pending", "running", "scored", "failed", "timedOut", "stopped"] as const;
const progressLabels: Record<(typeof progressFields)[number], string> = {
  expected: "expected",
  pending: "pending",
  running: "running",
  scored: "scored",
  failed: "failed",
  timedOut: "timed out",
  stopped: "stopped",
};
const verdicts: Record<ReplayBody["report"]["verdict"], string> = {
  decisive: "decisive: a correction alone fixes the run",
  shared: "shared blame: only the corrections together fix the run",
  none: "none: no correction fixes the run",
  open: "open: still running",
};

export function ReplayPanel({ traceId }: { traceId: string }) {
  const queryClient = useQueryClient();
  const replays = useQuery({
    queryKey: ["replays", traceId],
    queryFn: () => api<ReplayListBody>(`/traces/${traceId}/replays`),
    refetchInterval: (q) => (q.state.data?.items.some((r) => !r.report.complete) ? 1000 : false),
  });
  const finished = replays.data?.items.filter((r) => r.report.complete || r.attribution !== null).length ?? 0;
  const seen = useRef(finished);
  useEffect(() => {
    if (finished !== seen.current) {
      seen.current = finished;
      void queryClient.invalidateQueries({ queryKey: ["attribution", traceId] });
    }
  }, [finished, queryClient, traceId]);
  if (replays.isPending) return <Loading what="the replays" />;
  if (replays.isError) return <ErrorState error={replays.error} what="the replays" retry={() => void replays.refetch()} />;
  if (replays.data.items.length === 0) return <p className="muted">No replay of this run yet.</p>;
  return (
    <ol className="replays">
      {replays.data.items.map((r) => (
        <li key={r.id}>
          <ReplayItem replay={r} />
        </li>
      ))}
    </ol>
  );
}

const blameLabel = (b: { agents: string[]; spanIds: string[] }) => [...b.agents, ...b.spanIds.map((s) => `step ${s}`)].join(" + ") || "(nothing)";

function ReplayItem({ replay }: { replay: ReplayBody }) {
  const { report, progress } = replay;
  return (
    <article className="replay" data-replay={replay.id} data-complete={report.complete} aria-label={`Replay of ${formatTime(replay.createdAt)}`}>
      <p>
        <strong>Replay</strong> <span className="muted">{formatTime(replay.createdAt)}</span> · {replay.trials} trial{replay.trials === 1 ? "" : "s"} per set ·
        task from {replay.task.source === "dataset" ? `dataset item ${replay.task.taskId ?? ""}` : "the root span's input"}
      </p>
      <dl className="facts progress-counts">
        {progressFields.map((k) => (
          <div key={k} className="fact">
            <dt>{progressLabels[k]}</dt>
            <dd data-testid={`replay-progress-${k}`}>{progress[k]}</dd>
          </div>
        ))}
      </dl>
      <p>
        Verdict: <strong data-testid="replay-verdict">{report.verdict}</strong> <span className="muted">({verdicts[report.verdict]})</span> · flip rate{" "}
        <span data-testid="replay-flip-rate">{formatPercent(report.flipRate)}</span>
        {!report.complete && " · re-runs still out"}
      </p>
      {report.decisive.length > 0 && (
        <p>
          Decisive: <span data-testid="replay-decisive">{report.decisive.map((d) => `${blameLabel(d)} (${d.succeeded}/${d.trials})`).join(", ")}</span>
        </p>
      )}
      {report.sharedBlame && (
        <p>
          Shared blame:{" "}
          <span data-testid="replay-shared">
            {blameLabel(report.sharedBlame)} ({report.sharedBlame.succeeded}/{report.sharedBlame.trials})
          </span>
        </p>
      )}
      <table className="data replay-sets">
        <caption className="muted small">Per correction set</caption>
        <thead>
          <tr>
            <th scope="col">Set</th>
            <th scope="col" className="num">
              Succeeded
            </th>
            <th scope="col" className="num">
              Failed
            </th>
            <th scope="col" className="num">
              Flip rate
            </th>
          </tr>
        </thead>
        <tbody>
          {report.sets.map((s) => (
            <tr key={s.id} data-set={s.id}>
              <th scope="row">
                {s.kind === "combined" ? `all (${blameLabel(s)})` : blameLabel(s)}
                {(s.lost > 0 || s.waiting > 0 || s.unknown > 0) && (
                  <span className="muted small">
                    {" "}
                    (
                    {[s.waiting > 0 && `${s.waiting} waiting`, s.lost > 0 && `${s.lost} lost`, s.unknown > 0 && `${s.unknown} without outcome`]
                      .filter(Boolean)
                      .join(", ")}
                    )
                  </span>
                )}
              </th>
              <td className="num" data-testid="set-succeeded">
                {s.succeeded}/{s.trials}
              </td>
              <td className="num" data-testid="set-failed">
                {s.failed}
              </td>
              <td className="num" data-testid="set-flip-rate">
                {formatPercent(s.flipRate)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}
