/**
 * Goal drift: mean over the agent steps of 1 - cos(goal, step). The embedder
 * is pluggable; the default is the local TF-IDF one. An async embeddings API
 * computes vectors itself and calls goalDriftFromVectors.
 */
import type { TraceTrajectories } from "../trajectory/types.ts";
import { createTfidfEmbedder, type Embedder } from "../text/tfidf-embedder.ts";

export type { Embedder } from "../text/tfidf-embedder.ts";

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Mean of 1 - cos(goal, step); null with no step vector. */
export function goalDriftFromVectors(goal: number[], steps: number[][]): number | null {
  if (steps.length === 0) return null;
  return steps.reduce((s, v) => s + (1 - cosine(goal, v)), 0) / steps.length;
}

export interface GoalDriftOptions {
  embedder?: Embedder;
  /** Overrides the trajectories' goal. */
  goal?: string | null;
}

export interface GoalDriftScore {
  /** null when there is no goal or no step text. */
  drift: number | null;
  perStep: Array<{ stepIndex: number; agent: string | null; drift: number }>;
  perAgent: Array<{ agent: string; drift: number }>;
}

export function scoreGoalDrift(t: TraceTrajectories, options: GoalDriftOptions = {}): GoalDriftScore {
  const goal = options.goal === undefined ? t.goal : options.goal;
  // What the step produced: its output, else the arguments it acted with.
  const steps = t.steps
    .filter((s) => s.agent !== null)
    .map((s) => ({ step: s, text: s.outputText ?? s.args }))
    .filter((x) => x.text !== null && x.text.trim() !== "");
  if (goal === null || goal.trim() === "" || steps.length === 0) return { drift: null, perStep: [], perAgent: [] };
  const embedder = options.embedder ?? createTfidfEmbedder();
  const texts = [goal, ...steps.map((x) => x.text as string)];
  const cosines =
    embedder.cosinesToFirst !== undefined
      ? embedder.cosinesToFirst(texts)
      : ((vectors) => vectors.slice(1).map((v) => cosine(vectors[0] ?? [], v)))(embedder.embed(texts));
  const perStep = steps.map((x, i) => ({ stepIndex: x.step.index, agent: x.step.agent, drift: 1 - (cosines[i] ?? 0) }));
  const byAgent = new Map<string, number[]>();
  for (const p of perStep) if (p.agent !== null) byAgent.set(p.agent, [...(byAgent.get(p.agent) ?? []), p.drift]);
  return {
    drift: perStep.reduce((s, p) => s + p.drift, 0) / perStep.length,
    perStep,
    perAgent: [...byAgent.entries()].map(([agent, ds]) => ({ agent, drift: ds.reduce((s, d) => s + d, 0) / ds.length })),
  };
}
