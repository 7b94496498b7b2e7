/**
 * The agent graph of one run, derived from its stored score set: one node per agent with its usage,
 * handoff and delegation edges in their order, and what to mark (the attributed agent, agents with
 * findings, handoffs that failed a contract or dropped a constraint). The layout is layered (an
 * agent one column right of the agent that invoked it), computed here because the graph has one
 * node per agent (or per invocation): a few dozen at most, never worth a layout engine. A layer
 * holding more than `maxRows` nodes wraps into several columns side by side, filled top to bottom
 * in the order given (time order, for invocations), so many invocations under one parent make a
 * block rather than one tall column. Pure.
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
  /** Who-invoked-whom depth: the invoking agent's layer + 1. */
  layer: number;
  /** The drawn column: a layer that wraps spans several. */
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
/** Nodes of one layer stacked in one column before it wraps into another. */
export const maxRows = 6;

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
  const findingModesOf = new Map<string, string[]>();
  for (const f of input.findings) if (f.agent) findingModesOf.set(f.agent, [...(findingModesOf.get(f.agent) ?? []), f.mode]);
  // Per layer, its nodes in the given order; a layer of n nodes takes ceil(n / maxRows) columns,
  // its rows balanced across them, and the layers to its right shift over.
  const layerOf = new Map(names.map((agent) => [agent, columnOf(agent)]));
  const members = new Map<number, string[]>();
  for (const agent of names) members.set(layerOf.get(agent)!, [...(members.get(layerOf.get(agent)!) ?? []), agent]);
  const layers = [...members.keys()].sort((a, b) => a - b);
  const place = new Map<string, { column: number; row: number }>();
  let firstColumn = 0;
  let rows = 0;
  for (const layer of layers) {
    const inLayer = members.get(layer)!;
    const wraps = Math.ceil(inLayer.length / maxRows);
    const perColumn = Math.ceil(inLayer.length / wraps);
    inLayer.forEach((agent, i) => place.set(agent, { column: firstColumn + Math.floor(i / perColumn), row: i % perColumn }));
    rows = Math.max(rows, perColumn);
    firstColumn += wraps;
  }
  const nodes: AgentNode[] = names.map((agent) => {
    const { column: c, row } = place.get(agent)!;
    return {
      agent,
      usage: usage.get(agent) ?? null,
      attributed: agent === input.attributedAgent,
      findingModes: sortedUnique(findingModesOf.get(agent) ?? []),
      layer: layerOf.get(agent)!,
      column: c,
      row,
      x: c * (nodeSize.width + nodeSize.columnGap),
      y: row * (nodeSize.height + nodeSize.rowGap),
    };
  });
  const columns = firstColumn;
  return {
    nodes,
    edges,
    width: Math.max(0, columns * (nodeSize.width + nodeSize.columnGap) - nodeSize.columnGap),
    height: Math.max(0, rows * (nodeSize.height + nodeSize.rowGap) - nodeSize.rowGap),
  };
}
