/**
 * An experiment's failed runs, each with a link that opens the run with the replay form open
 * (/runs/<traceId>?replay=new). The list API has no experiment filter: the newest failed runs of
 * the project are read and kept when the report names them.
 */
import { useQuery } from "@tanstack/react-query";
import { api, qs } from "../api.ts";
import { formatTime } from "../format.ts";
import { Link } from "../router.tsx";
import type { ExperimentReportBody, TraceListPage } from "../types.ts";
import { ErrorState, Loading } from "../ui.tsx";

const shown = 20;

export function FailedRuns({ report }: { report: ExperimentReportBody }) {
  const failed = useQuery({
    queryKey: ["failed-runs"],
    queryFn: () => api<TraceListPage>(`/traces${qs({ outcome: "failed", limit: 500 })}`),
  });
  const variantOf = new Map(report.variants.flatMap((v) => v.traceIds.map((id) => [id, v.name] as const)));
  return (
    <>
      <h2>Failed runs</h2>
      {failed.isPending ? (
        <Loading what="the failed runs" />
      ) : failed.isError ? (
        <ErrorState error={failed.error} what="the failed runs" retry={() => void failed.refetch()} />
      ) : (
        <FailedList rows={failed.data.items.filter((r) => variantOf.has(r.traceId))} variantOf={variantOf} />
      )}
    </>
  );
}

function FailedList({ rows, variantOf }: { rows: TraceListPage["items"]; variantOf: Map<string, string> }) {
  if (rows.length === 0) return <p className="muted">No run of this experiment failed (among the newest 500 failed runs).</p>;
  return (
    <>
      <table className="data failed-runs">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Variant</th>
            <th scope="col">Task</th>
            <th scope="col">Attributed</th>
            <th scope="col">
              <span className="sr-only">Replay</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, shown).map((r) => (
            <tr key={r.traceId} data-failed-run={r.traceId}>
              <th scope="row">
                <Link to={`/runs/${r.traceId}`}>{formatTime(r.startTime)}</Link>
              </th>
              <td>{variantOf.get(r.traceId)}</td>
              <td>{r.taskId ?? "–"}</td>
              <td>{r.attributedAgent ?? "–"}</td>
              <td>
                <Link to={`/runs/${r.traceId}?replay=new`} aria-label={`Replay the run of ${formatTime(r.startTime)} with corrections`}>
                  Replay…
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > shown && (
        <p className="muted small">
          The newest {shown} of {rows.length}; the runs list has them all.
        </p>
      )}
    </>
  );
}
