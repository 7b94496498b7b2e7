/**
 * FM-1.3 step repetition: the same agent repeats the same tool with the same
 * arguments, or the same message, k or more times (default 3) with no new
 * information in between. New information: a tool result the agent had not
 * seen before, a message it received, or the repeated step returning
 * something different. The agent's own LLM turns are not new information.
 * A retry that succeeds after failed tries of the same call ends the run.
 * Message steps (turns of a group chat) repeat when the same agent's
 * consecutive turns are near-identical (content-word overlap at least
 * TURN_SIMILARITY): what others said in between is not new information the
 * agent used, since its turn did not change.
 */
import type { AgentTrajectory, Step, TraceTrajectories } from "../../trajectory/types.ts";
import { finding, quote, type DetectorFinding } from "../finding.ts";
import { describeStep, stepSignature } from "../../text/step-signature.ts";
import { contentSimilarity, contentWords, normalizeText } from "../../text/text.ts";

export interface RepetitionOptions {
  /** Occurrences that make a repetition. Default 3. */
  k?: number;
}

/** Content-word overlap above which two turns of one agent are the same turn. */
const TURN_SIMILARITY = 0.8;
/** Turns with fewer content words ("OK", "Done.") are too short to call a repetition. */
const TURN_MIN_WORDS = 3;

interface Chain {
  count: number;
  first: Step;
  last: Step;
  lastPos: number;
  reported: boolean;
}

const outputKey = (s: Step): string | null => (s.outputText === null ? null : normalizeText(s.outputText));

export function detectRepetition(t: TraceTrajectories, options: RepetitionOptions = {}): DetectorFinding[] {
  const k = Math.max(2, options.k ?? 3);
  return t.agents.flatMap((agent) => [...detectForAgent(t, agent, k), ...detectRepeatedTurns(agent, k)]);
}

/** Runs of one agent's near-identical consecutive turns, in order (a run of one is a turn said once). */
export function turnChains(agent: AgentTrajectory): Step[][] {
  const turns = agent.steps.filter((s) => s.kind === "message" && s.outputText !== null && contentWords(s.outputText).size >= TURN_MIN_WORDS);
  const chains: Step[][] = [];
  let chain: Step[] = [];
  for (const turn of turns) {
    const first = chain[0];
    if (first !== undefined && contentSimilarity(first.outputText as string, turn.outputText as string) >= TURN_SIMILARITY) chain.push(turn);
    else {
      if (chain.length > 0) chains.push(chain);
      chain = [turn];
    }
  }
  if (chain.length > 0) chains.push(chain);
  return chains;
}

function detectRepeatedTurns(agent: AgentTrajectory, k: number): DetectorFinding[] {
  return turnChains(agent)
    .filter((chain) => chain.length >= k)
    .map((chain) => {
      const first = chain[0] as Step;
      const cited = chain[k - 1] as Step;
      return finding({
        mode: "FM-1.3",
        agent: agent.name,
        spanId: cited.spanId,
        stepIndex: cited.index,
        source: "heuristic",
        confidence: 0.7,
        evidence: `${agent.name} repeated the same turn ("${quote(cited.outputText as string, 60)}") ${chain.length} times (first at step ${first.index})`,
      });
    });
}

function detectForAgent(t: TraceTrajectories, agent: AgentTrajectory, k: number): DetectorFinding[] {
  const steps = agent.steps;
  // Signature and normalized output of each step, computed once: the chain checks below revisit steps.
  const sigAt = steps.map((s) => (s.kind === "message" ? null : stepSignature(s)));
  const outAt = steps.map(outputKey);
  // Position at which each tool observation (tool, args, result) was first seen; isNewInfo[pos]: the step at pos is one.
  const firstSeen = new Map<string, number>();
  const isNewInfo = steps.map((s, pos) => {
    if (s.kind === "llm" || s.kind === "message") return false;
    const key = `${sigAt[pos] ?? `${s.spanId}`}|${outAt[pos] ?? ""}`;
    if (firstSeen.has(key)) return false;
    firstSeen.set(key, pos);
    return true;
  });
  const received = t.messages.filter((m) => m.to === agent.name);
  const receivedBetween = (from: Step, to: Step): boolean => received.some((m) => m.timeNs > from.startNs && m.timeNs <= to.startNs);

  const findings: DetectorFinding[] = [];
  const chains = new Map<string, Chain>();
  steps.forEach((step, pos) => {
    // Turns repeat by near-identity, whatever was said in between (detectRepeatedTurns).
    const sig = sigAt[pos] ?? null;
    if (sig === null) return;
    const chain = chains.get(sig);
    let continues = chain !== undefined;
    if (chain !== undefined) {
      const prevOut = outAt[chain.lastPos] ?? null;
      const out = outAt[pos] ?? null;
      if (prevOut !== null && out !== null && prevOut !== out) continues = false;
      // A call that succeeds after failed tries of itself is a retry that worked, not a repetition (a run of identical failures still is).
      if (chain.last.isError && !step.isError) continues = false;
      for (let j = chain.lastPos + 1; j < pos && continues; j++) if (isNewInfo[j]) continues = false;
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
