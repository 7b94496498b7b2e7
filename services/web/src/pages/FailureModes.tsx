/** Failure-mode rates: unmeasured modes say so (never 0), rates resting on an unvalidated judge are marked; a mode opens its runs. */
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { timeBuckets } from "../charts/buckets.ts";
import { FailureModesChart } from "../charts/FailureModesChart.tsx";
import { api, qs } from "../api.ts";
import { formatPercent } from "../format.ts";
import { Link, useLocation, useSearchUpdate, useTitle } from "../router.tsx";
import type { FailureModesBody } from "../types.ts";
import { ErrorState, Loading } from "../ui.tsx";
import { WindowPicker, windowFrom } from "./window.tsx";

export default function FailureModesPage() {
  useTitle("Failure modes");
  const { search } = useLocation();
  const update = useSearchUpdate();
  const groupBy = search.get("groupBy") ?? "mode";
  const source = search.get("source") ?? "all";
  const from = windowFrom(search);
  const windowKey = search.get("window");
  const buckets = useMemo(() => timeBuckets(windowKey, Date.now()), [windowKey]);
  const q = useQuery({
    queryKey: ["failure-modes", groupBy, source, from],
    queryFn: () => api<FailureModesBody>(`/metrics/failure-modes${qs({ groupBy, source, from, limit: 500 })}`),
  });
  return (
    <div className="page">
      <h1>Failure modes</h1>
      <div className="filters">
        <WindowPicker />
        <label>
          Group by
          <select value={groupBy} onChange={(e) => update({ groupBy: e.target.value })}>
            {["mode", "category", "agent", "service"].map((g) => (
              <option key={g}>{g}</option>
            ))}
          </select>
        </label>
        <label>
          Source
          <select value={source} onChange={(e) => update({ source: e.target.value })}>
            <option value="all">code and judges</option>
            <option value="code">code</option>
            <option value="judge">judges</option>
          </select>
        </label>
      </div>
      <h2>Over time</h2>
      <FailureModesChart buckets={buckets} groupBy={groupBy} source={source} />
      <h2>In the window</h2>
      {q.isPending ? (
        <Loading what="failure-mode rates" />
      ) : q.isError ? (
        <ErrorState error={q.error} what="failure-mode rates" retry={() => void q.refetch()} />
      ) : (
        <>
          <p className="muted">
            {q.data.scopeTraces} scored runs in the window; {q.data.judgedTraces} judged.
          </p>
          <table className="data">
            <thead>
              <tr>
                {groupBy !== "mode" && groupBy !== "category" && <th scope="col">{groupBy}</th>}
                <th scope="col">{groupBy === "category" ? "Category" : "Mode"}</th>
                <th scope="col" className="num">
                  Rate
                </th>
                <th scope="col" className="num">
                  Runs
                </th>
                <th scope="col">Measured by</th>
              </tr>
            </thead>
            <tbody>
              {q.data.rates.map((r, i) => (
                <tr key={i}>
                  {groupBy !== "mode" && groupBy !== "category" && <td>{r.group ?? "–"}</td>}
                  <td>
                    <Link
                      to={`/runs?${groupBy === "category" ? "category" : "mode"}=${encodeURIComponent(r.mode)}${source !== "all" ? `&source=${source}` : ""}`}
                    >
                      {r.mode}
                    </Link>
                  </td>
                  <td className="num">
                    {r.measured ? formatPercent(r.rate) : <span className="muted">unmeasured</span>}
                    {!r.validated && (
                      <span className="badge warn" title={r.validationReason ?? ""}>
                        unvalidated judge
                      </span>
                    )}
                  </td>
                  <td className="num">
                    {r.numerator} / {r.denominator}
                  </td>
                  <td className="small">{r.measured ? r.detectors.join(", ") : (r.reason ?? "no detector")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
