/**
 * Labelled failed traces, shape "group_chat": a manager's span holds turns,
 * each an agent span with its text and nothing below it (message steps, no
 * model or tool spans). Three conversations: a fact lookup (orchestrator,
 * researcher, verifier), a copywriting chat (planner, writer, critic) and an
 * analysis chat (user_proxy, analyst, reviewer). Each label was decided from
 * the story before the scorer ran; `why` gives the reason in one line.
 */
import type { AgentContract, HandoffContract } from "../../src/mast/contracts.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import type { LabelledCase, SucceededCase } from "./attribution-crews.ts";

const chat = (goal: string, turns: [id: string, agent: string, text: string][]): SpanSpec[] => [
  { id: "mgr", op: "agent", agent: "group_chat_manager", start: 0, end: 10 * turns.length + 10, input: goal, output: turns[turns.length - 1]?.[2] ?? "" },
  ...turns.map(([id, agent, text], i): SpanSpec => ({ id, parent: "mgr", op: "agent", agent, start: 10 * (i + 1), end: 10 * (i + 1) + 5, output: text })),
];
const chatCase = (specs: SpanSpec[]) => ({
  shape: "group_chat" as const,
  specs,
  agentContracts: [] as AgentContract[],
  handoffContracts: [] as HandoffContract[],
});

const LYON = "Find the 2023 population of Lyon and cite the INSEE source";
const ASK = "Researcher, find the 2023 population of Lyon with its INSEE source.";
const RIGHT = "INSEE estimates the 2023 population of Lyon at 522,250 residents (INSEE 2023 estimate).";
const CHECK = "Verifier, check the Lyon population figure and its INSEE source.";
const COPY = "Write a 10-word tagline for the Aurora e-bike that mentions its 1,299 EUR price";
const SALES = "Report the 2023 net profit of Nordwind GmbH from the attached annual report";

export const groupChatCases: LabelledCase[] = [
  {
    name: "chat: researcher gives the 2021 figure and repeats it every time it is asked again",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", ASK],
        ["r1", "researcher", "Lyon had about 516,000 inhabitants in 2021 according to INSEE."],
        ["o2", "orchestrator", "We need the 2023 figure specifically, check the latest INSEE release."],
        ["r2", "researcher", "Lyon had about 516,000 inhabitants in 2021 according to INSEE."],
        ["o3", "orchestrator", "Still the 2021 number. Search the INSEE 2023 estimates."],
        ["r3", "researcher", "Lyon had about 516,000 inhabitants in 2021 according to INSEE."],
        ["o4", "orchestrator", "Final answer: Lyon has about 516,000 inhabitants (INSEE)."],
      ]),
    ),
    label: { agent: "researcher", spanId: "r1" },
    why: "the researcher's first answer is wrong and it never changes it; the orchestrator only gives up",
  },
  {
    name: "chat: researcher answers about the weather instead",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", ASK],
        ["r1", "researcher", "Paris weather today is sunny with mild winds and 18 degrees."],
        ["o2", "orchestrator", "Final answer: no population figure was found."],
      ]),
    ),
    label: { agent: "researcher", spanId: "r1" },
    why: "the off-goal turn is the only work turn; nothing on Lyon is ever produced",
  },
  {
    name: "chat: orchestrator asks for the 2021 figure; the researcher and verifier do their jobs",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", "Researcher, find the 2021 population of Lyon with its INSEE source."],
        ["r1", "researcher", "INSEE counted 516,092 residents in Lyon in 2021 (INSEE census 2021)."],
        ["o2", "orchestrator", CHECK],
        ["v1", "verifier", "Checked: 516,092 matches the INSEE 2021 census for Lyon."],
        ["o3", "orchestrator", "Final answer: Lyon has 516,092 residents (INSEE 2021)."],
      ]),
    ),
    label: { agent: "orchestrator", spanId: "o1" },
    why: "the orchestrator's first instruction asks for the wrong year; everyone after follows it correctly",
  },
  {
    name: "chat: orchestrator asks for the source link; researcher gives the figure without any source",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", "Researcher, find the 2023 population of Lyon and include the INSEE source link."],
        ["r1", "researcher", "The 2023 population of Lyon is 522,250 residents."],
        ["o2", "orchestrator", "Final answer: Lyon had 522,250 residents in 2023."],
      ]),
    ),
    label: { agent: "researcher", spanId: "r1" },
    why: "the researcher ignored the directive to cite; the source never appears again",
  },
  {
    name: "chat: researcher gives a wrong figure and the verifier approves it",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", ASK],
        ["r1", "researcher", "INSEE estimates the 2023 population of Lyon at 540,800 residents (INSEE 2023 estimate)."],
        ["o2", "orchestrator", CHECK],
        ["v1", "verifier", "Approved: 540,800 for Lyon in 2023 looks right."],
        ["o3", "orchestrator", "Final answer: Lyon had 540,800 residents in 2023 according to INSEE."],
      ]),
    ),
    label: { agent: "researcher", spanId: "r1" },
    why: "the wrong figure is the researcher's; the approval only fails to catch it",
  },
  {
    name: "chat: verifier rejects the right figure; the orchestrator falls back to an old one",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", ASK],
        ["r1", "researcher", RIGHT],
        ["o2", "orchestrator", CHECK],
        ["v1", "verifier", "Rejected: 522,250 is wrong, INSEE does not publish 2023 estimates for Lyon."],
        ["o3", "orchestrator", "Final answer: the latest INSEE figure for Lyon is 516,092 residents (2021)."],
      ]),
    ),
    label: { agent: "verifier", spanId: "v1" },
    why: "the answer was right until the verifier's wrong rejection, which the orchestrator obeyed",
  },
  {
    name: "chat: a wrong figure is rejected and corrected; the orchestrator's final answer drops the source",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", ASK],
        ["r1", "researcher", "INSEE estimates the 2023 population of Lyon at 540,800 residents."],
        ["o2", "orchestrator", CHECK],
        ["v1", "verifier", "Rejected: INSEE's 2023 estimate for Lyon is 522,250, not 540,800."],
        ["r2", "researcher", RIGHT],
        ["o3", "orchestrator", "Final answer: Lyon had 522,250 residents in 2023."],
      ]),
    ),
    label: { agent: "orchestrator", spanId: "o3" },
    why: "the wrong figure was caught and fixed; the final answer omits the citation the task asks for",
  },
  {
    name: "chat: researcher states a plausible but wrong figure, nobody questions it",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", ASK],
        ["r1", "researcher", "INSEE estimates the 2023 population of Lyon at 515,695 residents (INSEE 2023 estimate)."],
        ["o2", "orchestrator", "Final answer: Lyon had 515,695 residents in 2023 according to INSEE."],
      ]),
    ),
    label: { agent: "researcher", spanId: "r1" },
    why: "the only content turn carries the wrong number the final answer repeats",
  },
  {
    name: "chat: researcher stalls while the orchestrator keeps nudging until the turn cap",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", ASK],
        ["r1", "researcher", "I am still looking for the Lyon figure right now."],
        ["o2", "orchestrator", "Researcher, send the Lyon figure now please."],
        ["r2", "researcher", "I am still looking for the Lyon figure right now."],
        ["o3", "orchestrator", "Researcher, send the Lyon figure now please."],
        ["r3", "researcher", "I am still looking for the Lyon figure right now."],
      ]),
    ),
    label: { agent: "researcher", spanId: "r1" },
    why: "the researcher never does the lookup from its first turn on; the nudges are reasonable",
  },
  {
    name: "chat: orchestrator switches the task to Marseille halfway",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", ASK],
        ["r1", "researcher", RIGHT],
        ["o2", "orchestrator", "Good. Now let's compare with Marseille instead: researcher, find Marseille's population."],
        ["r2", "researcher", "INSEE estimates Marseille's 2023 population at 877,215 residents."],
        ["o3", "orchestrator", "Final answer: Marseille has 877,215 residents (INSEE 2023)."],
      ]),
    ),
    label: { agent: "orchestrator", spanId: "o2" },
    why: "the run had the right answer until the orchestrator steered off the goal",
  },
  {
    name: "copy chat: the critic asks for the price; the writer's revision still leaves it out",
    ...chatCase(
      chat(COPY, [
        ["p1", "planner", "Writer, draft a 10-word tagline for the Aurora e-bike with its 1,299 EUR price."],
        ["w1", "writer", "Aurora: glide through the city on pure electric joy, every day."],
        ["c1", "critic", "The tagline must mention the 1,299 EUR price. Please revise."],
        ["w2", "writer", "Aurora: glide through every city street on pure electric joy."],
        ["p2", "planner", "Final tagline: Aurora: glide through every city street on pure electric joy."],
      ]),
    ),
    label: { agent: "writer", spanId: "w2" },
    why: "the first draft was recoverable once the critic flagged it; the revision ignoring the critic is decisive",
  },
  {
    name: "copy chat: the planner tells the writer the price is 1,199 EUR",
    ...chatCase(
      chat(COPY, [
        ["p1", "planner", "Writer, draft a 10-word tagline for the Aurora e-bike with its 1,199 EUR price."],
        ["w1", "writer", "Aurora e-bike: city freedom for just 1,199 EUR, ride today."],
        ["c1", "critic", "Looks good: short, mentions the price, on brand."],
        ["p2", "planner", "Final tagline: Aurora e-bike: city freedom for just 1,199 EUR, ride today."],
      ]),
    ),
    label: { agent: "planner", spanId: "p1" },
    why: "the wrong price enters in the planner's brief; the writer and critic build on it",
  },
  {
    name: "copy chat: the writer and critic trade the same two lines until the turn cap",
    ...chatCase(
      chat(COPY, [
        ["p1", "planner", "Writer, draft a 10-word tagline for the Aurora e-bike with its 1,299 EUR price."],
        ["w1", "writer", "Aurora e-bike, 1,299 EUR: the city is yours to ride."],
        ["c1", "critic", "Make it punchier, please."],
        ["w2", "writer", "Aurora e-bike, 1,299 EUR: the city is yours to ride."],
        ["c2", "critic", "Make it punchier, please."],
        ["w3", "writer", "Aurora e-bike, 1,299 EUR: the city is yours to ride."],
      ]),
    ),
    label: { agent: "writer", spanId: "w2" },
    why: "the first draft was fine to iterate on; resending it unchanged starts the loop that ends the run",
  },
  {
    name: "analysis chat: the analyst reads revenue as profit; the report is built on it",
    ...chatCase(
      chat(SALES, [
        ["u1", "user_proxy", "Analyst, what was Nordwind GmbH's 2023 net profit in the annual report?"],
        ["a1", "analyst", "Nordwind GmbH's 2023 net profit was 48.2 million EUR (page 12, the income statement's top line)."],
        ["u2", "user_proxy", "Reviewer, please check the analyst's figure against the report."],
        ["rv1", "reviewer", "The figure 48.2 million EUR appears on page 12 of the report. Looks good."],
        ["a2", "analyst", "Summary: Nordwind GmbH earned a net profit of 48.2 million EUR in 2023, up 6% on 2022."],
        ["u3", "user_proxy", "Final answer: Nordwind GmbH's 2023 net profit was 48.2 million EUR."],
      ]),
    ),
    label: { agent: "analyst", spanId: "a1" },
    why: "the top line is revenue; the analyst's first reading is the assumption every later turn repeats",
  },
  {
    name: "analysis chat: the user proxy closes before the reviewer answers",
    ...chatCase(
      chat(SALES, [
        ["u1", "user_proxy", "Analyst, what was Nordwind GmbH's 2023 net profit in the annual report?"],
        ["a1", "analyst", "I will check both the income statement and the notes; the notes restate 2023 results."],
        ["u2", "user_proxy", "Final answer: Nordwind GmbH's 2023 results are in the annual report."],
      ]),
    ),
    label: { agent: "user_proxy", spanId: "u2" },
    why: "the analyst was mid-task; the user proxy ended the chat without a figure",
  },
];

export const groupChatSucceeded: SucceededCase[] = [
  {
    name: "chat: the clean run",
    ...chatCase(
      chat(LYON, [
        ["o1", "orchestrator", ASK],
        ["r1", "researcher", RIGHT],
        ["o2", "orchestrator", CHECK],
        ["v1", "verifier", "Checked: the Lyon population figure 522,250 matches the INSEE 2023 source."],
        ["o3", "orchestrator", "Final answer: Lyon had 522,250 residents in 2023 according to INSEE."],
      ]),
    ),
  },
];
