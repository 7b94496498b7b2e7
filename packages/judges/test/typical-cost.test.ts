/**
 * What judging a typical 50-step trace costs (docs/operations.md "Which traces are
 * judged, and what it costs", docs/judges.md §6): the prompts every judge sends for it, measured
 * at the mock provider, against the figures the docs state. A prompt change
 * that moves them fails here until the docs are updated.
 */
import { prepareTrace, runTagsOf } from "@crux/core";
import { agentSpec, handoffSpec, llmSpec, orderedTrace, spanIdOf, toolSpec, type OrderedSpanSpec } from "@crux/core/testing";
import { startMockLlmServer } from "@crux/testkit";
import { expect, it } from "vitest";
import { createJudgeSuite } from "../src/index.ts";
import { checklistReply } from "./replies.ts";

const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i % 7}`).join(" ");

/**
 * Three agents and 50 steps: 30 model calls (the conversation so far as input,
 * cut to 2,000 characters per field; ~500 characters out), 17 tool calls (~200
 * characters of arguments, ~1,000 of result) and 3 handoffs (~300-character
 * messages).
 */
export function typicalTrace() {
  const specs: OrderedSpanSpec[] = [
    agentSpec(spanIdOf(1), null, "planner", { content: { input: `Plan a trip: ${words(40, "goal")}`, output: words(60, "done") } }),
  ];
  const agents = ["planner", "researcher", "writer"];
  let id = 2;
  for (let i = 0; i < 50; i++) {
    const agent = agents[Math.floor(i / 17)]!;
    const sid = spanIdOf(id++);
    if (i === 16 || i === 33 || i === 49)
      specs.push(
        handoffSpec(sid, spanIdOf(1), {
          handoffFrom: agent,
          handoffTo: agents[(agents.indexOf(agent) + 1) % 3]!,
          content: { handoffMessage: words(50, "brief") },
        }),
      );
    else if (i % 3 === 1)
      specs.push(
        toolSpec(sid, spanIdOf(1), "search", { agentName: agent, content: { toolArgs: JSON.stringify({ q: words(30, "q") }), output: words(165, "r") } }),
      );
    else
      specs.push(llmSpec(sid, spanIdOf(1), 1_000, 120, { agentName: agent, model: "gpt-4o", content: { input: words(600, "ctx"), output: words(80, "say") } }));
  }
  return orderedTrace(...specs);
}

/** Input tokens of each judge's calls on this trace (characters / 4), as docs/judges.md §6 states them. */
const DOCUMENTED = {
  "mast-checklist": 10_050,
  "handoff-preservation": 680,
  "decisive-error-all-at-once": 9_770,
  /** Five windows of ten steps, each holding the history so far, when no step is found decisive. */
  "decisive-error-step-by-step": 31_260,
  "outcome-rubric": 9_850,
} as const;

it("the prompts of a typical 50-step trace are the sizes the docs state", async () => {
  const mock = await startMockLlmServer((req) => {
    const p = req.prompt;
    if (p.includes("Handoff 0:")) return { text: '{"issues": []}' };
    if (p.includes("Examine steps")) return { text: '{"step": null, "explanation": ""}' };
    if (p.includes("Grade the run")) return { text: '{"success": true, "score": null, "explanation": "", "step": null}' };
    if (p.includes("name the agent")) return { text: '{"agent": null, "step": null, "explanation": ""}' };
    return { text: checklistReply() };
  });
  try {
    const spans = typicalTrace();
    const trajectories = prepareTrace(spans);
    expect(trajectories.steps).toHaveLength(50);
    const suite = createJudgeSuite(
      { provider: "anthropic", model: "claude-sonnet-5-5", baseUrl: mock.url, apiKey: "k" },
      { rubric: "The trip plan covers every day." },
    );
    const measured: Record<string, number> = {};
    for (const judge of suite.judges) {
      const before = mock.requests.length;
      const run = await judge.run({ spans, trajectories, runTags: runTagsOf(trajectories, judge.kind === "outcome-rubric" ? null : { success: false }) });
      expect(run.status).toBe("succeeded");
      measured[judge.kind] = mock.requests.slice(before).reduce((sum, r) => sum + Math.ceil(r.prompt.length / 4), 0);
      if (judge.kind === "decisive-error-step-by-step") expect(mock.requests.length - before).toBe(5);
    }
    for (const [kind, documented] of Object.entries(DOCUMENTED))
      expect(Math.abs(measured[kind]! - documented) / documented, `${kind}: measured ${measured[kind]}`).toBeLessThan(0.05);
  } finally {
    await mock.close();
  }
});
