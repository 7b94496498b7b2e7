/** The evaluation as Markdown tables: per set and subset, each method next to the floors; then rank-1 calibration. */
import type { EvalResult, GroupResult } from "./evaluate.ts";
import type { Tally } from "./score.ts";

const pct = (right: number, n: number): string => (n === 0 ? "—" : `${((100 * right) / n).toFixed(1)}%`);

/** One line per log: right or wrong (agent, step), the rank-1 pick, the label and the pick's reason. */
export function formatLogs(r: EvalResult): string {
  return r.logs
    .map((l) => {
      const agent = l.pick?.agent != null && l.labelAgents.some((a) => a.toLowerCase() === (l.pick?.agent as string).toLowerCase());
      const step = l.labelStep !== null && l.pick?.turn === l.labelStep;
      const label = `${l.labelAgents.join("|")}${l.labelStep === null ? "" : `@${l.labelStep}`}`;
      return `${agent ? "A" : "-"}${l.labelStep === null ? " " : step ? "S" : "-"} ${l.set}/${l.id}: ${l.pick?.agent ?? "none"}@${l.pick?.turn ?? "?"} (label ${label}) ${l.reason ?? ""}`;
    })
    .join("\n");
}

export function formatReport(r: EvalResult): string {
  const lines: string[] = [];
  for (const g of r.groups) {
    lines.push(
      `### ${g.set} / ${g.subset}: ${g.logs} logs${g.stepLabelled > 0 ? `, ${g.stepLabelled} with a step label` : ", no step labels"}` +
        `${g.unmatchedLabels > 0 ? `, ${g.unmatchedLabels} labelled agent(s) matching no speaker` : ""}`,
      "",
      "| method | agent@1 | step@1 | agent@3 | unanswered |",
      "|---|---|---|---|---|",
    );
    for (const [name, t] of g.methods) lines.push(row(name, t, g));
    lines.push("", `rank-1 code picks naming an executor (an agent whose turns only carry execution output): ${g.executorFirst}`, "");
  }
  const all = r.groups.filter((g) => g.subset === "all");
  lines.push(
    "### rank-1 calibration (code): how often a pick at each stated confidence is right",
    "",
    "| set | confidence | picks | agent right | step right |",
    "|---|---|---|---|---|",
  );
  for (const g of all) {
    for (const b of g.calibration) {
      lines.push(
        `| ${g.set} | ${b.from.toFixed(1)}–${(b.from + 0.1).toFixed(1)} | ${b.picks} | ${pct(b.agentRight, b.picks)} | ${pct(b.stepRight, b.stepLogs)} |`,
      );
    }
  }
  if (r.judgeSpendUsd !== null) lines.push("", `judge spend: $${r.judgeSpendUsd.toFixed(4)} (priced models only)`);
  if (r.timedOut > 0) lines.push("", `${r.timedOut} log(s) were not scored (or judged) before the deadline: counted unanswered`);
  return lines.join("\n");
}

function row(name: string, t: Tally, g: GroupResult): string {
  return `| ${name} | ${pct(t.agentRight, t.logs)} | ${g.stepLabelled === 0 ? "—" : pct(t.stepRight, t.stepLogs)} | ${pct(t.top3Right, t.top3Logs)} | ${t.unanswered} |`;
}
