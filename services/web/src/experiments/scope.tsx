/**
 * The runs list narrowed to an experiment's runs (?experiment=<id>&variant=<name>...): the runs
 * behind a report's figure, filtered by the list API itself (scopeQuery) with the page's other
 * filters; the report says how many runs the variants have.
 */
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { api } from "../api.ts";
import { Link } from "../router.tsx";
import type { ExperimentReportBody } from "../types.ts";
import { ErrorState, Loading } from "../ui.tsx";
import { experimentPath } from "./links.ts";

export interface ExperimentScope {
  experimentId: string;
  variants: string[];
  /** The runs of the named variants (all variants when none is named); null until the report is in. */
  traceIds: Set<string> | null;
  pending: boolean;
  error: unknown;
  retry: () => void;
}

export function useExperimentScope(search: URLSearchParams): ExperimentScope | null {
  const experimentId = search.get("experiment");
  const variantKey = search.getAll("variant").join("\n");
  const report = useQuery({
    queryKey: ["experiment-report", experimentId],
    queryFn: () => api<ExperimentReportBody>(`/experiments/${encodeURIComponent(experimentId!)}/report`),
    enabled: experimentId !== null,
  });
  return useMemo(() => {
    if (experimentId === null) return null;
    const variants = variantKey === "" ? [] : variantKey.split("\n");
    const traceIds = report.data
      ? new Set(report.data.variants.filter((v) => variants.length === 0 || variants.includes(v.name)).flatMap((v) => v.traceIds))
      : null;
    return { experimentId, variants, traceIds, pending: report.isPending, error: report.error, retry: () => void report.refetch() };
  }, [experimentId, variantKey, report.data, report.isPending, report.error, report.refetch]);
}

/** The list API's experiment and variant parameters, to append to a query string that has others. */
export function scopeQuery(scope: ExperimentScope): string {
  const p = new URLSearchParams({ experiment: scope.experimentId });
  for (const v of scope.variants) p.append("variant", v);
  return `&${p.toString()}`;
}

export function ScopeBanner({ scope, shown, complete }: { scope: ExperimentScope; shown: number; complete: boolean }) {
  if (scope.error) return <ErrorState error={scope.error} what={`experiment ${scope.experimentId}'s report`} retry={scope.retry} />;
  if (scope.traceIds === null) return <Loading what={`experiment ${scope.experimentId}'s runs`} />;
  return (
    <p className="scope" role="note" data-testid="experiment-scope">
      Runs of experiment <Link to={experimentPath(scope.experimentId)}>{scope.experimentId}</Link>
      {scope.variants.length > 0 ? `, variant${scope.variants.length > 1 ? "s" : ""} ${scope.variants.join(", ")}` : ", every variant"}:{" "}
      <span data-testid="scope-count">
        {shown} of {scope.traceIds.size}
      </span>{" "}
      runs{complete ? "" : " (more as you scroll)"}. <Link to="/runs">Show every run</Link>
    </p>
  );
}
