/**
 * The run view's layout logic, pure: agent graph nodes and edges from a stored score set, the
 * timeline's swimlanes and rows, and the span tree rebuilt from the API's nested roots.
 */
import { describe, expect, it } from "vitest";
import { deriveAgentGraph, maxRows, nodeSize } from "../src/run/graph-layout.ts";
import { deriveInvocationGraph } from "../src/run/invocations.ts";
import { ancestorsOf, firstAgentSpans, indexSpans, visibleTreeRows } from "../src/run/spans.ts";
import { layoutTimeline } from "../src/run/timeline-layout.ts";
import type { AgentUsage, Handoff, SpanNode } from "../src/types.ts";

function usage(agent: string, parentAgent: string | null, extra: Partial<AgentUsage> = {}): AgentUsage {
  return {
    agent,
    agentId: null,
    parentAgent,
    spans: 3,
    llmCalls: 1,
    toolCalls: 1,
    errors: 0,
    inputTokens: 100,
    outputTokens: 20,
    cachedTokens: 0,
    totalTokens: 120,
    tokensReported: true,
    tokensNotReported: null,
    costUsd: 0.5,
    tokenShare: 0.3,
    wallMs: 10,
    milestoneCredit: null,
    ...extra,
  };
}

function handoff(index: number, sender: string, receiver: string, spanId: string): Handoff {
  return { index, sender, receiver, spanId, via: "tool", message: null, time: "2026-12-01T00:00:00.000Z" };
}

describe("deriveAgentGraph", () => {
  const agents = [usage("planner", null), usage("coder", "planner", { errors: 2 }), usage("reviewer", "planner"), usage("tester", "coder")];
  const handoffs = [
    handoff(0, "planner", "coder", "a000000000000001"),
    handoff(1, "planner", "reviewer", "a000000000000002"),
    handoff(2, "planner", "coder", "a000000000000003"),
  ];

  it("makes one node per agent with its stored usage, and marks the attributed agent and agents with findings", () => {
    const g = deriveAgentGraph({
      agents,
      handoffs,
      findings: [
        { mode: "FM-1.3", agent: "coder", spanId: "b000000000000001", source: "heuristic" },
        { mode: "FM-1.3", agent: "coder", spanId: "b000000000000002", source: "heuristic" },
        { mode: "FM-3.2", agent: "coder", spanId: "b000000000000003", source: "judge" },
      ],
      attributedAgent: "coder",
      agentOrder: ["planner", "coder", "reviewer", "tester"],
    });
    expect(g.nodes.map((n) => n.agent)).toEqual(["planner", "coder", "reviewer", "tester"]);
    const coder = g.nodes.find((n) => n.agent === "coder")!;
    expect(coder).toMatchObject({ attributed: true, findingModes: ["FM-1.3", "FM-3.2"] });
    expect(coder.usage?.errors).toBe(2);
    expect(g.nodes.filter((n) => n.attributed).map((n) => n.agent)).toEqual(["coder"]);
    expect(g.nodes.find((n) => n.agent === "planner")!.findingModes).toEqual([]);
  });

  it("merges handoffs between the same agents into one edge with their order, and adds delegation edges only where no handoff is", () => {
    const g = deriveAgentGraph({ agents, handoffs, findings: [], attributedAgent: null });
    const toCoder = g.edges.find((e) => e.id === "handoff:planner->coder")!;
    expect(toCoder).toMatchObject({ kind: "handoff", order: [0, 2], spanIds: ["a000000000000001", "a000000000000003"] });
    expect(g.edges.find((e) => e.id === "handoff:planner->reviewer")!.order).toEqual([1]);
    expect(g.edges.filter((e) => e.kind === "delegation").map((e) => e.id)).toEqual(["delegation:coder->tester"]);
  });

  it("marks a handoff edge whose span has a finding (a broken contract, a dropped constraint)", () => {
    const g = deriveAgentGraph({
      agents,
      handoffs,
      findings: [
        { mode: "FM-2.4", agent: "planner", spanId: "a000000000000003", source: "contract" },
        { mode: "FM-1.1", agent: "planner", spanId: "a000000000000003", source: "contract" },
      ],
      attributedAgent: null,
    });
    expect(g.edges.find((e) => e.id === "handoff:planner->coder")!.findingModes).toEqual(["FM-1.1", "FM-2.4"]);
    expect(g.edges.find((e) => e.id === "handoff:planner->reviewer")!.findingModes).toEqual([]);
  });

  it("lays agents out in columns by who invoked them, without overlap, also through a handoff cycle", () => {
    const g = deriveAgentGraph({
      agents,
      handoffs: [...handoffs, handoff(3, "coder", "planner", "a000000000000004")],
      findings: [],
      attributedAgent: null,
    });
    const col = Object.fromEntries(g.nodes.map((n) => [n.agent, n.column]));
    expect(col).toEqual({ planner: 0, coder: 1, reviewer: 1, tester: 2 });
    const positions = new Set(g.nodes.map((n) => `${n.x},${n.y}`));
    expect(positions.size).toBe(g.nodes.length);
    expect(g.width).toBe(3 * nodeSize.width + 2 * nodeSize.columnGap);
    expect(g.height).toBe(2 * nodeSize.height + nodeSize.rowGap);
  });

  it("draws an agent known only from a handoff (no usage row)", () => {
    const g = deriveAgentGraph({ agents: [usage("a", null)], handoffs: [handoff(0, "a", "b", "a000000000000009")], findings: [], attributedAgent: null });
    expect(g.nodes.map((n) => [n.agent, n.usage === null, n.column])).toEqual([
      ["a", false, 0],
      ["b", true, 1],
    ]);
  });
});

let nextId = 1;
function span(agent: string | null, startMs: number, endMs: number, children: SpanNode[] = [], extra: Partial<SpanNode> = {}): SpanNode {
  const spanId = (nextId++).toString(16).padStart(16, "0");
  const node = {
    spanId,
    parentSpanId: null,
    name: `span ${spanId}`,
    kind: 1,
    startTimeUnixNano: (BigInt(startMs) * 1_000_000n + 1_700_000_000_000_000_000n).toString(),
    endTimeUnixNano: (BigInt(endMs) * 1_000_000n + 1_700_000_000_000_000_000n).toString(),
    durationMs: endMs - startMs,
    status: { code: 0, message: "" },
    operation: "llm",
    convention: "otel",
    agent,
    agentPath: [],
    depth: 0,
    model: null,
    provider: null,
    inputTokens: null,
    outputTokens: null,
    cachedTokens: null,
    countedTokens: { input: 0, output: 0, cached: 0 },
    reportedCostUsd: null,
    toolName: null,
    toolCallId: null,
    handoffSender: null,
    handoffReceiver: null,
    isError: false,
    errorType: null,
    conversationId: null,
    serviceName: null,
    tags: {},
    attributes: {},
    events: [],
    links: [],
    scope: { name: "", version: "" },
    limitsApplied: { truncatedKeys: [], droppedAttributes: 0 },
    childrenInRoots: false,
    children,
    ...extra,
  } as SpanNode;
  for (const c of children) c.parentSpanId = spanId;
  return node;
}

describe("layoutTimeline", () => {
  it("gives each agent one lane in order of first start, and overlapping spans of a lane their own rows", () => {
    const a1 = span("researcher", 10, 40);
    const a2 = span("researcher", 20, 30); // overlaps a1
    const a3 = span("researcher", 45, 50); // fits after a1 on row 0
    const p = span("planner", 0, 100, [a1, a2, a3], { operation: "agent" });
    const w = span("writer", 60, 70, [], { isError: true });
    const index = indexSpans([p, w]);
    const layout = layoutTimeline(index.ordered, index.startNs, new Set([a2.spanId]));
    expect(layout.lanes.map((l) => [l.label, l.firstRow, l.rows])).toEqual([
      ["planner", 0, 1],
      ["researcher", 1, 2],
      ["writer", 3, 1],
    ]);
    const bar = (id: string) => layout.bars.find((b) => b.spanId === id)!;
    expect([bar(a1.spanId).row, bar(a2.spanId).row, bar(a3.spanId).row]).toEqual([0, 1, 0]);
    expect(bar(a2.spanId)).toMatchObject({ globalRow: 2, startMs: 20, durationMs: 10, hasFinding: true });
    expect(bar(w.spanId)).toMatchObject({ lane: 2, globalRow: 3, isError: true, hasFinding: false });
    expect(layout.totalMs).toBe(100);
    expect(layout.rows.map((r) => r.length)).toEqual([1, 2, 1, 1]);
  });

  it("puts spans no agent owns in a lane of their own", () => {
    const index = indexSpans([span(null, 0, 5), span("a", 1, 2)]);
    expect(layoutTimeline(index.ordered, index.startNs, new Set()).lanes.map((l) => l.label)).toEqual(["(no agent)", "a"]);
  });

  it("lays out 2,000 spans of 8 agents in well under a frame budget's worth of work", () => {
    const roots: SpanNode[] = [];
    for (let a = 0; a < 8; a++) {
      const kids = Array.from({ length: 249 }, (_, i) => span(`agent-${a}`, a * 1000 + i * 4, a * 1000 + i * 4 + 6));
      roots.push(span(`agent-${a}`, a * 1000, a * 1000 + 1000, kids, { operation: "agent" }));
    }
    const index = indexSpans(roots);
    const layout = layoutTimeline(index.ordered, index.startNs, new Set());
    expect(layout.bars).toHaveLength(2000);
    expect(layout.lanes).toHaveLength(8);
    // Each agent's spans overlap their neighbours (6 ms long, 4 ms apart) and their agent span: 3 rows each.
    expect(layout.lanes.every((l) => l.rows === 3)).toBe(true);
  });
});

describe("span index and tree", () => {
  it("hangs continuation roots (childrenInRoots) under their real parent and keeps start order", () => {
    const child = span("a", 5, 6);
    const deep = span("a", 2, 9, [], { childrenInRoots: true });
    const root = span("a", 0, 10, [deep], { operation: "agent" });
    const continuation = { ...child, parentSpanId: deep.spanId };
    const later = span("b", 20, 30);
    const index = indexSpans([root, later, continuation]);
    expect(index.ordered.map((s) => s.spanId)).toEqual([root.spanId, deep.spanId, child.spanId, later.spanId]);
    expect(index.roots).toEqual([root.spanId, later.spanId]);
    expect(ancestorsOf(index, child.spanId)).toEqual([root.spanId, deep.spanId]);
    expect(firstAgentSpans(index).get("a")).toBe(root.spanId);
    expect(firstAgentSpans(index).get("b")).toBe(later.spanId);
  });

  it("hides the descendants of collapsed spans", () => {
    const leaf = span("a", 3, 4);
    const mid = span("a", 2, 5, [leaf]);
    const root = span("a", 0, 10, [mid]);
    const index = indexSpans([root]);
    expect(visibleTreeRows(index, new Set()).map((r) => [r.depth, r.hasChildren])).toEqual([
      [0, true],
      [1, true],
      [2, false],
    ]);
    const collapsed = visibleTreeRows(index, new Set([mid.spanId]));
    expect(collapsed.map((r) => r.span.spanId)).toEqual([root.spanId, mid.spanId]);
    expect(collapsed[1]!.expanded).toBe(false);
  });
});

describe("deriveInvocationGraph layout", () => {
  const nodeAt = (g: ReturnType<typeof deriveInvocationGraph>["graph"], id: string) => g.nodes.find((n) => n.agent === id)!;

  it("wraps many invocations under one parent into side-by-side columns, in the order they started", () => {
    // The orchestrator invokes the worker 14 times, listed out of start order.
    const starts = [70, 10, 130, 40, 100, 0, 120, 20, 60, 90, 30, 110, 50, 80];
    const workers = starts.map((ms) => span("worker", 1000 + ms, 1000 + ms + 5));
    const root = span("orchestrator", 0, 2000, workers, { operation: "agent" });
    const index = indexSpans([root]);
    const result = deriveInvocationGraph({ index, agents: [], handoffs: [], findings: [], attributedAgent: null, attributedSpanId: null });
    const g = result.graph;
    const workerNodes = g.nodes.filter((n) => n.agent.startsWith("worker"));
    expect(workerNodes).toHaveLength(14);
    expect(new Set(workerNodes.map((n) => n.layer))).toEqual(new Set([1]));
    // 14 nodes, at most maxRows a column: 3 columns of 5, no column taller than maxRows.
    expect(maxRows).toBeLessThan(14);
    const columns = [...new Set(workerNodes.map((n) => n.column))].sort();
    expect(columns).toEqual([1, 2, 3]);
    expect(Math.max(...workerNodes.map((n) => n.row))).toBe(4);
    expect(g.height).toBe(5 * nodeSize.height + 4 * nodeSize.rowGap);
    expect(g.width).toBe(4 * nodeSize.width + 3 * nodeSize.columnGap);
    expect(new Set(g.nodes.map((n) => `${n.x},${n.y}`)).size).toBe(g.nodes.length);
    // Column by column, top to bottom: the start times ascend.
    const byPosition = [...workerNodes].sort((a, b) => a.column - b.column || a.row - b.row);
    const startOf = (n: { agent: string }) => Number(BigInt(index.byId.get(result.spanOf.get(n.agent)!)!.startTimeUnixNano) / 1_000_000n);
    const shown = byPosition.map(startOf);
    expect(shown).toEqual([...shown].sort((a, b) => a - b));
    expect(nodeAt(g, "orchestrator #1")).toMatchObject({ column: 0, row: 0, layer: 0 });
  });

  it("orders a column by start time, not by the order the tree is walked", () => {
    // Two children; the first child's grandchild starts after the second child's.
    const lateGrandchild = span("reviewer", 50, 60);
    const earlyGrandchild = span("reviewer", 20, 25);
    const first = span("coder", 0, 70, [lateGrandchild], { operation: "agent" });
    const second = span("tester", 10, 30, [earlyGrandchild], { operation: "agent" });
    const root = span("planner", 0, 100, [first, second], { operation: "agent" });
    const result = deriveInvocationGraph({ index: indexSpans([root]), agents: [], handoffs: [], findings: [], attributedAgent: null, attributedSpanId: null });
    const spanOfNode = (n: { agent: string }) => result.spanOf.get(n.agent);
    const layer2 = result.graph.nodes.filter((n) => n.layer === 2).sort((a, b) => a.row - b.row);
    expect(layer2.map(spanOfNode)).toEqual([earlyGrandchild.spanId, lateGrandchild.spanId]);
    // A layer within maxRows stays one column.
    expect(new Set(layer2.map((n) => n.column)).size).toBe(1);
  });
});
