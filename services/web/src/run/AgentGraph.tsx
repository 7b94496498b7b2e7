/** The agent graph: one node per agent or per invocation (usage on it), handoff and delegation edges with their order. */
import { memo, type KeyboardEvent } from "react";
import { formatCost, formatTokens } from "../format.ts";
import { nodeSize, type AgentGraph as Graph, type AgentNode } from "./graph-layout.ts";

const pad = 24;

function edgePath(from: AgentNode, to: AgentNode): string {
  const sameColumn = from.column === to.column;
  const x1 = from.x + (sameColumn ? nodeSize.width / 2 : from.column < to.column ? nodeSize.width : 0);
  const y1 = from.y + (sameColumn ? (from.row < to.row ? nodeSize.height : 0) : nodeSize.height / 2);
  const x2 = to.x + (sameColumn ? nodeSize.width / 2 : from.column < to.column ? 0 : nodeSize.width);
  const y2 = to.y + (sameColumn ? (from.row < to.row ? 0 : nodeSize.height) : nodeSize.height / 2);
  if (sameColumn) {
    const bend = x1 + nodeSize.width / 2 + 20;
    return `M${x1 + pad},${y1 + pad} C${bend + pad},${y1 + pad} ${bend + pad},${y2 + pad} ${x2 + pad},${y2 + pad}`;
  }
  const mx = (x1 + x2) / 2;
  return `M${x1 + pad},${y1 + pad} C${mx + pad},${y1 + pad} ${mx + pad},${y2 + pad} ${x2 + pad},${y2 + pad}`;
}

export const AgentGraph = memo(function AgentGraph({
  graph,
  selectedNode,
  selectedSpanId,
  onSelectNode,
  onSelectSpan,
}: {
  graph: Graph;
  /** The node (agent, or invocation) the selected span belongs to. */
  selectedNode: string | null;
  selectedSpanId: string | null;
  onSelectNode: (node: string) => void;
  onSelectSpan: (spanId: string) => void;
}) {
  const byName = new Map(graph.nodes.map((n) => [n.agent, n]));
  const activate = (fn: () => void) => (e: KeyboardEvent) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      fn();
    }
  };
  if (graph.nodes.length === 0) return <p className="muted">No agent in this run (no span names an agent).</p>;
  return (
    <div className="graph-scroll">
      <svg className="agent-graph" width={graph.width + 2 * pad + 60} height={graph.height + 2 * pad} role="group" aria-label="Agent graph">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" className="arrow-head" />
          </marker>
        </defs>
        {graph.edges.map((e) => {
          const from = byName.get(e.from);
          const to = byName.get(e.to);
          if (!from || !to) return null;
          const marked = e.findingModes.length > 0;
          const selected = selectedSpanId !== null && e.spanIds.includes(selectedSpanId);
          const label = e.kind === "handoff" ? `#${e.order.map((i) => i + 1).join(", #")}${marked ? ` ${e.findingModes.join(" ")}` : ""}` : "invokes";
          const d = edgePath(from, to);
          const lx = (from.x + to.x + nodeSize.width) / 2 + pad;
          const ly = (from.y + to.y + nodeSize.height) / 2 + pad - 6;
          return (
            <g
              key={e.id}
              className={`edge ${e.kind} ${marked ? "marked" : ""} ${selected ? "selected" : ""}`}
              data-edge={e.id}
              {...(e.spanIds[0]
                ? {
                    role: "button",
                    tabIndex: 0,
                    "aria-label": `Handoff ${e.from} to ${e.to}, ${label}`,
                    onClick: () => onSelectSpan(e.spanIds[0]!),
                    onKeyDown: activate(() => onSelectSpan(e.spanIds[0]!)),
                  }
                : {})}
            >
              <path d={d} markerEnd="url(#arrow)" />
              <text x={lx} y={ly} textAnchor="middle">
                {label}
              </text>
            </g>
          );
        })}
        {graph.nodes.map((n) => {
          const u = n.usage;
          const selected = n.agent === selectedNode;
          return (
            <g
              key={n.agent}
              className={`node ${n.attributed ? "attributed" : ""} ${n.findingModes.length > 0 ? "has-findings" : ""} ${selected ? "selected" : ""}`}
              transform={`translate(${n.x + pad},${n.y + pad})`}
              role="button"
              tabIndex={0}
              data-agent={n.agent}
              aria-pressed={selected}
              onClick={() => onSelectNode(n.agent)}
              onKeyDown={activate(() => onSelectNode(n.agent))}
            >
              <rect width={nodeSize.width} height={nodeSize.height} rx="8" />
              <text x="10" y="20" className="node-title">
                {n.agent.length > 22 ? `${n.agent.slice(0, 21)}…` : n.agent}
              </text>
              <text x="10" y="40">
                {u ? (u.tokensReported === false ? "tokens not reported" : `${formatTokens(u.totalTokens)} tok · ${formatCost(u.costUsd)}`) : "no usage stored"}
              </text>
              <text x="10" y="58">
                {u ? `${u.llmCalls} LLM · ${u.toolCalls} tool · ${u.errors} err` : ""}
              </text>
              <text x="10" y="78" className="node-marks">
                {n.attributed ? "◆ attributed " : ""}
                {n.findingModes.join(" ")}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
});
