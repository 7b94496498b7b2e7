/**
 * The contract a judge plugs into (docs/architecture.md §6): the trace.judge
 * stage runs each registered producer at most once per (producer id,
 * producer version, input hash) and stores what it returns in trace_verdicts.
 * None is registered by default; LLM judges implement this interface.
 */
import type { JudgeInput, NormalizedSpan, RunTagsResult, TraceTrajectories } from "@crux/core";

export interface JudgeProducerInput {
  projectId: string;
  traceId: string;
  /** The frozen span set. */
  spans: NormalizedSpan[];
  trajectories: TraceTrajectories;
  /** Span tags with the API's outcome override on top. */
  runTags: RunTagsResult;
}

export interface JudgeVerdict {
  /** "failed": no verdict could be reached (kept, so it is not paid for again for the same inputs). */
  status: "succeeded" | "failed";
  /** Stored as jsonb. */
  result: unknown;
}

export interface JudgeProducer {
  /** Stable name, lowercase (`goal-achieved`). */
  readonly id: string;
  /** Bump when the producer's prompt, model or logic changes: a new version judges every trace again. */
  readonly version: number;
  /** The model it calls, part of the verdict's key (a new model judges again); none: ''. */
  readonly model?: string;
  /** What the verdict depends on; must include "spans". A change to an input not declared does not run it again. */
  readonly inputs: readonly JudgeInput[];
  /** The project settings the verdict also depends on (the outcome judge's rubric), part of its input hash: a change judges again. None: omitted or null. */
  readonly settingsKey?: string | null;
  /** May call out (an LLM); a thrown PermanentError fails the job, anything else is retried with backoff. */
  judge(input: JudgeProducerInput): Promise<JudgeVerdict>;
}

/** Fails at start-up on a producer the judge stage could not key: bad id or version, no "spans" input, or an id registered twice. */
export function assertJudgeProducers(producers: readonly JudgeProducer[]): void {
  const seen = new Set<string>();
  for (const p of producers) {
    if (!/^[a-z0-9][a-z0-9._-]{0,99}$/.test(p.id)) throw new Error(`judge producer id "${p.id}" must be lowercase letters, digits, ".", "_" or "-"`);
    if (!Number.isInteger(p.version) || p.version < 1) throw new Error(`judge producer ${p.id}: version must be a positive integer`);
    if (!p.inputs.includes("spans")) throw new Error(`judge producer ${p.id}: inputs must include "spans"`);
    if (seen.has(p.id)) throw new Error(`judge producer ${p.id} is registered twice`);
    seen.add(p.id);
  }
}
