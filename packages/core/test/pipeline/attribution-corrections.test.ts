/**
 * A contribution the team corrected (corrections.ts): a turn another agent
 * called wrong and whose new content the final answer dropped is where the
 * mistake entered, even when the run recovered before its end; a verdict by a
 * reviewer whose own work was then called wrong is no evidence; and a run that
 * corrected itself is not blamed on whoever first said its final answer's
 * words. Also the task-swap exceptions a solution's own work needs: a figure
 * it computed, a list number, another name of the task, a doubled word.
 */
import { describe, expect, it } from "vitest";
import { scoreTrace } from "../../src/pipeline/index.ts";
import { stepsSwappingTask } from "../../src/attribution/task-deviation.ts";
import type { Step } from "../../src/trajectory/types.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { input } from "./fixtures.ts";

const chat = (goal: string, turns: [id: string, agent: string, text: string][]): SpanSpec[] => [
  { id: "mgr", op: "agent", agent: "group_chat_manager", start: 0, end: 10 * turns.length + 10, input: goal, output: turns[turns.length - 1]?.[2] ?? "" },
  ...turns.map(([id, agent, text], i): SpanSpec => ({ id, parent: "mgr", op: "agent", agent, start: 10 * (i + 1), end: 10 * (i + 1) + 5, output: text })),
];
const attribution = (specs: SpanSpec[]) => scoreTrace(input(specs, { outcomeOverride: { success: false } })).attributions;

const GOAL = "A train travels 180 km in 3 hours, then 120 km in 2 hours. What is its average speed over the whole trip in km/h?";
const FIRST = "Total distance is 180 + 120 = 300 km and total time is 3 + 2 = 5 hours, so the average speed over the whole trip is 300 / 5 = 60 km/h.";
const WRONG_REVISION =
  "Revised answer: averaging the two legs gives a better picture. The first leg runs at 60 km/h and the second at 60 km/h, but weighting each leg equally and rounding the harmonic blend upward yields 66 km/h as the trip's representative velocity.";
const REVIEW_OF_WRONG =
  "The revised answer incorrectly blends the legs: weighting each leg equally and the harmonic blend are not how an average speed over a trip is computed, and 66 km/h is wrong.";
const FINAL = "Final answer: total distance 300 km over total time 5 hours, so the average speed over the whole trip is 60 km/h.";

describe("a contribution the team corrected", () => {
  it("names the turn a reviewer called wrong and the final answer edited out, though the final answer is right", () => {
    const rows = attribution(
      chat(GOAL, [
        ["t1", "ana", FIRST],
        ["t2", "ben", WRONG_REVISION],
        ["t3", "cai", REVIEW_OF_WRONG],
        ["t4", "dee", FINAL],
      ]),
    );
    expect(rows[0]).toMatchObject({ rank: 1, agent: "ben", spanId: "t2" });
    expect(rows[0]?.reason).toContain("corrected at step 1: cai at step 2 called ben's turn wrong");
    expect(rows[0]?.reason).toMatch(/the final answer \(step 3\) dropped \d+ of the \d+ words it added/);
  });

  it("takes no verdict from a reviewer whose own work was then called wrong", () => {
    // ben calls ana's right answer wrong and writes a wrong one; cai calls ben's wrong: ben's verdict on ana counts
    // for nothing, though the final answer rewords ana's answer entirely.
    const rows = attribution(
      chat(GOAL, [
        ["t1", "ana", "Length sums to three hundred kilometres, duration sums to five, and dividing gives sixty kilometres hourly."],
        ["t2", "ben", `The answer is inaccurate: it ignores that the legs differ. ${WRONG_REVISION}`],
        ["t3", "cai", REVIEW_OF_WRONG],
        ["t4", "dee", FINAL],
      ]),
    );
    expect(rows[0]).toMatchObject({ agent: "ben", spanId: "t2" });
    expect(rows.find((r) => r.agent === "ana")?.reason ?? "").not.toContain("corrected");
  });

  it("keeps a reviewer's verdict when only its later revision was called wrong, as in a review-and-revise chain", () => {
    // Each agent reviews the answer before it, then writes its own: cai's revision is criticised in turn by dee,
    // which says nothing about whether cai's review of ben was right; only a criticism called wrong itself is void.
    const rows = attribution(
      chat(GOAL, [
        ["t1", "ana", FIRST],
        ["t2", "ben", WRONG_REVISION],
        ["t3", "cai", REVIEW_OF_WRONG],
        ["t4", "cai", "Total distance is 300 km and total time is 5 hours, so the average speed over the whole trip is 60 km/h."],
        ["t5", "dee", "The answer is flawed in its presentation: it shows the sums but not why the legs are not averaged."],
        ["t6", "dee", FINAL],
      ]),
    );
    expect(rows[0]).toMatchObject({ rank: 1, agent: "ben", spanId: "t2" });
    expect(rows[0]?.reason).toContain("corrected at step 1: cai at step 2 called ben's turn wrong");
  });

  it("charges a criticism naming no agent to the turn whose own words it repeats, not to the latest turn", () => {
    // dee's "the first implementation is incorrect" describes ben's code, in ben's words; cai's test cases came
    // last before it and are not what it is about.
    const goal = "Write unique_digits(x): given a list of positive integers, return the sorted list of elements that have no even digit, in increasing order.";
    const right = "def unique_digits(x): return sorted(n for n in x if all(int(d) % 2 == 1 for d in str(n)))";
    const rows = attribution(
      chat(goal, [
        ["t1", "ana", right],
        [
          "t2",
          "ben",
          "def unique_numbers(y): keeps numbers having at least one even digit, sorted in decreasing order: return sorted((n for n in y if any(int(d) % 2 == 0 for d in str(n))), reverse=True)",
        ],
        ["t3", "cai", "Test cases: assert unique_digits([15, 33, 1422, 1]) == [1, 15, 33]; assert unique_digits([152, 323, 1422, 10]) == []"],
        [
          "t4",
          "dee",
          "The first implementation is incorrect: unique_digits must keep numbers with no even digit, yet it keeps numbers having at least one even digit and sorts them in decreasing order.",
        ],
        [
          "t5",
          "eve",
          "Final version: def unique_digits(x): keep each element whose every digit is odd, increasing: return sorted(n for n in x if not any(int(d) % 2 == 0 for d in str(n)))",
        ],
      ]),
    );
    expect(rows[0]).toMatchObject({ rank: 1, agent: "ben", spanId: "t2" });
    expect(rows[0]?.reason).toContain("corrected at step 1: dee at step 3 called ben's turn wrong");
  });

  it("counts no words a third agent repeated as a turn's own: a review template is no echo of the first review", () => {
    // Every review opens with the same template. dee's criticism repeats it, and ben's review said it first, but cai's
    // review said it again: it is the run's vocabulary by then. dee is about the latest turn, cai's wrong revision.
    const template = "Review of the submission: the submission looks complete and reads clearly overall";
    const rows = attribution(
      chat(GOAL, [
        ["t1", "ana", FIRST],
        ["t2", "ben", `${template}; polish it by stating units on every line.`],
        ["t3", "ben", "Total distance is 300 km and total time is 5 hours, so the average speed over the whole trip is 60 km/h."],
        ["t4", "cai", `${template}; polish it by naming each leg.`],
        ["t5", "cai", WRONG_REVISION],
        ["t6", "dee", `${template}, yet 66 km/h is incorrect: no trip's average speed comes from weighting legs equally.`],
        ["t7", "eve", FINAL],
      ]),
    );
    expect(rows[0]).toMatchObject({ rank: 1, agent: "cai", spanId: "t5" });
    expect(rows[0]?.reason).toContain("corrected at step 4: dee at step 5 called cai's turn wrong");
  });

  it("needs both halves: a criticism whose target the final answer kept is no correction", () => {
    // cai calls ana wrong, but the final answer keeps what ana said: the criticism was not acted on.
    const rows = attribution(
      chat(GOAL, [
        ["t1", "ana", FIRST],
        ["t2", "cai", "The answer incorrectly adds the times; I disagree with it."],
        ["t3", "dee", FIRST],
      ]),
    );
    expect(rows.every((r) => !r.reason.includes("corrected at"))).toBe(true);
  });

  it("charges the agent a criticism names, however the text spells the name", () => {
    const rows = attribution(
      chat(GOAL, [
        ["t1", "node1", WRONG_REVISION],
        ["t2", "node2", FIRST],
        ["t3", "node3", "The answer given by Node 1 incorrectly blends the legs: weighting each leg equally is not how average speed works."],
        ["t4", "node4", FINAL],
      ]),
    );
    expect(rows[0]).toMatchObject({ agent: "node1", spanId: "t1" });
    expect(rows[0]?.reason).toContain("node3 at step 2 called node1's turn wrong");
  });

  it("leaves a formal verdict the run obeyed to the rejection cue: a wrong rejection is blamed, not the turn it rejected", () => {
    const rows = attribution(
      chat("How many residents did Lyon have in 2023, according to INSEE?", [
        ["r1", "ana", "INSEE estimates the 2023 population of Lyon at 522,250 residents (published January 2024)."],
        ["v1", "vic", "Rejected: 522,250 is wrong, INSEE does not publish 2023 estimates for Lyon."],
        ["o1", "oz", "Final answer: the latest INSEE figure for Lyon is 516,092 residents (2021)."],
      ]),
    );
    expect(rows[0]).toMatchObject({ agent: "vic", spanId: "v1" });
    expect(rows.every((r) => !r.reason.includes("corrected at"))).toBe(true);
  });

  it("reads no self-description or negated verdict as a criticism", () => {
    const rows = attribution(
      chat(GOAL, [
        ["t1", "ana", FIRST],
        ["t2", "ben", `We will incorrectly assume equal legs here. ${WRONG_REVISION}`],
        ["t3", "cai", "The revision contains no significant errors in its arithmetic; 66 km/h stands as the blended figure for the whole trip."],
        ["t4", "dee", FINAL],
      ]),
    );
    expect(rows.every((r) => !r.reason.includes("corrected at"))).toBe(true);
  });

  it("reads a verdict late in a sentence that began in the first person as the speaker's own step", () => {
    // cai describes its own earlier slip, not ana's or ben's: "I … in my working, leading to an incorrect …".
    const rows = attribution(
      chat(GOAL, [
        ["t1", "ana", FIRST],
        ["t2", "ben", WRONG_REVISION],
        ["t3", "cai", "Comparing notes: I initially averaged the two legs in my working, leading to an incorrect blended figure; dividing totals fixes it."],
        ["t4", "dee", FINAL],
      ]),
    );
    expect(rows.every((r) => !r.reason.includes("corrected at"))).toBe(true);
  });
});

describe("a solution's own work is no changed task", () => {
  const step = (text: string): Step => ({ index: 0, spanId: "s", agentKey: null, agent: "a", kind: "message", outputText: text }) as Step;
  const swaps = (goal: string, text: string) => stepsSwappingTask(goal, [step(text)]).flatMap((x) => x.swaps.map((s) => s.said));

  it("keeps a figure the text computed or a list number, and still sees a figure swapped in", () => {
    const goal = "Mabel has 5 daisies in her garden, and each daisy has 8 petals. If she gives 2 daisies away, how many petals does Mabel have?";
    expect(swaps(goal, "Remaining daisies = 5 - 2 = 3, petals = 3 × 8 = 24. So Mabel has 24 petals left.")).toEqual([]);
    expect(swaps(goal, "Steps:\n3. Mabel has 5 daisies, each daisy has 8 petals.\n")).toEqual([]);
    expect(swaps(goal, "Mabel has 7 daisies in her garden, so she keeps 5.")).toContain("has 7 daisies");
  });

  it("reads the digits after a decimal point as part of their figure, not as a figure swapped in", () => {
    const goal = "Each planter holds 4 creeping jennies that cost $4 per plant and a palm fern that costs $15 per plant.";
    expect(swaps(goal, "Cost per plant: $4.00 creeping jennies, 4 per pot, and $15.00 per palm fern.")).toEqual([]);
    expect(swaps(goal, "Each planter holds 6 creeping jennies at $4.00 each.")).toContain("holds 6 creeping");
  });

  it("keeps another name the task says and a doubled word, and still sees a name swapped in", () => {
    const goal = "Darwin has 45 dollars and Mia has twice the money Darwin has. How much money does Mia have?";
    expect(swaps(goal, "First find the money Mia has: twice 45 is 90.")).toEqual([]);
    expect(swaps(goal, "The money **Darwin** Darwin has is 45 dollars.")).toEqual([]);
    expect(swaps(goal, "Mia has twice the money Jonas has, so she has 90.")).toContain("money jonas has");
  });
});
