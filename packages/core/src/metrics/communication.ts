/** Communication efficiency: milestones hit per 1,000 tokens of inter-agent messages (docs/metrics.md §7). */
import type { TraceTrajectories } from "../trajectory/types.ts";
import type { MilestoneScore } from "./milestones.ts";
import { estimateTokens } from "../text/text.ts";

export type TokenCounter = (text: string) => number;

/** null when no message token was exchanged (the ratio is undefined, not infinite). */
export function communicationEfficiency(milestonesHit: number, messageTokens: number): number | null {
  return messageTokens > 0 ? milestonesHit / (messageTokens / 1000) : null;
}

/** Tokens of every handoff and return message between agents (a tokenizer can be injected). */
export function interAgentMessageTokens(t: TraceTrajectories, countTokens: TokenCounter = estimateTokens): number {
  return t.messages.reduce((n, m) => n + countTokens(m.text), 0);
}

export interface CommunicationScore {
  milestonesHit: number;
  messageTokens: number;
  value: number | null;
}

export function scoreCommunication(t: TraceTrajectories, milestones: MilestoneScore, countTokens: TokenCounter = estimateTokens): CommunicationScore {
  const messageTokens = interAgentMessageTokens(t, countTokens);
  return { milestonesHit: milestones.passedCount, messageTokens, value: communicationEfficiency(milestones.passedCount, messageTokens) };
}
