/**
 * FM-1.3 step repetition: the same agent repeats the same tool with the same
 * arguments, or the same message, k or more times (default 3) with no new
 * information in between. New information: a tool result the agent had not
 * seen before, a message it received, or the repeated step returning
 * something different. The agent's own LLM turns are not new information.
 */
import type { AgentTrajectory, Step, TraceTrajectories } from "../trajectory/types.ts";
import { finding, quote, type Finding } from "./finding.ts";
import { describeStep, stepSignature } from "./step-signature.ts";
import { normalizeText } from "./text.ts";

export interface RepetitionOptions {
  /** Occurrences that make a repetition. Default 3. */
  k?: number;
}

interface Chain {
  count: number;
  first: Step;
  last: Step;
  lastPos: number;
  reported: boolean;
}

const outputKey = (s: Step): string | null => (s.outputText === null ? null : normalizeText(s.outputText));

export function detectRepetition(t: TraceTrajectories, options: RepetitionOptions = {}): Finding[] {
  const k = Math.max(2, options.k ?? 3);
  return t.agents.flatMap((agent) => detectForAgent(t, agent, k));
}

function detectForAgent(t: TraceTrajectories, agent: AgentTrajectory, k: number): Finding[] {
  const steps = agent.steps;
  // Position at which each tool observation (tool, args, result) was first seen.
  const firstSeen = new Map<string, number>();
  steps.forEach((s, pos) => {
    if (s.kind === "llm") return;
    const key = `${stepSignature(s) ?? `${s.spanId}`}|${outputKey(s) ?? ""}`;
    if (!firstSeen.has(key)) firstSeen.set(key, pos);
  });
  const isNewInfoAt = (pos: number): boolean => {
    const s = steps[pos];
    if (s === undefined || s.kind === "llm") return false;
    return firstSeen.get(`${stepSignature(s) ?? `${s.spanId}`}|${outputKey(s) ?? ""}`) === pos;
  };
  const received = t.messages.filter((m) => m.to === agent.name);
  const receivedBetween = (from: Step, to: Step): boolean => received.some((m) => m.timeNs > from.startNs && m.timeNs <= to.startNs);

  const findings: Finding[] = [];
  const chains = new Map<string, Chain>();
  steps.forEach((step, pos) => {
    const sig = stepSignature(step);
    if (sig === null) return;
    const chain = chains.get(sig);
    let continues = chain !== undefined;
    if (chain !== undefined) {
      const prevOut = outputKey(chain.last);
      const out = outputKey(step);
      if (prevOut !== null && out !== null && prevOut !== out) continues = false;
      for (let j = chain.lastPos + 1; j < pos && continues; j++) if (isNewInfoAt(j)) continues = false;
      if (continues && receivedBetween(chain.last, step)) continues = false;
    }
    if (chain === undefined || !continues) {
      chains.set(sig, { count: 1, first: step, last: step, lastPos: pos, reported: false });
      return;
    }
    chain.count++;
    chain.last = step;
    chain.lastPos = pos;
    if (chain.count >= k && !chain.reported) {
      chain.reported = true;
      const sameResult = step.outputText !== null && chain.first.outputText !== null;
      findings.push(
        finding({
          mode: "FM-1.3",
          agent: agent.name,
          spanId: step.spanId,
          stepIndex: step.index,
          source: "heuristic",
          confidence: sameResult ? 0.8 : 0.7,
          evidence: `${agent.name} repeated ${quote(describeStep(step))} ${chain.count} times with no new information (first at step ${chain.first.index})`,
        }),
      );
    }
  });
  return findings;
}
