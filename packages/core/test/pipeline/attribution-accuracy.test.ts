/**
 * Measures how often the top attribution (rank 1) of a failed trace names the
 * labelled agent and step, over the hand-labelled cases (attribution-cases*.ts),
 * per system shape and overall, next to naive baselines on the same traces.
 * The numbers are written up in docs/attribution-accuracy.md; this test
 * recomputes them and holds floors.
 */
import { describe, expect, it } from "vitest";
import { scoreTrace } from "../../src/pipeline/index.ts";
import type { AttributionRow, TraceScoreRecord } from "../../src/pipeline/record.ts";
import { labelledCases, succeededCases } from "./attribution-cases.ts";
import type { LabelledCase, Shape } from "./attribution-crews.ts";
import { config, input } from "./fixtures.ts";

type Method = "crux" | "last_step" | "last_non_tool_step" | "most_frequent_speaker" | "second_step" | "first_error";
const METHODS: Method[] = ["crux", "last_step", "last_non_tool_step", "most_frequent_speaker", "second_step", "first_error"];
const SHAPES: Shape[] = ["tool_crew", "supervisor_handoffs", "group_chat", "verifier_pipeline"];

interface Blame {
  agent: string | null;
  spanId: string | null;
}

const score = (c: Pick<LabelledCase, "specs" | "agentContracts" | "handoffContracts">, success: boolean): TraceScoreRecord =>
  scoreTrace(input(c.specs, { config: config({ agentContracts: c.agentContracts, handoffContracts: c.handoffContracts }), outcomeOverride: { success } }));

/** Naive baselines read only the steps: who spoke last (any step, or not a tool call), who spoke most, the second step, where the first error is. */
function baselines(record: TraceScoreRecord): Record<Exclude<Method, "crux">, Blame> {
  const steps = record.trajectories.flatMap((a) => a.steps.map((s) => ({ ...s, agent: a.agent }))).sort((a, b) => a.index - b.index);
  const last = steps[steps.length - 1];
  const lastBlame: Blame = { agent: last?.agent ?? null, spanId: last?.spanId ?? null };
  const counts = new Map<string, number>();
  for (const s of steps) counts.set(s.agent, (counts.get(s.agent) ?? 0) + 1);
  // Ties go to the agent that spoke first (Map keeps first-seen order; sort is stable).
  const frequent = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  const frequentLast = [...steps].reverse().find((s) => s.agent === frequent);
  const firstError = steps.find((s) => s.isError);
  const lastNonTool = [...steps].reverse().find((s) => s.kind !== "tool");
  const second = steps[Math.min(1, steps.length - 1)];
  return {
    last_step: lastBlame,
    last_non_tool_step: { agent: lastNonTool?.agent ?? null, spanId: lastNonTool?.spanId ?? null },
    second_step: { agent: second?.agent ?? null, spanId: second?.spanId ?? null },
    most_frequent_speaker: { agent: frequent, spanId: frequentLast?.spanId ?? null },
    first_error: firstError === undefined ? lastBlame : { agent: firstError.agent, spanId: firstError.spanId },
  };
}

interface Outcome {
  c: LabelledCase;
  top: AttributionRow | undefined;
  rows: AttributionRow[];
  blame: Record<Method, Blame>;
}

const outcomes: Outcome[] = labelledCases.map((c) => {
  const record = score(c, false);
  const top = record.attributions.find((a) => a.rank === 1);
  return { c, top, rows: record.attributions, blame: { crux: { agent: top?.agent ?? null, spanId: top?.spanId ?? null }, ...baselines(record) } };
});

const fired = (o: Outcome) => o.top !== undefined && !o.top.method.startsWith("suspect");
const agentRight = (o: Outcome, m: Method) => o.blame[m].agent === o.c.label.agent;
const stepRight = (o: Outcome, m: Method) => o.blame[m].spanId === o.c.label.spanId;
const rate = (xs: Outcome[], pick: (o: Outcome) => boolean) => (xs.length === 0 ? 0 : xs.filter(pick).length / xs.length);
const subsets: [string, Outcome[]][] = [...SHAPES.map((s): [string, Outcome[]] => [s, outcomes.filter((o) => o.c.shape === s)]), ["all", outcomes]];
const table = Object.fromEntries(
  subsets.map(([name, xs]) => [
    name,
    { traces: xs.length, ...Object.fromEntries(METHODS.map((m) => [m, { agent: rate(xs, (o) => agentRight(o, m)), step: rate(xs, (o) => stepRight(o, m)) }])) },
  ]),
) as Record<string, { traces: number } & Record<Method, { agent: number; step: number }>>;

describe("decisive-error attribution accuracy on labelled failed traces", () => {
  it("covers at least 60 failed traces in four system shapes, with distinct names and a one-line rationale each", () => {
    expect(labelledCases.length).toBeGreaterThanOrEqual(60);
    for (const s of SHAPES) expect(outcomes.filter((o) => o.c.shape === s).length, s).toBeGreaterThanOrEqual(10);
    expect(new Set(labelledCases.map((c) => c.name)).size).toBe(labelledCases.length);
    for (const c of labelledCases) expect(c.why, c.name).toMatch(/^[^\n]+$/);
  });

  it("gives every failed trace an attribution whose rank 1 names an agent and a span, with a method and a confidence", () => {
    for (const o of outcomes) {
      expect(o.rows.length, o.c.name).toBeGreaterThan(0);
      expect(o.top, o.c.name).toMatchObject({ rank: 1, agent: expect.any(String), spanId: expect.any(String), method: expect.any(String) });
      expect(o.top?.method, o.c.name).toMatch(/\S/);
      expect(o.top?.confidence, o.c.name).toBeGreaterThan(0);
      expect(o.top?.confidence, o.c.name).toBeLessThanOrEqual(1);
    }
  });

  it("gives a run that succeeded no attribution", () => {
    expect(succeededCases.length).toBeGreaterThanOrEqual(4);
    for (const c of succeededCases) expect(score(c, true).attributions, c.name).toEqual([]);
  });

  it("keeps the first cases' rule expectations: rule cases fire a rule, the others do not", () => {
    expect(outcomes.filter((o) => o.c.kind === "rule" && !fired(o)).map((o) => o.c.name)).toEqual([]);
    expect(outcomes.filter((o) => o.c.kind === "no_rule" && fired(o)).map((o) => o.c.name)).toEqual([]);
  });

  it("keeps every rule that fired visible: the adversarial dropped constraint is rank 2", () => {
    const adversarial = outcomes.find((o) => o.c.name.startsWith("research (adversarial)"));
    expect(adversarial?.rows.map((r) => [r.rank, r.method, r.agent, r.spanId])).toEqual([
      [1, "first_unrecovered_tool_error", "reviewer", "rev.notify"],
      [2, "first_dropped_constraint", "lead", "wri"],
    ]);
  });

  it("reports its accuracy next to the naive baselines and stays above the floors", () => {
    const pct = (x: number) => `${Math.round(x * 100)}%`;
    console.log(
      [
        ...outcomes.map(
          (o) =>
            `${agentRight(o, "crux") ? "A" : "-"}${stepRight(o, "crux") ? "S" : "-"} ${o.top?.method ?? "none"} → ${o.top?.agent}/${o.top?.spanId} (label ${o.c.label.agent}/${o.c.label.spanId})  ${o.c.name}`,
        ),
        `rule fired: ${outcomes.filter(fired).length} traces, agent ${pct(rate(outcomes.filter(fired), (o) => agentRight(o, "crux")))}, step ${pct(rate(outcomes.filter(fired), (o) => stepRight(o, "crux")))}; ` +
          `suspects only: ${outcomes.filter((o) => !fired(o)).length} traces, agent ${pct(
            rate(
              outcomes.filter((o) => !fired(o)),
              (o) => agentRight(o, "crux"),
            ),
          )}, step ${pct(
            rate(
              outcomes.filter((o) => !fired(o)),
              (o) => stepRight(o, "crux"),
            ),
          )}`,
        "| shape | traces | " + METHODS.map((m) => `${m} agent | ${m} step`).join(" | ") + " |",
        ...Object.entries(table).map(
          ([name, row]) => `| ${name} | ${row.traces} | ${METHODS.map((m) => `${pct(row[m].agent)} | ${pct(row[m].step)}`).join(" | ")} |`,
        ),
      ].join("\n"),
    );
    // Floors: the measured rates (docs/attribution-accuracy.md) minus a small margin.
    const floors: Record<string, { agent: number; step: number }> = FLOORS;
    for (const [name, floor] of Object.entries(floors)) {
      expect(table[name]?.crux.agent, `${name} agent`).toBeGreaterThanOrEqual(floor.agent);
      expect(table[name]?.crux.step, `${name} step`).toBeGreaterThanOrEqual(floor.step);
    }
    // Crux beats every naive baseline in every shape and overall, in agent and in step.
    for (const [name, row] of Object.entries(table)) {
      for (const m of METHODS.slice(1)) {
        expect(row.crux.agent, `${name} ${m} agent`).toBeGreaterThan(row[m].agent);
        expect(row.crux.step, `${name} ${m} step`).toBeGreaterThan(row[m].step);
      }
    }
  });
});

const FLOORS = {
  tool_crew: { agent: 0.62, step: 0.57 },
  supervisor_handoffs: { agent: 0.76, step: 0.76 },
  group_chat: { agent: 0.66, step: 0.6 },
  verifier_pipeline: { agent: 0.5, step: 0.5 },
  all: { agent: 0.68, step: 0.65 },
};
