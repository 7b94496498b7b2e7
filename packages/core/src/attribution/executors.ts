/**
 * Executors are not authors. An agent whose turns only carry the results of
 * running what another agent asked for (code output, exit codes, tool
 * results) and that makes no model call of its own is an executor: an error
 * or a wrong result surfacing in its turn is charged to the turn whose
 * request it ran. Recognised from structure (tool steps and no model step of
 * its own) and, in text-only logs where no agent has model spans, from the
 * shape of its messages; never from its name.
 */
import type { AgentTrajectory, Step, TraceTrajectories } from "../trajectory/types.ts";
import { contentWords } from "../text/text.ts";

/** How the output of running code or a tool starts (AG2's code executor, terminals, REPLs, tool observations). */
const EXECUTION_OUTPUT =
  /^\W{0,40}(exit ?code\s*[:=]?\s*-?\d+|execution (result|output|logs|succeeded|failed)|code output\b|observation:|traceback \(most recent call last\)|stdout:|stderr:|\$ \S|>>> \S)/i;
/** Output of a run that failed: a non-zero exit code, a traceback, an error line. */
const FAILURE_OUTPUT =
  /exit ?code\s*[:=]?\s*[1-9]\d*|execution failed|traceback \(most recent call last\)|^\s*[\w.]*(error|exception)\b[^\n]{0,200}$|command not found|no such file or directory/im;

const text = (s: Step): string => s.outputText ?? "";

/** The text of a message turn is shaped like the output of running something. */
export const isExecutionOutput = (s: Step): boolean => s.kind === "message" && EXECUTION_OUTPUT.test(text(s).slice(0, 600));

/** A turn (of an executor) or a step whose output shows that what it ran failed. */
export const showsFailure = (s: Step): boolean => FAILURE_OUTPUT.test(text(s).slice(0, 4_000));

function isExecutor(t: TraceTrajectories, a: AgentTrajectory): boolean {
  if (a.steps.length === 0 || a.steps.some((s) => s.kind === "llm" || s.kind === "handoff")) return false;
  const tools = a.steps.filter((s) => s.kind === "tool");
  const messages = a.steps.filter((s) => s.kind === "message");
  // Message turns only: every one must read as execution output.
  if (messages.length > 0) return tools.length === 0 && messages.every(isExecutionOutput);
  // Tool steps and no model step: an executor when what it runs is code or a command another agent wrote
  // (a pipeline stage publishing data, or calling a service that fails, is the author of that call).
  return tools.length > 0 && tools.every((s) => CODE.test(s.args ?? "") && ranWhatWasAsked(t, s));
}

/** Arguments that are code or a command: what a code executor or a terminal runs. */
const CODE = /```|\b(def|import|class|function|const|let|return|print|console\.log)\b[^\n]*[(=:]|^\s*(\$|>>>) \S|\b(python3?|bash|sh|node) -?\w/m;

/** Most of the code's words were said earlier by another agent. */
function ranWhatWasAsked(t: TraceTrajectories, call: Step): boolean {
  const words = contentWords(call.args ?? "");
  if (words.size < 3) return false;
  const said = new Set<string>();
  for (const s of t.steps) if (s.index < call.index && s.agentKey !== call.agentKey) for (const w of contentWords(s.outputText ?? "")) said.add(w);
  return [...words].filter((w) => said.has(w)).length >= 0.6 * words.size;
}

/** Agent keys of the trace's executors. */
export function executorKeys(t: TraceTrajectories): Set<string> {
  return new Set(t.agents.filter((a) => isExecutor(t, a)).map((a) => a.key));
}

const speaks = (s: Step): boolean => (s.kind === "llm" || s.kind === "message") && s.outputText !== null && s.outputText.trim() !== "";

/**
 * The step whose request an executor's step ran: the last earlier step by
 * another agent that is no executor and says something, preferring the
 * executor's caller when the trace nests it under one. Null when none.
 */
export function requesterOf(t: TraceTrajectories, step: Step, executors: ReadonlySet<string>): Step | null {
  const owner = t.agents.find((a) => a.key === step.agentKey);
  const candidates = t.steps.filter((s) => s.index < step.index && s.agentKey !== step.agentKey && !executors.has(s.agentKey ?? "") && speaks(s));
  const caller = owner?.parentAgent ?? null;
  const fromCaller = caller === null ? undefined : [...candidates].reverse().find((s) => s.agent === caller);
  return fromCaller ?? candidates[candidates.length - 1] ?? null;
}
