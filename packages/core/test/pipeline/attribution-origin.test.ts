/**
 * One fixture per rule of following a failure back to its cause
 * (docs/attribution-accuracy.md): an executor relaying a coder's bug (in a
 * text-only chat and in a traced crew), a planner's instruction that changed
 * the task and was faithfully followed, a wrong value introduced early and
 * reused late, and a run with an incidental recovered error. The names of the
 * agents say nothing about their roles on purpose: executors are recognised
 * from structure and message shape, never from names.
 */
import { describe, expect, it } from "vitest";
import { scoreTrace } from "../../src/pipeline/index.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { input } from "./fixtures.ts";

const chat = (goal: string, turns: [id: string, agent: string, text: string][], error: string[] = []): SpanSpec[] => [
  { id: "mgr", op: "agent", agent: "group_chat_manager", start: 0, end: 10 * turns.length + 10, input: goal, output: turns[turns.length - 1]?.[2] ?? "" },
  ...turns.map(([id, agent, text], i): SpanSpec => ({
    id,
    parent: "mgr",
    op: "agent",
    agent,
    start: 10 * (i + 1),
    end: 10 * (i + 1) + 5,
    output: text,
    ...(error.includes(id) ? { error: "turn failed" } : {}),
  })),
];
const attribution = (specs: SpanSpec[], success = false) => scoreTrace(input(specs, { outcomeOverride: { success } })).attributions;

const MEAN = "Write and run a Python script that prints the mean of the numbers in data.csv";
const BUGGY = "```python\nimport csv\nrows = list(csv.reader(open('data.csv')))\nprint(sum(float(r[0]) for r in rows) / len(rows[1:]))\n```";
const FIXED = "```python\nimport csv\nrows = list(csv.reader(open('data.csv')))[1:]\nprint(sum(float(r[0]) for r in rows) / len(rows))\n```";
const TRACEBACK =
  "exitcode: 1 (execution failed)\nCode output:\nTraceback (most recent call last):\n  File \"\", line 3, in <module>\nValueError: could not convert string to float: 'value'";

describe("following a failure back to its cause", () => {
  it("charges an executor's failed run to the turn whose code it ran (text-only chat)", () => {
    const rows = attribution(
      chat(MEAN, [
        ["u1", "kim", "Please write the script that prints the mean of data.csv."],
        ["c1", "alex", `Here is the script:\n${BUGGY}`],
        ["x1", "sam", TRACEBACK],
        ["u2", "kim", "It failed. The mean could not be computed; stopping here."],
      ]),
    );
    expect(rows[0]).toMatchObject({ rank: 1, agent: "alex", spanId: "c1" });
    expect(rows[0]?.reason).toContain("sam's run at step 2 failed");
    expect(rows[0]?.reason).toContain("it ran alex's request at step 1");
    // The executor is never ranked first, whatever else is listed.
    expect(rows.find((r) => r.agent === "sam")?.rank ?? Infinity).toBeGreaterThan(1);
  });

  it("charges a traced executor's tool error (no model span of its own) to the model step that wrote the code", () => {
    const specs: SpanSpec[] = [
      { id: "root", op: "agent", agent: "crew", start: 0, end: 100, input: MEAN },
      { id: "a", parent: "root", op: "agent", agent: "alex", start: 1, end: 40 },
      { id: "a.llm", parent: "a", op: "llm", model: "gpt-4o", start: 2, end: 30, output: `Here is the script:\n${BUGGY}` },
      { id: "s", parent: "root", op: "agent", agent: "sam", start: 41, end: 80 },
      {
        id: "s.run",
        parent: "s",
        op: "tool",
        tool: "run_code",
        start: 42,
        end: 60,
        args: { code: BUGGY },
        error: "ValueError: could not convert string to float",
      },
    ];
    const rows = attribution(specs);
    expect(rows[0]).toMatchObject({ method: "first_unrecovered_tool_error", agent: "alex", spanId: "a.llm" });
    expect(rows[0]?.reason).toContain("sam only ran alex's request at step 0");
  });

  it("blames the planner whose changed instruction everyone faithfully followed, at the instruction", () => {
    const rows = attribution(
      chat("Report the Q3 2024 revenue of Acme Corp in EUR, with its source", [
        ["p1", "dana", "Lee, pull the Q2 2024 revenue of Acme Corp in EUR from its quarterly filing."],
        ["a1", "lee", "Acme Corp Q2 2024 revenue: 41.2M EUR (quarterly filing, page 4)."],
        ["w1", "robin", "Acme Corp reported 41.2M EUR revenue for Q2 2024, per its quarterly filing."],
        ["r1", "jo", "Checked against the filing: 41.2M EUR for Q2 2024 is right."],
        ["p2", "dana", "Final answer: Acme Corp's revenue was 41.2M EUR (Q2 2024 quarterly filing)."],
      ]),
    );
    expect(rows[0]).toMatchObject({ agent: "dana", spanId: "p1" });
    expect(rows[0]?.reason).toMatch(/task changed at step 0: dana said "the q2 2024" where the task says "the q3 2024"; reused at steps 1 \(lee\)/);
  });

  it("traces a wrong value introduced early and reused late to the turn that introduced it", () => {
    const rows = attribution(
      chat("Estimate the yearly electricity cost of running the office servers", [
        ["m1", "noor", "Let us list the inputs: the servers draw 4.2 kW in total, the tariff we pay matters most."],
        ["e1", "ivo", "Our tariff is 0.42 EUR per kWh according to the contract I have on file."],
        ["m2", "noor", "Good, with that tariff per kWh: running 8,760 hours a year at 4.2 kW gives the consumption."],
        ["e2", "ivo", "Consumption is 36,792 kWh; at 0.42 EUR that costs 15,453 EUR."],
        ["m3", "noor", "Final answer: about 15,453 EUR per year at 0.42 EUR per kWh."],
      ]),
    );
    // The answer's tariff (0.42) came from ivo's first turn, reused in the computation and the answer.
    expect(rows[0]).toMatchObject({ agent: "ivo", spanId: "e1" });
    expect(rows[0]?.reason).toContain('reuses "0.42", first said by ivo at step 1');
    expect(rows[0]?.reason).toContain("carried through step 3");
  });

  it("puts no blame on an incidental error the run recovered from", () => {
    const turns: [string, string, string][] = [
      ["u1", "kim", "Please write the script that prints the mean of data.csv."],
      ["c1", "alex", `Here is the script:\n${BUGGY}`],
      ["x1", "sam", TRACEBACK],
      ["c2", "alex", `The header row broke it; fixed:\n${FIXED}`],
      ["x2", "sam", "exitcode: 0 (execution succeeded)\nCode output:\n12.5"],
      ["u2", "kim", "The mean of data.csv is 12.5. Done."],
    ];
    // A run that succeeded gets no attribution at all.
    expect(attribution(chat(MEAN, turns), true)).toEqual([]);
    // Failed for another reason (the outcome says so): the recovered run is no execution failure, and the executor is never first.
    const rows = attribution(chat(MEAN, turns));
    expect(rows.some((r) => r.reason.includes("was never run successfully again"))).toBe(false);
    expect(rows[0]?.agent).not.toBe("sam");
  });
});
