/**
 * OTLP/JSON exports of an experiment's runs for the browser tests: each run a root agent span
 * carrying the experiment tags (crux.experiment.id, crux.variant, crux.task.id, crux.trial,
 * crux.agents.active, crux.baseline) and its outcome, and one agent span with an LLM call per
 * active agent. Runs tagged with an undeclared experiment id form an implicit experiment.
 */
import { randomBytes } from "node:crypto";

type Value = string | number | boolean | string[];
const attr = (key: string, v: Value) => ({
  key,
  value: Array.isArray(v)
    ? { arrayValue: { values: v.map((s) => ({ stringValue: s })) } }
    : typeof v === "string"
      ? { stringValue: v }
      : typeof v === "boolean"
        ? { boolValue: v }
        : { intValue: String(v) },
});
const hex = (bytes: number) => randomBytes(bytes).toString("hex");

export interface SeedVariant {
  name: string;
  baseline?: boolean;
  /** Active agents; the baseline runs one agent of its own. */
  agents: string[];
  succeeds: (task: number, trial: number) => boolean;
}

export function experimentExport(
  experimentId: string,
  variants: SeedVariant[],
  tasks: number,
  trials: number,
  startMs: number,
): { body: string; traceIds: string[] } {
  const traceIds: string[] = [];
  const resourceSpans = [];
  let t = startMs;
  for (const v of variants) {
    for (let task = 0; task < tasks; task++) {
      for (let trial = 0; trial < trials; trial++) {
        const traceId = hex(16);
        traceIds.push(traceId);
        const rootId = hex(8);
        const ns = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
        const start = (t += 1000);
        const agents = v.baseline ? ["solo"] : v.agents;
        const spans: object[] = [
          {
            traceId,
            spanId: rootId,
            name: "invoke_agent orchestrator",
            kind: 1,
            startTimeUnixNano: ns(start),
            endTimeUnixNano: ns(start + 900),
            attributes: [
              attr("gen_ai.operation.name", "invoke_agent"),
              attr("gen_ai.agent.name", "orchestrator"),
              attr("crux.experiment.id", experimentId),
              attr("crux.variant", v.name),
              attr("crux.task.id", `task-${task}`),
              attr("crux.trial", trial),
              attr("crux.outcome.success", v.succeeds(task, trial)),
              ...(v.baseline ? [attr("crux.baseline", true)] : [attr("crux.agents.active", v.agents)]),
            ],
            status: { code: 1 },
          },
        ];
        agents.forEach((agent, i) => {
          const agentId = hex(8);
          const s = start + 10 + i * 400;
          spans.push(
            {
              traceId,
              spanId: agentId,
              parentSpanId: rootId,
              name: `invoke_agent ${agent}`,
              kind: 1,
              startTimeUnixNano: ns(s),
              endTimeUnixNano: ns(s + 300),
              attributes: [attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.agent.name", agent)],
              status: { code: 1 },
            },
            {
              traceId,
              spanId: hex(8),
              parentSpanId: agentId,
              name: "chat gpt-4o-mini",
              kind: 3,
              startTimeUnixNano: ns(s + 10),
              endTimeUnixNano: ns(s + 200),
              attributes: [
                attr("gen_ai.operation.name", "chat"),
                attr("gen_ai.system", "openai"),
                attr("gen_ai.request.model", "gpt-4o-mini"),
                attr("gen_ai.usage.input_tokens", 400 + 10 * task),
                attr("gen_ai.usage.output_tokens", 100 + trial),
              ],
              status: { code: 1 },
            },
          );
        });
        resourceSpans.push({
          resource: { attributes: [attr("service.name", "experiment-runner")] },
          scopeSpans: [{ scope: { name: "crux-ui-test", version: "1" }, spans }],
        });
      }
    }
  }
  return { body: JSON.stringify({ resourceSpans }), traceIds };
}
