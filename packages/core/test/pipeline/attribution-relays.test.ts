/**
 * The rules that keep attribution on authors (docs/attribution-accuracy.md):
 * a turn that only relays the task and other agents' turns is no origin; a
 * turn that says the task's phrase and a variant of it works from the task
 * rather than changing it; a word swapped next to a function word is
 * rewording, while a name put for a name of the task is a changed fact.
 * Agent names say nothing about roles on purpose.
 */
import { describe, expect, it } from "vitest";
import { relaySteps } from "../../src/attribution/relays.ts";
import { scoreTrace } from "../../src/pipeline/index.ts";
import { buildTrajectories } from "../../src/trajectory/build.ts";
import { attributeAgents } from "../../src/attribution/index.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { span } from "../trajectory/builder.ts";
import { input } from "./fixtures.ts";

const chat = (goal: string, turns: [id: string, agent: string, text: string][]): SpanSpec[] => [
  { id: "mgr", op: "agent", agent: "group_chat_manager", start: 0, end: 10 * turns.length + 10, input: goal, output: turns[turns.length - 1]?.[2] ?? "" },
  ...turns.map(([id, agent, text], i): SpanSpec => ({ id, parent: "mgr", op: "agent", agent, start: 10 * (i + 1), end: 10 * (i + 1) + 5, output: text })),
];
const attribution = (specs: SpanSpec[]) => scoreTrace(input(specs, { outcomeOverride: { success: false } })).attributions;
const relaysOf = (specs: SpanSpec[]) => {
  const spans = specs.map(span);
  const t = buildTrajectories(spans, attributeAgents(spans));
  return relaySteps(t.goal, t.steps);
};

const WEIGHTS = "Mary weighs 160 lbs and 20 lbs less than Jamison. John weighs a quarter more than Mary. What is the combined weight of the three?";
const WRONG =
  "Mary weighs 160 lbs. Mary weighs 20 lbs less than Jamison, so Jamison weighs 160 + 20 = 180 lbs. John weighs a quarter of " +
  "Mary's weight, that is 160 / 4 = 40 lbs. Adding the three weights together, they weigh 160 + 180 + 40 = 380 lbs in total.";
const RIGHT = "Jamison weighs 180 lbs and John weighs 200 lbs, a quarter more than Mary, so together they weigh 540 lbs.";

describe("relays are not authors", () => {
  const specs = chat(WEIGHTS, [
    ["u1", "kim", `${WEIGHTS} State your answer at the end.`],
    ["a1", "alex", WRONG],
    ["u2", "kim", `These are the answers of the other agents:\n\nOne agent answered: \`\`\`${WRONG}\`\`\`\n\nThe original problem is ${WEIGHTS}`],
    ["b1", "lee", "Having read the other answers, I agree: the three weigh 380 lbs in total."],
  ]);

  it("recognises the task restated and other turns quoted whole as relays, and no author's turn", () => {
    expect([...relaysOf(specs)].sort()).toEqual(["u1", "u2"]);
  });

  it("traces the wrong total past the relay to the turn that wrote it", () => {
    const rows = attribution(specs);
    expect(rows[0]).toMatchObject({ rank: 1, agent: "alex", spanId: "a1" });
    expect(rows.find((r) => r.spanId === "u2")?.rank ?? Infinity).toBeGreaterThan(1);
  });

  it("is no relay when it changes what it passes on", () => {
    const changed = chat(WEIGHTS, [
      ["a1", "alex", RIGHT],
      ["u2", "kim", `The other agents answered: \`\`\`${RIGHT.replace("200 lbs", "40 lbs").replace("540", "380")}\`\`\` Please check it.`],
    ]);
    expect(relaysOf(changed).has("u2")).toBe(false);
  });
});

describe("what counts as a changed task", () => {
  it("does not blame a turn that says the task's figure and derives another from it", () => {
    const rows = attribution(
      chat("The value of y varies inversely as the root of x and y = 15 when x = 24. What is x when y = 3?", [
        [
          "s1",
          "alex",
          "Since y = 15 when x = 24, k = 15 times the root of 24. When y = 3 the root of x is 5 times the root of 24, so x = 25 times 24 = 600, and y = 3 when x = 600.",
        ],
        ["r1", "lee", "The constant is wrong: y = 3 when x = 96 would need k = 30, so x = 500."],
        ["s2", "robin", "Final answer: x = 500."],
      ]),
    );
    expect(rows[0]?.reason ?? "").not.toContain("task changed at step 0");
  });

  it("reads a word swapped next to a function word as rewording", () => {
    const rows = attribution(
      chat("Choose the correct answer to the question about the boiling point of ethanol at sea level", [
        ["s1", "alex", "Ethanol boils at 78.37 degrees C at sea level. The final answer is 78.37 degrees C."],
        ["s2", "lee", "Final answer: 78.37 degrees C."],
      ]),
    );
    expect(rows.map((r) => r.reason).join(" ")).not.toContain("task changed");
  });

  it("blames the instruction that put another name for the task's, followed by the specialist", () => {
    const rows = attribution(
      chat("Find the opening hours of the Louvre museum in Paris on Fridays", [
        ["o1", "dana", "Surfer, find the opening hours of the Prado museum in Madrid on Fridays."],
        ["w1", "lee", "The Prado museum in Madrid is open 10:00 to 20:00 on Fridays (official site)."],
        ["o2", "dana", "Final answer: open 10:00 to 20:00 on Fridays."],
      ]),
    );
    expect(rows[0]).toMatchObject({ rank: 1, agent: "dana", spanId: "o1" });
    expect(rows[0]?.reason).toContain('"the prado museum" where the task says "the louvre museum"');
  });
});
