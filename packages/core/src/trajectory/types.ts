/**
 * Trajectories: what each agent did in one trace, as ordered steps, plus the
 * handoffs and messages between agents. Built by buildTrajectories() from the
 * normalized spans and the agent attribution; every scorer reads this shape.
 */
import type { NormalizedSpan } from "../span.ts";
import type { AgentKey, TraceAttribution, HandoffEdge } from "../attribution/types.ts";

/**
 * "message": an agent's turn: an agent invocation that produced output with no
 * model, tool, handoff or nested agent call below it (group chats whose turns
 * are traced as one agent span each, with no LLM child spans).
 */
export type StepKind = "llm" | "tool" | "handoff" | "message";

export interface StepTokens {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export interface Step {
  /** Position in the trace's global step list (ordered by start, then span id); attributions cite it. */
  index: number;
  spanId: string;
  /** Owning agent; null when no agent owns the span. */
  agentKey: AgentKey | null;
  agent: string | null;
  kind: StepKind;
  spanName: string;
  /** Tool name for tool and handoff steps (null for llm and message steps). */
  toolName: string | null;
  /** Tool arguments as canonical JSON (sorted keys), or the raw string when it is not JSON. */
  args: string | null;
  inputText: string | null;
  outputText: string | null;
  model: string | null;
  /** Finish / stop reasons reported on the step (lowercased), e.g. ["stop"], ["length"]. */
  finishReasons: string[];
  /** Counted tokens of the step span and every span folded into it. */
  tokens: StepTokens;
  /** Tracer-reported cost of the counted spans, null when none reported. */
  reportedCost: number | null;
  isError: boolean;
  errorType: string | null;
  startNs: bigint;
  endNs: bigint;
  /** Nested llm/tool spans of the same agent folded into this step (e.g. a provider call under a framework wrapper). */
  foldedSpanIds: string[];
}

export interface AgentTrajectory {
  key: AgentKey;
  name: string;
  id: string | null;
  parentAgent: string | null;
  /** The agent's own agent spans (one per invocation), in start order. */
  agentSpanIds: string[];
  steps: Step[];
  /** Input of the agent's first invocation, output of its last, when captured. */
  inputText: string | null;
  outputText: string | null;
  firstStartNs: bigint;
  lastEndNs: bigint;
}

export interface HandoffRecord {
  /** Position in the trace's handoff list (time order). */
  index: number;
  sender: string | null;
  receiver: string | null;
  spanId: string;
  via: HandoffEdge["via"];
  /** Content passed to the receiver, when any attribute carries it. */
  message: string | null;
  /** Where the message came from: the handoff span itself, or the receiver's invocation input. */
  messageSource: "handoff_span" | "receiver_input" | null;
  startNs: bigint;
  /** Global step index of the handoff span when it is a step, else null. */
  stepIndex: number | null;
}

export interface AgentMessage {
  from: string | null;
  to: string | null;
  text: string;
  spanId: string;
  timeNs: bigint;
  /**
   * "handoff": content sent with a handoff; "return": a nested agent's result going back to its caller;
   * "turn": a message step's text, received by the next speaker (consecutive turns by different agents).
   */
  kind: "handoff" | "return" | "turn";
}

export interface ClockSkew {
  spanId: string;
  parentSpanId: string;
  /** How much earlier the child started than its parent, in ns. */
  skewNs: bigint;
}

export interface TrajectoryFlags {
  /** Span ids whose parent is not in the trace. */
  orphans: string[];
  /** Set when the trace has several roots (true roots and orphans). */
  multipleRoots: boolean;
  roots: string[];
  /** Children that start before their parent beyond the tolerance (clock skew between hosts). */
  clockSkew: ClockSkew[];
  /** llm/tool/handoff spans no agent owns (kept in the global step list with agent null). */
  unattributedSteps: number;
}

export interface TraceTrajectories {
  traceId: string | null;
  /** Every step of the trace, ordered by start time then span id. */
  steps: Step[];
  agents: AgentTrajectory[];
  handoffs: HandoffRecord[];
  messages: AgentMessage[];
  flags: TrajectoryFlags;
  /** The task / goal text: crux.task.goal tag, else the root span's input, else the first agent's input. */
  goal: string | null;
  /** The root span (earliest true root), null for an empty trace. */
  rootSpanId: string | null;
  spans: NormalizedSpan[];
  spanById: Map<string, NormalizedSpan>;
  /** Step index of every step span and every span folded into a step. */
  stepIndexBySpan: Map<string, number>;
  attribution: TraceAttribution;
}

export interface BuildTrajectoriesOptions {
  /** A child starting more than this before its parent is flagged as clock skew. Default 1 ms. */
  clockSkewToleranceNs?: bigint;
}
