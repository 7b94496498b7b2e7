/**
 * Experiments: the list (declared and implicit ones), and one experiment with its progress (the
 * runs Crux dispatched: expected, pending, running, scored, failed, timed out, stopped), start,
 * stop and resume, and its report: per-variant figures with their intervals, the comparison with
 * the baseline, per-agent credit and the directive. Every figure links to the runs behind it.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api.ts";
import { Credit } from "../experiments/Credit.tsx";
import { Directive } from "../experiments/Directive.tsx";
import { experimentPath, runsOf } from "../experiments/links.ts";
import { VariantsReport } from "../experiments/Report.tsx";
import { FailedRuns } from "../experiments/FailedRuns.tsx";
import { formatTime } from "../format.ts";
import { Link, useLocation, useTitle } from "../router.tsx";
import type { ExperimentItem, ExperimentProgressBody, ExperimentReportBody, Experiments, StartBody } from "../types.ts";
import { Empty, ErrorState, Loading } from "../ui.tsx";

export default function ExperimentsPage() {
  const id = useLocation().search.get("id");
  return id ? <ExperimentView id={id} /> : <ExperimentList />;
}

function ExperimentList() {
  useTitle("Experiments");
  const list = useQuery({ queryKey: ["experiments"], queryFn: () => api<Experiments>("/experiments?limit=200") });
  return (
    <div className="page">
      <h1>Experiments</h1>
      {list.isPending ? (
        <Loading what="experiments" />
      ) : list.isError ? (
        <ErrorState error={list.error} what="the experiments" retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <Empty>
          <h2>No experiments yet</h2>
          <p>
            Tag runs with <code>crux.experiment.id</code>, <code>crux.variant</code>, <code>crux.task.id</code> and <code>crux.trial</code> (on the root span or
            the resource) and they form an experiment of their own; or declare one with <code>POST /api/v1/experiments</code> and start it from here.
            docs/experiments.md says how.
          </p>
        </Empty>
      ) : (
        <table className="data experiments">
          <thead>
            <tr>
              <th scope="col">Experiment</th>
              <th scope="col">Status</th>
              <th scope="col">Variants</th>
              <th scope="col" className="num">
                Trials
              </th>
              <th scope="col" className="num">
                Scored runs
              </th>
              <th scope="col">Value</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((e) => (
              <tr key={e.id} data-experiment={e.id}>
                <td>
                  <Link to={experimentPath(e.id)}>{e.name}</Link>
                  {e.name !== e.id && <span className="muted small"> {e.id}</span>}
                </td>
                <td>
                  <span className={`badge status-${e.status}`}>{e.status}</span>
                  {e.implicit && (
                    <span className="badge" title="Known only from run tags">
                      implicit
                    </span>
                  )}
                </td>
                <td>{e.variants.map((v) => v.name).join(", ") || "–"}</td>
                <td className="num">{e.trials}</td>
                <td className="num">
                  <Link to={runsOf(e.id, [])}>{e.runs}</Link>
                </td>
                <td>{e.valueKind === "success" ? "success" : "partial credit"}</td>
                <td>{e.createdAt ? formatTime(e.createdAt) : "–"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function ExperimentView({ id }: { id: string }) {
  useTitle(`Experiment ${id}`);
  const path = `/experiments/${encodeURIComponent(id)}`;
  const experiment = useQuery({ queryKey: ["experiment", id], queryFn: () => api<ExperimentItem>(path) });
  const report = useQuery({ queryKey: ["experiment-report", id], queryFn: () => api<ExperimentReportBody>(`${path}/report`) });
  return (
    <div className="page experiment">
      <p className="crumbs">
        <Link to="/experiments">Experiments</Link> / {id}
      </p>
      {experiment.isPending ? (
        <Loading what="the experiment" />
      ) : experiment.isError ? (
        <ErrorState error={experiment.error} what={`experiment ${id}`} retry={() => void experiment.refetch()} />
      ) : (
        <>
          <h1>{experiment.data.name}</h1>
          {experiment.data.description && <p>{experiment.data.description}</p>}
          <p className="muted">
            {experiment.data.implicit ? "Implicit: known only from run tags (no dataset, runner or declared variants). " : ""}
            {experiment.data.trials} trial{experiment.data.trials === 1 ? "" : "s"} per task and variant; value of a run:{" "}
            {experiment.data.valueKind === "success" ? "its success (0 or 1)" : "its milestone partial credit"}.{" "}
            <Link to={runsOf(id, [])}>All {experiment.data.runs} scored runs</Link>
          </p>
          {!experiment.data.implicit && <Progress experiment={experiment.data} />}
        </>
      )}
      {report.isPending ? (
        <Loading what="the report" />
      ) : report.isError ? (
        <ErrorState error={report.error} what="the report" retry={() => void report.refetch()} />
      ) : (
        <>
          <Directive report={report.data} />
          <VariantsReport report={report.data} />
          <Credit report={report.data} />
          <FailedRuns report={report.data} />
          <p className="muted small">
            Intervals: {Math.round(report.data.confidence * 100)}% percentile bootstrap over tasks, {report.data.iterations} resamples, seed {report.data.seed}{" "}
            (the same runs always give the same report). An interval marked "few tasks" rests on fewer than 10 tasks: however narrow, it says little.
          </p>
        </>
      )}
    </div>
  );
}

const progressFields: [keyof ExperimentProgressBody, string][] = [
  ["expected", "expected"],
  ["pending", "pending"],
  ["running", "running"],
  ["scored", "scored"],
  ["failed", "failed"],
  ["timedOut", "timed out"],
  ["stopped", "stopped"],
];

function Progress({ experiment }: { experiment: ExperimentItem }) {
  const path = `/experiments/${encodeURIComponent(experiment.id)}`;
  const queryClient = useQueryClient();
  const progress = useQuery({
    queryKey: ["experiment-progress", experiment.id],
    queryFn: () => api<ExperimentProgressBody>(`${path}/progress`),
    refetchInterval: (q) => (q.state.data?.status === "running" ? 3000 : false),
  });
  const action = useMutation({
    mutationFn: (what: "start" | "stop" | "resume") => api<StartBody | ExperimentProgressBody>(`${path}/${what}`, { method: "POST" }),
    // Stop and resume answer the progress itself.
    onSuccess: (data) => {
      if ("expected" in data) queryClient.setQueryData(["experiment-progress", experiment.id], data);
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ["experiment-progress", experiment.id] });
      void queryClient.invalidateQueries({ queryKey: ["experiment", experiment.id] });
    },
  });
  const started = action.data && "dispatches" in action.data ? action.data : null;
  const status = progress.data?.status ?? experiment.status;
  return (
    <section aria-label="Progress" className="progress">
      <h2>Progress</h2>
      {progress.isPending ? (
        <Loading what="progress" />
      ) : progress.isError ? (
        <ErrorState error={progress.error} what="progress" retry={() => void progress.refetch()} />
      ) : (
        <dl className="facts progress-counts">
          <dt>status</dt>
          <dd data-testid="progress-status">{progress.data.status}</dd>
          {progressFields.map(([k, label]) => (
            <div key={k} className="fact">
              <dt>{label}</dt>
              <dd data-testid={`progress-${k}`}>{progress.data[k]}</dd>
            </div>
          ))}
        </dl>
      )}
      <div className="actions">
        {experiment.runnerId === null ? (
          <p className="muted small">No runner: this experiment's runs come from your own tagged runs. Declare a runner to start it from here.</p>
        ) : (
          <>
            <button type="button" disabled={action.isPending} onClick={() => action.mutate("start")}>
              Start
            </button>
            <button type="button" disabled={action.isPending || status !== "running"} onClick={() => action.mutate("stop")}>
              Stop
            </button>
            <button type="button" disabled={action.isPending || status !== "stopped"} onClick={() => action.mutate("resume")}>
              Resume
            </button>
          </>
        )}
        {started && (
          <span role="status" className="ok">
            Started: {started.dispatches} runs dispatched (at most {started.concurrency} at once; cap {started.cap} per start).
          </span>
        )}
        {action.isError && <ErrorState error={action.error} what={`the experiment's ${action.variables}`} />}
      </div>
    </section>
  );
}
