/**
 * The agent graph of one run, derived from its stored score set: one node per agent with its usage,
 * handoff and delegation edges in their order, and what to mark (the attributed agent, agents with
 * findings, handoffs that failed a contract or dropped a constraint). The layout is layered (an
 * agent one column right of the agent that invoked it), computed here because the graph has one
 * node per agent: a handful, never worth a layout engine. Pure.
 */
import type { AgentUsage, Handoff } from "../types.ts";

export interface GraphFinding {
  mode: string;
  agent: string | null;
  spanId: string;
  source: string;
}

export interface AgentNode {
  agent: string;
  usage: AgentUsage | null;
  attributed: boolean;
  /** Distinct modes of the findings on this agent, sorted. */
  findingModes: string[];
  column: number;
  row: number;
  x: number;
  y: number;
}

interface AgentEdge {
  id: string;
  from: string;
  to: string;
  kind: "handoff" | "delegation";
  /** Handoff positions (Handoff.index) along this edge, in order; empty for delegation. */
  order: number[];
  /** The handoff spans of the edge (the first is what selecting the edge selects). */
  spanIds: string[];
  /** Modes of the findings on the edge's handoff spans (FM-1.1 contract broken, FM-2.4 constraint dropped, ...). */
  findingModes: string[];
}

export interface AgentGraph {
  nodes: AgentNode[];
  edges: AgentEdge[];
  width: number;
  height: number;
}

export const nodeSize = { width: 190, height: 92, columnGap: 90, rowGap: 36 };

const sortedUnique = (values: Iterable<string>) => [...new Set(values)].sort();

export function deriveAgentGraph(input: {
  agents: AgentUsage[];
  handoffs: Handoff[];
  findings: GraphFinding[];
  attributedAgent: string | null;
  /** Agents in the order they first act (the trace's agent list); others follow by name. */
  agentOrder?: string[];
}): AgentGraph {
  const usage = new Map(input.agents.map((a) => [a.agent, a]));
  const names: string[] = [];
  const add = (name: string | null | undefined) => {
    if (name && !names.includes(name)) names.push(name);
  };
  for (const a of input.agentOrder ?? []) if (usage.has(a) || input.handoffs.some((h) => h.sender === a || h.receiver === a)) add(a);
  for (const a of [...input.agents].sort((x, y) => x.agent.localeCompare(y.agent))) add(a.agent);
  for (const h of input.handoffs) {
    add(h.sender);
    add(h.receiver);
  }
  if (input.attributedAgent) add(input.attributedAgent);

  const edges: AgentEdge[] = [];
  const edgeByKey = new Map<string, AgentEdge>();
  const findingsBySpan = new Map<string, string[]>();
  for (const f of input.findings) findingsBySpan.set(f.spanId, [...(findingsBySpan.get(f.spanId) ?? []), f.mode]);
  for (const h of [...input.handoffs].sort((a, b) => a.index - b.index)) {
    if (!h.sender || !h.receiver) continue;
    const key = `handoff:${h.sender}->${h.receiver}`;
    let edge = edgeByKey.get(key);
    if (!edge) {
      edge = { id: key, from: h.sender, to: h.receiver, kind: "handoff", order: [], spanIds: [], findingModes: [] };
      edgeByKey.set(key, edge);
      edges.push(edge);
    }
    edge.order.push(h.index);
    edge.spanIds.push(h.spanId);
    edge.findingModes = sortedUnique([...edge.findingModes, ...(findingsBySpan.get(h.spanId) ?? [])]);
  }
  for (const a of input.agents) {
    if (!a.parentAgent || a.parentAgent === a.agent) continue;
    if (edgeByKey.has(`handoff:${a.parentAgent}->${a.agent}`)) continue;
    add(a.parentAgent);
    const key = `delegation:${a.parentAgent}->${a.agent}`;
    if (edgeByKey.has(key)) continue;
    const edge: AgentEdge = { id: key, from: a.parentAgent, to: a.agent, kind: "delegation", order: [], spanIds: [], findingModes: [] };
    edgeByKey.set(key, edge);
    edges.push(edge);
  }

  // Column: the invoking agent's column + 1 (parentAgent first, else the first handoff into it), cycles cut.
  const parentOf = new Map<string, string>();
  for (const a of input.agents) if (a.parentAgent && a.parentAgent !== a.agent) parentOf.set(a.agent, a.parentAgent);
  for (const e of edges) if (!parentOf.has(e.to) && e.from !== e.to) parentOf.set(e.to, e.from);
  const column = new Map<string, number>();
  const columnOf = (name: string): number => {
    const known = column.get(name);
    if (known !== undefined) return known;
    const seen = new Set<string>([name]);
    const chain: string[] = [name];
    let current = name;
    let base = 0;
    for (;;) {
      const parent = parentOf.get(current);
      if (parent === undefined || seen.has(parent)) break;
      const c = column.get(parent);
      if (c !== undefined) {
        base = c + 1;
        break;
      }
      seen.add(parent);
      chain.push(parent);
      current = parent;
    }
    // chain[last] is the topmost agent found without a known column.
    for (let i = chain.length - 1; i >= 0; i--) column.set(chain[i]!, base + (chain.length - 1 - i));
    return column.get(name)!;
  };
  const rowsInColumn = new Map<number, number>();
  const findingModesOf = new Map<string, string[]>();
  for (const f of input.findings) if (f.agent) findingModesOf.set(f.agent, [...(findingModesOf.get(f.agent) ?? []), f.mode]);
  const nodes: AgentNode[] = names.map((agent) => {
    const c = columnOf(agent);
    const row = rowsInColumn.get(c) ?? 0;
    rowsInColumn.set(c, row + 1);
    return {
      agent,
      usage: usage.get(agent) ?? null,
      attributed: agent === input.attributedAgent,
      findingModes: sortedUnique(findingModesOf.get(agent) ?? []),
      column: c,
      row,
      x: c * (nodeSize.width + nodeSize.columnGap),
      y: row * (nodeSize.height + nodeSize.rowGap),
    };
  });
  const columns = nodes.reduce((m, n) => Math.max(m, n.column + 1), 0);
  const rows = Math.max(0, ...rowsInColumn.values());
  return {
    nodes,
    edges,
    width: Math.max(0, columns * (nodeSize.width + nodeSize.columnGap) - nodeSize.columnGap),
    height: Math.max(0, rows * (nodeSize.height + nodeSize.rowGap) - nodeSize.rowGap),
  };
}
