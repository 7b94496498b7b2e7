import { describe, expect, it } from "vitest";
import { detectRepetition, detectTerminationUnawareness } from "../../src/index.ts";
import type { SpanSpec } from "../trajectory/builder.ts";
import { clean, cleanSpecs, traj, withSpecs } from "../trajectory/fixtures.ts";

const search = (id: string, start: number, result = "no results", query = "solar panel efficiency Germany"): SpanSpec => ({
  id,
  parent: "res",
  op: "tool",
  tool: "web_search",
  start,
  end: start + 5,
  args: JSON.stringify({ query }),
  output: result,
});

describe("detectRepetition (FM-1.3)", () => {
  it("is silent on the clean trace", () => {
    expect(detectRepetition(clean())).toEqual([]);
  });

  it("fires when an agent calls the same tool with the same arguments 3 times and learns nothing", () => {
    const t = traj(withSpecs(cleanSpecs, [search("res.q", 30, "no results"), search("r2", 105, "no results"), search("r3", 120, "no results")]));
    const f = detectRepetition(t);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ mode: "FM-1.3", category: "FC1", agent: "researcher", spanId: "r3", source: "heuristic", confidence: 0.8 });
    expect(f[0]!.evidence).toContain("3 times");
    // below k stays silent; k is configurable
    expect(detectRepetition(t, { k: 4 })).toEqual([]);
    const twice = traj(withSpecs(cleanSpecs, [search("res.q", 30, "no results"), search("r2", 105, "no results")]));
    expect(detectRepetition(twice)).toEqual([]);
    expect(detectRepetition(twice, { k: 2 })).toHaveLength(1);
  });

  it("does not fire on a retry that succeeds after failed tries of the same call; fires on a run of identical failures", () => {
    const query = "rooftop solar yield Bavaria";
    const failing = (id: string, start: number): SpanSpec => ({ ...search(id, start, "", query), output: undefined, error: "rate limited" });
    const recovered = traj(withSpecs(cleanSpecs, [failing("r1", 101), failing("r2", 107), search("r3", 113, "Fraunhofer ISE: 20%", query)]));
    expect(detectRepetition(recovered)).toEqual([]);
    const stuck = traj(withSpecs(cleanSpecs, [failing("r1", 101), failing("r2", 107), failing("r3", 113)]));
    expect(detectRepetition(stuck).map((f) => [f.mode, f.agent, f.spanId])).toEqual([["FM-1.3", "researcher", "r3"]]);
  });

  it("does not fire when each call returns something new (polling that progresses)", () => {
    const t = traj(withSpecs(cleanSpecs, [search("res.q", 30, "page 1"), search("r2", 105, "page 2"), search("r3", 120, "page 3")]));
    expect(detectRepetition(t)).toEqual([]);
  });

  it("does not fire when another tool brought new information in between", () => {
    const other: SpanSpec = {
      id: "fetch",
      parent: "res",
      op: "tool",
      tool: "fetch_url",
      start: 110,
      end: 112,
      args: '{"url":"x"}',
      output: "new facts",
    };
    const t = traj(withSpecs(cleanSpecs, [search("res.q", 30), search("r2", 105), other, search("r3", 120)]));
    expect(detectRepetition(t)).toEqual([]);
  });
});

describe("detectTerminationUnawareness (FM-1.5)", () => {
  it("is silent on the clean trace", () => {
    expect(detectTerminationUnawareness(clean())).toEqual([]);
  });

  it("fires when the run ended on a max-turns error", () => {
    const t = traj(withSpecs(cleanSpecs, [{ ...cleanSpecs[0]!, error: "MaxTurnsExceeded" }]));
    const f = detectTerminationUnawareness(t);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ mode: "FM-1.5", agent: "lead", spanId: "lead", stepIndex: 6, confidence: 0.9 });
    expect(f[0]!.evidence).toContain("MaxTurnsExceeded");
  });

  it("fires when the last model call stopped on length", () => {
    const t = traj(withSpecs(cleanSpecs, [{ id: "final", parent: "lead", op: "llm", start: 910, end: 990, finishReasons: ["length"] }]));
    const f = detectTerminationUnawareness(t);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ spanId: "final", stepIndex: 6, confidence: 0.7 });
    // a "length" finish earlier in the run is not the end of the run
    const early = traj(withSpecs(cleanSpecs, [{ id: "plan", parent: "lead", op: "llm", start: 1, end: 10, finishReasons: ["length"] }]));
    expect(detectTerminationUnawareness(early)).toEqual([]);
  });

  it("fires on the first end reason that names a cap, citing the attribute it came from", () => {
    const endReasons = [
      { key: "crux.end_reason", value: "completed" },
      { key: "stop_reason", value: "max_iterations" },
    ];
    const t = traj(withSpecs(cleanSpecs, [{ ...cleanSpecs[0]!, content: { endReasons } }]));
    const f = detectTerminationUnawareness(t);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ mode: "FM-1.5", spanId: "lead", confidence: 0.9 });
    expect(f[0]!.evidence).toContain("stop_reason=max_iterations");
    // An LLM call's end reasons are not a run's.
    const onLlm = traj(withSpecs(cleanSpecs, [{ id: "final", parent: "lead", op: "llm", start: 910, end: 990, content: { endReasons } }]));
    expect(detectTerminationUnawareness(onLlm)).toEqual([]);
  });

  it("reads a cap from a recorded exception", () => {
    const exceptions = [{ type: "AgentsException", message: "Max turns (10) exceeded" }];
    const t = traj(withSpecs(cleanSpecs, [{ ...cleanSpecs[0]!, content: { exceptions } }]));
    expect(detectTerminationUnawareness(t)[0]?.evidence).toContain("Max turns (10) exceeded");
  });

  it("does not read a tool's own timeout as a run time budget", () => {
    const t = traj(withSpecs(cleanSpecs, [{ id: "res.q", parent: "res", op: "tool", tool: "web_search", start: 30, end: 60, error: "TimeoutError" }]));
    expect(detectTerminationUnawareness(t)).toEqual([]);
  });

  const pingPong = (messages: Array<string | undefined>): SpanSpec[] => {
    const specs: SpanSpec[] = [{ id: "root", op: "other", start: 0, end: 100 }];
    messages.forEach((msg, i) => {
      const [from, to] = i % 2 === 0 ? ["planner", "coder"] : ["coder", "planner"];
      specs.push({ id: `ag${i}`, parent: "root", op: "agent", agent: from, start: i * 10, end: i * 10 + 9 });
      specs.push({
        id: `h${i}`,
        parent: `ag${i}`,
        op: "handoff",
        tool: `transfer_to_${to}`,
        handoffTo: to,
        start: i * 10 + 5,
        end: i * 10 + 6,
        ...(msg === undefined ? {} : { args: JSON.stringify({ message: msg }), handoffMessage: msg }),
      });
    });
    return specs;
  };

  it("fires on an A→B→A→B ping-pong without progress (livelock)", () => {
    const f = detectTerminationUnawareness(traj(pingPong(["please fix it", "what should I fix?", "please fix it", "what should I fix?"])));
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ mode: "FM-1.5", agent: "planner", spanId: "h2", confidence: 0.8 });
    expect(f[0]!.evidence).toContain("4 handoffs");
  });

  it("does not call a back-and-forth with new content or milestone progress a livelock", () => {
    expect(detectTerminationUnawareness(traj(pingPong(["write parser", "parser done", "write tests", "tests done"])))).toEqual([]);
    const stuck = traj(pingPong(["fix it", "what?", "fix it", "what?"]));
    expect(detectTerminationUnawareness(stuck, { progressSpanIds: ["h1"] })).toEqual([]);
    expect(detectTerminationUnawareness(traj(pingPong(["fix it", "what?"])))).toEqual([]);
  });
});
