/**
 * GET /traces/:traceId/attribution's `methods`: the code attribution's rank 1 next to each
 * judge's pick, ranked by what labelled traces measured (GET /validation): step accuracy first
 * (the decisive step is what a person acts on), then agent accuracy. A method no labelled trace
 * measures ranks after every measured one, in the order code, then the judges by id. A counterfactual
 * replay of the trace that names a culprit outranks them all: it re-ran the system with the correction
 * rather than reading the trace (docs/experiments.md §9). Pure.
 */
import type { AttributionAccuracy, JudgeAttributionRow, ReplayAttribution, TraceAttributionRow } from "@crux/db";

interface Pick {
  agent: string | null;
  spanId: string | null;
  stepIndex: number | null;
  explanation: string;
}

const unmeasured = (method: string, source: string): AttributionAccuracy => ({
  method,
  source,
  agent: { n: 0, correct: 0, accuracy: null },
  step: { n: 0, correct: 0, accuracy: null },
  unanswered: 0,
});

/** Descending, unknown last. */
const byAccuracy = (a: number | null, b: number | null): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a);

export function rankAttributionMethods(
  code: TraceAttributionRow[],
  judges: JudgeAttributionRow[],
  measured: AttributionAccuracy[],
  replay: ReplayAttribution | null = null,
) {
  const first = [...code].sort((a, b) => a.rank - b.rank || a.ord - b.ord)[0];
  const candidates: { accuracy: AttributionAccuracy; pick: Pick | null }[] = [
    {
      accuracy: measured.find((m) => m.source === "code") ?? unmeasured("code", "code"),
      pick: first === undefined ? null : { agent: first.agent, spanId: first.spanId, stepIndex: first.stepIndex, explanation: first.reason },
    },
    ...judges.map((j) => ({
      accuracy: measured.find((m) => m.source === j.judge && m.method === j.method) ?? unmeasured(j.method, j.judge),
      pick: { agent: j.agent, spanId: j.spanId, stepIndex: j.stepIndex, explanation: j.explanation },
    })),
  ];
  const isMeasured = (a: AttributionAccuracy) => a.step.n > 0 || a.agent.n > 0;
  const ranked = candidates
    .map((c, i) => ({ ...c, i, measured: isMeasured(c.accuracy) }))
    .sort(
      (a, b) =>
        Number(b.measured) - Number(a.measured) ||
        byAccuracy(a.accuracy.step.accuracy, b.accuracy.step.accuracy) ||
        byAccuracy(a.accuracy.agent.accuracy, b.accuracy.agent.accuracy) ||
        a.i - b.i,
    );
  if (replay !== null) {
    const accuracy = measured.find((m) => m.source === "replay") ?? unmeasured("replay", "replay");
    const pick = { agent: replay.agent, spanId: replay.spanId, stepIndex: null, explanation: replay.explanation };
    ranked.unshift({ accuracy, pick, i: -1, measured: isMeasured(accuracy) });
  }
  return ranked.map((c, i) => ({ ...c.accuracy, rank: i + 1, measured: c.measured, pick: c.pick }));
}
