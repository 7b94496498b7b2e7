import { agentSpec, llmSpec, orderedTrace, spanIdOf } from "@crux/core/testing";

/** One agent, `n` model calls, each output `chars` long and naming its step. */
export function longTrace(n: number, chars: number) {
  const steps = Array.from({ length: n }, (_, i) =>
    llmSpec(spanIdOf(i + 2), spanIdOf(1), 100, 100, { agentName: "worker", content: { output: `step ${i} says ${"x".repeat(chars)}` } }),
  );
  return orderedTrace(agentSpec(spanIdOf(1), null, "worker", { content: { input: "Count the x's." } }), ...steps);
}
