/**
 * Experiment runs as a runner exports them (@crux/testkit's tagged runs: OTLP/JSON), decoded and
 * normalized by @crux/otlp, stored, and scored the way the worker's score stage does. The run tags
 * go the whole way from OTLP attributes to trace_scores, so nothing about them is assumed here.
 */
import { scoreTrace } from "@crux/core";
import { getTrace, insertSpanBatch, loadScoringConfig, persistTraceScores, type Database } from "@crux/db";
import { addContent, decodeExportRequest, normalizeSpans } from "@crux/otlp";
import { taggedRunsExport, type TaggedRun } from "@crux/testkit";

/** Ingests and scores each run; returns their trace ids in order. */
export async function ingestRuns(database: Database, projectId: string, runs: readonly TaggedRun[]): Promise<string[]> {
  const traceIds: string[] = [];
  for (const run of runs) {
    const { body, traceIds: exported } = taggedRunsExport([run]);
    const traceId = exported[0]!;
    const decoded = decodeExportRequest(new TextEncoder().encode(body), "json");
    if (decoded.rejectedSpans > 0) throw new Error(decoded.rejectionMessage);
    await insertSpanBatch(database, projectId, normalizeSpans(decoded.spans));
    const found = await getTrace(database, projectId, traceId);
    const record = scoreTrace({
      projectId,
      traceId: traceId,
      version: found!.trace.settleVersion,
      spans: found!.spans.map(addContent),
      config: await loadScoringConfig(database, projectId, found!.trace.serviceName, run.taskId ?? null),
      outcomeOverride: null,
      baselineRun: null,
      validateSchema: () => ({ valid: true, errors: [] }),
      evaluateMilestone: () => false,
    });
    await persistTraceScores(database, projectId, record);
    traceIds.push(traceId);
  }
  return traceIds;
}
