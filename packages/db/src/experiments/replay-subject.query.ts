/**
 * What a replay of a trace needs to know about it (docs/experiments.md §9): the task to re-run
 * (the dataset item when the trace is a run of a declared experiment, else the root span's
 * input), the agents in it, and which agent owns each span (for step corrections).
 */
import type { StoredSpan } from "@crux/core";
import { eq, and } from "drizzle-orm";
import type { Database } from "../client.ts";
import { traceScores } from "../schema/scores.ts";
import { listTraceTrajectories } from "../scores/trace-reads.ts";
import { listTraceSpans } from "../traces/reads.ts";
import { readDatasetVersion } from "./datasets.repository.ts";
import { getExperiment } from "./experiments.repository.ts";
import type { ReplayTask } from "./replays.repository.ts";

export interface ReplaySubject {
  /** null: no dataset item and no root span input. */
  task: ReplayTask | null;
  agents: Set<string>;
  /** Every span of the trace, with the agent whose trajectory holds it (null: none). */
  spanAgents: Map<string, string | null>;
}

/**
 * null when the trace has no spans (unknown to the project). `inputOf` reads a stored span's input
 * text: content is derived by the caller (the normalizer), never on db's read path.
 */
export async function readReplaySubject(
  database: Database,
  projectId: string,
  traceId: string,
  inputOf: (span: StoredSpan) => string | null,
): Promise<ReplaySubject | null> {
  const [spans, trajectories, [tags]] = await Promise.all([
    listTraceSpans(database, projectId, traceId),
    listTraceTrajectories(database, projectId, traceId),
    database.db
      .select({ experimentId: traceScores.experimentId, taskId: traceScores.taskId })
      .from(traceScores)
      .where(and(eq(traceScores.projectId, projectId), eq(traceScores.traceId, traceId))),
  ]);
  if (spans.length === 0) return null;
  const spanAgents = new Map<string, string | null>(spans.map((s) => [s.spanId, null]));
  const agents = new Set<string>();
  for (const t of trajectories) {
    agents.add(t.agent);
    for (const step of t.steps) spanAgents.set(step.spanId, t.agent);
  }
  for (const s of spans) if (s.agentName !== null) agents.add(s.agentName);
  return { task: (await datasetTask(database, projectId, tags)) ?? rootSpanTask(spans, inputOf), agents, spanAgents };
}

async function datasetTask(
  database: Database,
  projectId: string,
  tags: { experimentId: string | null; taskId: string | null } | undefined,
): Promise<ReplayTask | null> {
  if (!tags || tags.experimentId === null || tags.taskId === null) return null;
  const experiment = await getExperiment(database, projectId, tags.experimentId);
  if (!experiment || experiment.datasetId === null || experiment.datasetVersion === null) return null;
  const item = (await readDatasetVersion(database, experiment.datasetId, experiment.datasetVersion)).find((i) => i.taskId === tags.taskId);
  return item ? { source: "dataset", taskId: item.taskId, input: item.input, expected: item.expected } : null;
}

/** The earliest span without a parent in the trace; its input text, when it recorded one. */
function rootSpanTask(spans: StoredSpan[], inputOf: (span: StoredSpan) => string | null): ReplayTask | null {
  const ids = new Set(spans.map((s) => s.spanId));
  const root = spans
    .filter((s) => s.parentSpanId === null || !ids.has(s.parentSpanId))
    .sort((a, b) => (a.startTimeUnixNano < b.startTimeUnixNano ? -1 : a.startTimeUnixNano > b.startTimeUnixNano ? 1 : 0))[0];
  const input = root === undefined ? null : inputOf(root);
  return input === null || input.trim() === "" ? null : { source: "root_span", taskId: null, input, expected: null };
}
