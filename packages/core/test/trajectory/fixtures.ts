/** A clean multi-agent trace (lead → researcher → writer → reviewer) and helpers to inject failures into it. */
import type { HandoffEdge } from "../../src/attribution/types.ts";
import { buildTrajectories, type TraceTrajectories } from "../../src/trajectory/index.ts";
import { attributionFor, span, type SpanSpec } from "./builder.ts";

const GOAL = "Write a report on solar panel efficiency in Germany, under 500 words, cite sources";

export function traj(specs: SpanSpec[], handoffs?: HandoffEdge[]): TraceTrajectories {
  const spans = specs.map(span);
  return buildTrajectories(spans, attributionFor(spans, handoffs));
}

const out = (text: string) => ({ output: text });

export const cleanSpecs: SpanSpec[] = [
  { id: "lead", op: "agent", agent: "lead", start: 0, end: 1000, input: GOAL },
  {
    id: "plan",
    parent: "lead",
    op: "llm",
    model: "gpt-4o",
    start: 1,
    end: 10,
    tokens: { input: 400, output: 100 },
    ...out("Plan: research solar efficiency data, then write, then review"),
  },
  {
    id: "res",
    parent: "lead",
    op: "agent",
    agent: "researcher",
    start: 20,
    end: 200,
    input: "Research solar panel efficiency in Germany; under 500 words; cite sources",
    ...out("German solar panels average 20% efficiency (Fraunhofer ISE)"),
  },
  {
    id: "res.q",
    parent: "res",
    op: "tool",
    tool: "web_search",
    start: 30,
    end: 60,
    args: { query: "solar panel efficiency Germany" },
    output: "Fraunhofer ISE: average module efficiency 20%",
  },
  {
    id: "res.llm",
    parent: "res",
    op: "llm",
    model: "gpt-4o-mini",
    start: 70,
    end: 100,
    tokens: { input: 800, output: 200, cached: 300 },
    ...out("German solar panels average 20% efficiency according to Fraunhofer ISE"),
  },
  {
    id: "wri",
    parent: "lead",
    op: "agent",
    agent: "writer",
    start: 300,
    end: 600,
    input: "Write the report on German solar efficiency (20%, Fraunhofer ISE); under 500 words; cite sources",
  },
  {
    id: "wri.llm",
    parent: "wri",
    op: "llm",
    model: "gpt-4o",
    start: 310,
    end: 400,
    tokens: { input: 1000, output: 600 },
    ...out("Report: Solar panel efficiency in Germany averages 20% (Fraunhofer ISE)..."),
  },
  {
    id: "wri.save",
    parent: "wri",
    op: "tool",
    tool: "write_file",
    start: 410,
    end: 420,
    args: { path: "report.md" },
    output: "ok",
  },
  { id: "rev", parent: "lead", op: "agent", agent: "reviewer", start: 700, end: 900, input: "Review report.md on German solar efficiency" },
  {
    id: "rev.llm",
    parent: "rev",
    op: "llm",
    model: "claude-3-5-haiku-20241022",
    start: 710,
    end: 800,
    tokens: { input: 700, output: 50 },
    ...out("Approved: the report on solar efficiency in Germany is accurate and cites Fraunhofer ISE"),
  },
  {
    id: "final",
    parent: "lead",
    op: "llm",
    model: "gpt-4o",
    start: 910,
    end: 990,
    tokens: { input: 500, output: 100 },
    ...out("Final report on German solar panel efficiency delivered"),
  },
];

export const clean = (): TraceTrajectories => traj(cleanSpecs);

/** Replace / add span specs by id. */
export function withSpecs(base: SpanSpec[], changes: SpanSpec[], remove: string[] = []): SpanSpec[] {
  const byId = new Map(changes.map((c) => [c.id, c]));
  const kept = base.filter((s) => !remove.includes(s.id)).map((s) => byId.get(s.id) ?? s);
  const added = changes.filter((c) => !base.some((s) => s.id === c.id));
  return [...kept, ...added];
}
