/**
 * The harness end to end on a small labelled set whose figures are known:
 * Crux started as a child process (fresh embedded data folder), three
 * labelled chats exported through its OTLP receiver, the attribution and the
 * judges' picks read back from its API, and every figure checked against what
 * was worked out by hand. The judges run against the local mock provider,
 * scripted to pick a known step in each log (one of them wrong).
 */
import { readFileSync } from "node:fs";
import { startMockLlmServer, type MockLlmServer } from "@crux/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CODE, evaluate, type EvalResult } from "../src/evaluate.ts";
import { parseLogs } from "../src/logs.ts";
import { formatReport } from "../src/report.ts";
import { CruxClient, startCrux, type StartedCrux } from "../src/service.ts";

const KNOWN = ["team-header-row", "team-plan-wrong-year", "orch-drops-source"];
const chats = parseLogs(readFileSync(new URL("../fixtures/crux-chats.jsonl", import.meta.url), "utf8"), "crux-chats.jsonl");
const logs = KNOWN.map((id) => chats.find((l) => l.id === id)!);

/** What the mock judge names in each log (by a word only that log's prompt holds): step and a quote of it. */
const JUDGE_PICKS: [marker: string, step: number, agent: string, evidence: string][] = [
  ["sales.csv", 1, "coder", "Here is the code:"],
  ["orders.csv", 2, "executor", "exitcode: 0 (execution succeeded)"],
  ["ethanol", 2, "orchestrator", "Final answer: ethanol boils at 78.37 degrees C."],
];

let crux: StartedCrux;
let mock: MockLlmServer;
let result: EvalResult;

beforeAll(async () => {
  mock = await startMockLlmServer((req) => {
    const pick = JUDGE_PICKS.find(([marker]) => req.prompt.includes(marker));
    if (pick === undefined) return { text: JSON.stringify({ step: null, agent: null, explanation: "" }) };
    const [, step, agent, evidence] = pick;
    return {
      text: JSON.stringify({ failure: "the run failed", agent, step, evidence, counterfactual: "had it been right, the run succeeds", explanation: "e" }),
    };
  });
  crux = await startCrux();
  result = await evaluate([{ name: "known", logs }], {
    client: new CruxClient(crux),
    judge: { baseUrl: mock.openAiBaseUrl, model: "gpt-4o-mini", apiKey: "sk-local-judge", budgetUsd: 1 },
    nowNs: BigInt(Date.now()) * 1_000_000n,
    timeoutMs: 180_000,
  });
}, 300_000);

afterAll(async () => {
  await crux?.stop();
  await mock?.close();
});

it("reports every method's agent, step and top-3 accuracy next to the floors worked out by hand", () => {
  expect(result.timedOut).toBe(0);
  const group = result.groups.find((g) => g.set === "known" && g.subset === "all")!;
  expect(group).toMatchObject({ logs: 3, stepLabelled: 3, unmatchedLabels: 0, executorFirst: 0 });
  const rate = (name: string) => {
    const t = group.methods.get(name)!;
    return { agent: t.agentRight / t.logs, step: t.stepRight / t.stepLogs, unanswered: t.unanswered };
  };
  // Code: the executor's failed run charged to the coder (right), the changed plan at the planner (right),
  // the dropped source named at the researcher whose content the answer repeats (wrong: the orchestrator dropped it).
  expect(rate(CODE)).toEqual({ agent: 2 / 3, step: 2 / 3, unanswered: 0 });
  expect(result.logs.map((l) => [l.id, l.pick?.agent, l.pick?.turn])).toEqual([
    ["team-header-row", "coder", 1],
    ["team-plan-wrong-year", "planner", 0],
    ["orch-drops-source", "researcher", 1],
  ]);
  // The mock judge's picks: right, wrong (the executor), right.
  expect(rate("judge all-at-once")).toEqual({ agent: 2 / 3, step: 2 / 3, unanswered: 0 });
  expect(rate("judge step-by-step")).toEqual({ agent: 2 / 3, step: 2 / 3, unanswered: 0 });
  // Floors, by hand: random = mean of (labelled speakers / speakers) and of 1 / turns.
  expect(rate("random speaker (expected)").agent).toBeCloseTo((1 / 3 + 1 / 3 + 1 / 2) / 3, 10);
  expect(rate("random speaker (expected)").step).toBeCloseTo((1 / 5 + 1 / 4 + 1 / 3) / 3, 10);
  expect(rate("last speaker")).toEqual({ agent: 2 / 3, step: 1 / 3, unanswered: 0 });
  expect(rate("last non-executor turn")).toEqual({ agent: 2 / 3, step: 1 / 3, unanswered: 0 });
  expect(rate("most frequent speaker")).toEqual({ agent: 2 / 3, step: 1 / 3, unanswered: 0 });
  expect(rate("second turn")).toEqual({ agent: 1 / 3, step: 1 / 3, unanswered: 0 });
  // No log records a failed turn: no first-error floor.
  expect(group.methods.has("first recorded error")).toBe(false);
  expect(group.calibration.reduce((n, b) => n + b.picks, 0)).toBe(3);
  expect(result.judgeSpendUsd).toBeGreaterThan(0);
  expect(result.judgeSpendUsd).toBeLessThanOrEqual(1);
  const report = formatReport(result);
  expect(report).toContain("### known / all: 3 logs, 3 with a step label");
  expect(report).toContain("| crux code (rank 1) | 66.7% | 66.7% |");
});
