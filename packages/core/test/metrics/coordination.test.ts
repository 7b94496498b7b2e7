import { describe, expect, it } from "vitest";
import {
  communicationEfficiency,
  coordinationScore,
  createTfidfEmbedder,
  cosine,
  goalDriftFromVectors,
  redundancyRate,
  scoreCommunication,
  scoreCoordination,
  scoreGoalDrift,
  scoreMilestones,
} from "../../src/index.ts";
import { clean, cleanSpecs, traj, withSpecs } from "../trajectory/fixtures.ts";

describe("coordinationScore", () => {
  it("docs/metrics.md §6 example: equal weights, p = (.1, 0, .2) → .9", () => {
    expect(coordinationScore({ redundancy: 0.1, ignoredHandoffs: 0, roleViolations: 0.2 })).toBeCloseTo(0.9, 12);
  });
  it("uses configured weights and leaves unknown rates out", () => {
    expect(
      coordinationScore({ redundancy: 0.5, ignoredHandoffs: 0, roleViolations: 0 }, { redundancy: 0.5, ignoredHandoffs: 0.25, roleViolations: 0.25 }),
    ).toBeCloseTo(0.75, 12);
    expect(coordinationScore({ redundancy: 0.2, ignoredHandoffs: null, roleViolations: null })).toBeCloseTo(0.8, 12);
    expect(coordinationScore({ redundancy: null, ignoredHandoffs: null, roleViolations: null })).toBeNull();
  });
});

describe("scoreCoordination", () => {
  it("is perfect on the clean trace", () => {
    const c = scoreCoordination(clean(), { contracts: [{ agent: "reviewer", role: "review", forbiddenTools: ["write_file"] }] });
    expect(c.rates).toEqual({ redundancy: 0, ignoredHandoffs: 0, roleViolations: 0 });
    expect(c.coord).toBe(1);
  });

  it("moves when a step repeats an earlier one of the same agent", () => {
    const repeat = {
      id: "res.q2",
      parent: "res",
      op: "tool" as const,
      tool: "web_search",
      start: 110,
      end: 120,
      args: { query: "solar panel efficiency Germany" },
    };
    const t = traj(withSpecs(cleanSpecs, [repeat]));
    expect(redundancyRate(t)).toEqual({ steps: 8, repeats: 1, rate: 1 / 8 });
    const c = scoreCoordination(t);
    expect(c.coord).toBeCloseTo(1 - 1 / 8 / 2, 12); // roleViolations unknown (no contracts): two rates, equal weights
  });
});

describe("communication efficiency", () => {
  it("docs/metrics.md §7 example: 4 milestones over 8,000 message tokens → .5", () => {
    expect(communicationEfficiency(4, 8000)).toBeCloseTo(0.5, 12);
    expect(communicationEfficiency(4, 0)).toBeNull();
  });
  it("counts inter-agent message tokens with an injected tokenizer", () => {
    const t = clean();
    const m = scoreMilestones(
      t,
      [
        { id: "a", weight: 1, check: true },
        { id: "b", weight: 1, check: false },
      ],
      (c) => c,
    );
    const words = (s: string) => s.split(/\s+/).length;
    const r = scoreCommunication(t, m, words);
    const expected = t.messages.reduce((n, msg) => n + words(msg.text), 0);
    expect(r.messageTokens).toBe(expected);
    expect(r.value).toBeCloseTo(1 / (expected / 1000), 12);
  });
});

describe("goal drift", () => {
  it("is the mean of 1 - cos over step vectors", () => {
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(
      goalDriftFromVectors(
        [1, 0],
        [
          [1, 0],
          [0, 1],
        ],
      ),
    ).toBeCloseTo(0.5, 12);
    expect(goalDriftFromVectors([1, 0], [])).toBeNull();
  });

  it("gives identical texts zero distance with the TF-IDF embedder", () => {
    const [a, b, c] = createTfidfEmbedder().embed(["solar panel efficiency", "solar panel efficiency", "banana bread recipe"]);
    expect(cosine(a!, b!)).toBeCloseTo(1, 12);
    expect(cosine(a!, c!)).toBeLessThan(0.2);
  });

  it("rises when an agent wanders off the goal", () => {
    const onTask = scoreGoalDrift(clean());
    const offTask = scoreGoalDrift(
      traj(
        withSpecs(cleanSpecs, [
          {
            id: "wri.llm",
            parent: "wri",
            op: "llm",
            start: 310,
            end: 400,
            output: "Here is a banana bread recipe with walnuts and cinnamon",
          },
          { id: "final", parent: "lead", op: "llm", start: 910, end: 990, output: "Bake for forty minutes then cool the loaf" },
        ]),
      ),
    );
    expect(onTask.drift).not.toBeNull();
    expect(offTask.drift!).toBeGreaterThan(onTask.drift! + 0.05);
    const stepDrift = (s: typeof onTask, i: number) => s.perStep.find((p) => p.stepIndex === i)!.drift;
    // the two replaced steps (writer's draft, lead's final answer) move most
    expect(stepDrift(offTask, 3)).toBeGreaterThan(stepDrift(onTask, 3) + 0.25);
    expect(stepDrift(offTask, 6)).toBeGreaterThan(stepDrift(onTask, 6) + 0.25);
    const writer = (s: typeof onTask) => s.perAgent.find((a) => a.agent === "writer")!.drift;
    expect(writer(offTask)).toBeGreaterThan(writer(onTask));
  });
});
