/**
 * Which agents exist in a trace and which spans are the same agent.
 *
 * Agents come only from agent spans; propagated `gen_ai.agent.name` on other
 * spans never creates one (that would be a phantom agent). Only when a trace
 * has no agent span at all do the propagated names define the agents.
 * Identity is the agent id when present, else the name, and the two are
 * merged: spans sharing an id or a name are one agent (an agent run twice is
 * one agent; pydantic-ai run ids differ per run but the name is shared). An id
 * that agent spans of different names share is a tracer default (the OTel
 * contrib OpenAI Agents instrumentation gives every agent the id "agent"),
 * not an identity: it is ignored.
 */
import type { NormalizedSpan } from "../span.ts";
import type { AgentKey } from "./types.ts";

interface AgentGroup {
  key: AgentKey;
  name: string;
  id: string | null;
}

export interface AgentIdentity {
  groups: AgentGroup[];
  /** Group index of each agent span (by tree index), -1 for other spans. */
  groupOfAgentSpan: Int32Array;
  /** True when no span is an agent span and groups come from propagated names. */
  fromPropagatedNames: boolean;
  /** Group of a propagated name/id hint, or -1 when it names no known agent. */
  resolveHint(name: string | null, id: string | null): number;
  /** A name as written elsewhere (transfer_to_research_agent → "Research Agent") mapped to the agent's name. */
  canonicalName(raw: string): string;
  /** Group of a name as written elsewhere, or -1 when it names no known agent. */
  groupOfName(raw: string): number;
  /**
   * The group of an agent that has no agent span of its own (a delegated CrewAI coworker),
   * added under this name when no known agent has it.
   */
  ensureAgent(raw: string): number;
}

export function identifyAgents(spans: readonly NormalizedSpan[]): AgentIdentity {
  const anyAgentSpan = spans.some((s) => s.operation === "agent");
  const memberName = (s: NormalizedSpan): string | null =>
    anyAgentSpan ? (s.operation === "agent" ? (s.agentName ?? s.agentId ?? s.name) : null) : (s.agentName ?? s.agentId);

  const namesOfId = new Map<string, Set<string>>();
  for (const s of spans) {
    const name = memberName(s);
    if (name === null || s.agentId === null) continue;
    const names = namesOfId.get(s.agentId) ?? new Set<string>();
    names.add(name);
    namesOfId.set(s.agentId, names);
  }
  const idOf = (s: NormalizedSpan): string | null => (s.agentId !== null && (namesOfId.get(s.agentId)?.size ?? 0) <= 1 ? s.agentId : null);

  const sets = new UnionFind();
  for (const s of spans) {
    const name = memberName(s);
    if (name === null) continue;
    const nameToken = `name:${name}`;
    sets.add(nameToken);
    const id = idOf(s);
    if (id !== null) sets.union(nameToken, `id:${id}`);
  }

  const groups: AgentGroup[] = [];
  const groupOfRoot = new Map<string, number>();
  const groupOfAgentSpan = new Int32Array(spans.length).fill(-1);
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i] as NormalizedSpan;
    const name = memberName(s);
    if (name === null) continue;
    const root = sets.find(`name:${name}`);
    let g = groupOfRoot.get(root);
    if (g === undefined) {
      g = groups.length;
      groupOfRoot.set(root, g);
      groups.push({ key: "", name, id: null });
    }
    const group = groups[g] as AgentGroup;
    // Spans are in start order: the first id seen is the agent's id.
    if (group.id === null) group.id = idOf(s);
    if (s.operation === "agent") groupOfAgentSpan[i] = g;
  }
  for (const group of groups) group.key = group.id ?? `name:${group.name}`;

  const byNormalizedName = new Map<string, string>();
  const groupOfNormalizedName = new Map<string, number>();
  groups.forEach((group, g) => {
    const norm = normalizeName(group.name);
    if (!byNormalizedName.has(norm)) {
      byNormalizedName.set(norm, group.name);
      groupOfNormalizedName.set(norm, g);
    }
  });

  return {
    groups,
    groupOfAgentSpan,
    fromPropagatedNames: !anyAgentSpan,
    resolveHint(name, id) {
      for (const token of [name === null ? null : `name:${name}`, id === null ? null : `id:${id}`]) {
        if (token === null || !sets.has(token)) continue;
        const g = groupOfRoot.get(sets.find(token));
        if (g !== undefined) return g;
      }
      return -1;
    },
    canonicalName(raw) {
      return byNormalizedName.get(normalizeName(raw)) ?? raw;
    },
    groupOfName(raw) {
      return groupOfNormalizedName.get(normalizeName(raw)) ?? -1;
    },
    ensureAgent(raw) {
      const known = groupOfNormalizedName.get(normalizeName(raw));
      if (known !== undefined) return known;
      const g = groups.length;
      groups.push({ key: `name:${raw}`, name: raw, id: null });
      byNormalizedName.set(normalizeName(raw), raw);
      groupOfNormalizedName.set(normalizeName(raw), g);
      return g;
    },
  };
}

/** "Research Agent", "research-agent" and "research_agent" compare equal. */
function normalizeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "_")
    .replace(/^_+|_+$/g, "");
}

class UnionFind {
  private readonly parent = new Map<string, string>();

  has(x: string): boolean {
    return this.parent.has(x);
  }

  add(x: string): void {
    if (!this.parent.has(x)) this.parent.set(x, x);
  }

  find(x: string): string {
    let root = x;
    for (let next = this.parent.get(root); next !== undefined && next !== root; next = this.parent.get(root)) {
      root = next;
    }
    // Path compression keeps later finds short.
    let cur = x;
    while (cur !== root) {
      const next = this.parent.get(cur) as string;
      this.parent.set(cur, root);
      cur = next;
    }
    return root;
  }

  union(a: string, b: string): void {
    this.add(a);
    this.add(b);
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(rb, ra);
  }
}
