import { describe, expect, it } from "vitest";
import { contentParts, LogFormatError, parseLogs, rosterSubset } from "../src/logs.ts";
import { toOtlp } from "../src/otlp.ts";

const aegis = {
  source_record: 7,
  question: "What is 6 times 7?",
  trajectory: [
    { step: 1, agent_name: "User", content: "What is 6 times 7?" },
    { step: 2, agent_name: "Assistant1", content: "42" },
    { step: 3, agent_name: "Assistant2", content: "41" },
  ],
  faulty_agents: [
    { agent_name: "assistant2", error_type: "FM-1.1" },
    { agent_name: "critic", error_type: "FM-3.3" },
  ],
};
const chat = {
  id: "c1",
  subset: "orchestrator",
  question: "Find the 2024 figure",
  history: [
    { name: "orchestrator", role: "assistant", content: "Surfer, find the 2023 figure." },
    { role: "tool", content: "exitcode: 0\nCode output: 12", error: true },
  ],
  mistake_agent: "orchestrator",
  mistake_step: "0",
};

describe("labelled logs", () => {
  it("reads AEGIS trajectories (agent labels matched ignoring case, unmatched ones reported) and history-style chats (speaker from name, else role; step label)", () => {
    const [a, c] = parseLogs(`${JSON.stringify(aegis)}\n\n${JSON.stringify(chat)}\n`, "set.jsonl");
    expect(a).toMatchObject({ id: "7", subset: "all", goal: "What is 6 times 7?", labelAgents: ["Assistant2"], labelStep: null, unmatchedLabels: ["critic"] });
    expect(a?.turns.map((t) => t.agent)).toEqual(["User", "Assistant1", "Assistant2"]);
    expect(c).toMatchObject({ id: "c1", subset: "orchestrator", labelAgents: ["orchestrator"], labelStep: 0, unmatchedLabels: [] });
    expect(c?.turns[1]).toEqual({ agent: "tool", role: "tool", content: "exitcode: 0\nCode output: 12", error: true });
  });

  it("matches a label with a trailing index to the only speaker of that name", () => {
    const log = {
      ...aegis,
      trajectory: [...aegis.trajectory, { step: 4, agent_name: "Mathematician", content: "x" }],
      faulty_agents: [{ agent_name: "mathematician2" }],
    };
    expect(parseLogs(JSON.stringify(log), "s")[0]?.labelAgents).toEqual(["Mathematician"]);
  });

  it("rejects a malformed record whole, naming the file, the line and what is wrong", () => {
    expect(() => parseLogs("{not json", "s.jsonl")).toThrow(/^s\.jsonl:1: not JSON/);
    expect(() => parseLogs(`${JSON.stringify(chat)}\n${JSON.stringify({ question: "q" })}`, "s.jsonl")).toThrow(
      new LogFormatError('s.jsonl:2: expected a "trajectory" (with "faulty_agents") or a "history" (with "mistake_agent")'),
    );
    expect(() => parseLogs(JSON.stringify({ ...chat, mistake_step: 5 }), "s")).toThrow(/mistake_step 5 is not a turn index \(0 to 1\)/);
    expect(() => parseLogs(JSON.stringify({ ...chat, history: [{ content: "x" }] }), "s")).toThrow(/history\[0\]: no speaker/);
    expect(() => parseLogs(`${JSON.stringify(chat)}\n${JSON.stringify(chat)}`, "s")).toThrow(/s:2: duplicate id c1/);
  });

  it("reads a turn stored as its content parts printed by Python as the parts' text", () => {
    const parts = String.raw`[{'type': 'text', 'text': 'Observation:\nExecution logs:\nit\'s 42'}, {'type': 'text', 'text': "done \"now\""}]`;
    const log = { ...aegis, trajectory: [...aegis.trajectory, { step: 4, agent_name: "Searcher", content: parts }] };
    expect(parseLogs(JSON.stringify(log), "s")[0]?.turns[3]?.content).toBe('Observation:\nExecution logs:\nit\'s 42\ndone "now"');
    // Text that only looks like a list stays as it is.
    expect(contentParts("[1, 2, 3] are the inputs")).toBeNull();
  });

  it("names a subset by the team's roster without indices", () => {
    expect(rosterSubset(parseLogs(JSON.stringify(aegis), "s")[0]!)).toBe("Assistant+User");
  });
});

describe("a log as OTLP", () => {
  it("is one failed trace: a manager span holding the task, one invoke_agent span per turn with its text as output, a failed turn in error", () => {
    const log = parseLogs(JSON.stringify(chat), "s")[0]!;
    const out = toOtlp(log, "set", 1_000_000_000n);
    const spans = (out.body.resourceSpans[0] as { scopeSpans: { spans: Record<string, unknown>[] }[] }).scopeSpans[0]!.spans;
    const attrs = (s: Record<string, unknown>) =>
      Object.fromEntries((s.attributes as { key: string; value: Record<string, unknown> }[]).map((a) => [a.key, Object.values(a.value)[0]]));
    expect(spans).toHaveLength(3);
    expect(attrs(spans[0]!)).toMatchObject({
      "gen_ai.agent.name": "group_chat_manager",
      "crux.task.goal": "Find the 2024 figure",
      "crux.outcome.success": false,
    });
    expect(spans.slice(1).map((s) => [s.name, s.parentSpanId, attrs(s)["gen_ai.agent.name"]])).toEqual([
      ["invoke_agent orchestrator", spans[0]!.spanId, "orchestrator"],
      ["invoke_agent tool", spans[0]!.spanId, "tool"],
    ]);
    expect(JSON.parse(attrs(spans[1]!)["gen_ai.output.messages"] as string)[0].parts[0].content).toBe("Surfer, find the 2023 figure.");
    expect(spans.map((s) => (s.status as { code: number }).code)).toEqual([1, 1, 2]);
    expect(out.turnSpanIds).toEqual([spans[1]!.spanId, spans[2]!.spanId]);
    // The same log in the same set is the same trace; in another set, another.
    expect(toOtlp(log, "set", 5n).traceId).toBe(out.traceId);
    expect(toOtlp(log, "other", 5n).traceId).not.toBe(out.traceId);
  });
});
