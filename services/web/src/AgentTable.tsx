/**
 * The per-agent table the pages share (the run's side panel, Agents and cost): one row per agent,
 * its name as the row header (a link when the page gives one), and the columns the page asks for.
 */
import { formatCost, formatPercent, formatTokens } from "./format.ts";
import { Link } from "./router.tsx";

export interface AgentTableRow {
  agent: string;
  totalTokens: number | null;
  /** False when the tracer reported no tokens for the agent: shown as "not reported", not 0. */
  tokensReported?: boolean;
  tokensNotReported?: string | null;
  /** Runs of the agent whose tracer reported no tokens, left out of the sums (the metrics endpoint's rows). */
  tokensNotReportedRows?: number;
  costUsd: number | null;
  tokenShare?: number | null;
  costShare?: number | null;
  llmCalls?: number;
  toolCalls?: number;
  errors: number;
  traces?: number;
}

export type AgentColumn = "runs" | "tokens" | "tokenShare" | "cost" | "costShare" | "llm" | "tool" | "errors";

const heads: Record<AgentColumn, string> = {
  runs: "Runs",
  tokens: "Tokens",
  tokenShare: "Token share",
  cost: "Cost",
  costShare: "Cost share",
  llm: "LLM",
  tool: "Tool",
  errors: "Errors",
};

const tokenColumns: AgentColumn[] = ["tokens", "tokenShare", "cost", "costShare"];

function cell(row: AgentTableRow, column: AgentColumn, shareDigits: number) {
  // No token counts at all: the tokens, cost and shares are unknown, not 0.
  if (row.tokensReported === false && tokenColumns.includes(column)) return "not reported";
  switch (column) {
    case "runs":
      return row.traces ?? "–";
    case "tokens":
      return row.tokensNotReportedRows ? (
        <>
          {formatTokens(row.totalTokens)}{" "}
          <span className="muted small" data-testid="tokens-not-reported-rows">
            ({row.tokensNotReportedRows} run{row.tokensNotReportedRows === 1 ? "" : "s"} not reported)
          </span>
        </>
      ) : (
        formatTokens(row.totalTokens)
      );
    case "tokenShare":
      return formatPercent(row.tokenShare, shareDigits);
    case "cost":
      return formatCost(row.costUsd);
    case "costShare":
      return formatPercent(row.costShare, shareDigits);
    case "llm":
      return row.llmCalls ?? "–";
    case "tool":
      return row.toolCalls ?? "–";
    case "errors":
      return row.errors;
  }
}

export function AgentTable({
  rows,
  columns,
  caption,
  className = "data",
  agentHref,
  shareDigits = 1,
  headings,
}: {
  rows: AgentTableRow[];
  columns: AgentColumn[];
  caption?: string;
  className?: string;
  agentHref?: (agent: string) => string;
  shareDigits?: number;
  /** Column headings other than the defaults ("Share" for a run's token share). */
  headings?: Partial<Record<AgentColumn, string>>;
}) {
  return (
    <table className={className}>
      {caption && <caption>{caption}</caption>}
      <thead>
        <tr>
          <th scope="col">Agent</th>
          {columns.map((c) => (
            <th key={c} scope="col" className="num">
              {headings?.[c] ?? heads[c]}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((a) => (
          <tr key={a.agent} data-agent-row={a.agent}>
            <th scope="row">{agentHref ? <Link to={agentHref(a.agent)}>{a.agent}</Link> : a.agent}</th>
            {columns.map((c) => (
              <td key={c} className="num" title={c === "tokens" ? (a.tokensNotReported ?? undefined) : undefined}>
                {cell(a, c, shareDigits)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
