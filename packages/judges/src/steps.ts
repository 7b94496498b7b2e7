/**
 * The trajectory as the judges see it: every step of the trace, numbered by
 * its global index, with its agent and the texts it carries. The same texts
 * are what a judge's quotes are checked against (citations.ts).
 */
import type { HandoffRecord, Step, TraceTrajectories } from "@crux/core";

interface StepField {
  /** "received" (what the agent was given, on its first step), "input", "args", "message" (a handoff's), "output", "error". */
  name: string;
  text: string;
  /**
   * Shown by its end only: a model call's input after the agent's first step. It is mostly the
   * conversation so far, whose parts are steps of their own already; its end is what is new.
   */
  tailOnly?: boolean;
}

export interface StepView {
  index: number;
  spanId: string;
  agent: string | null;
  /** One line: "[3] flight_searcher · tool search_flights". */
  header: string;
  fields: StepField[];
}

function headerOf(step: Step, handoff: HandoffRecord | undefined): string {
  const who = step.agent ?? "(no agent)";
  const what =
    step.kind === "tool"
      ? `tool ${step.toolName ?? step.spanName}`
      : step.kind === "handoff"
        ? `handoff${handoff?.receiver ? ` → ${handoff.receiver}` : step.toolName ? ` ${step.toolName}` : ""}`
        : step.kind === "llm"
          ? `model call${step.model ? ` (${step.model})` : ""}`
          : "turn";
  return `[${step.index}] ${who} · ${what}${step.isError ? " · ERROR" : ""}`;
}

export function stepViews(t: TraceTrajectories): StepView[] {
  const handoffByStep = new Map<number, HandoffRecord>();
  for (const h of t.handoffs) if (h.stepIndex !== null) handoffByStep.set(h.stepIndex, h);
  const seenAgents = new Set<string>();
  const inputOfAgent = new Map(t.agents.map((a) => [a.name, a.inputText]));
  return t.steps.map((step) => {
    const handoff = handoffByStep.get(step.index);
    const fields: StepField[] = [];
    const push = (name: string, text: string | null | undefined, tailOnly = false) => {
      if (text !== null && text !== undefined && text.trim() !== "") fields.push({ name, text, ...(tailOnly ? { tailOnly } : {}) });
    };
    const firstOfAgent = step.agent === null || !seenAgents.has(step.agent);
    if (step.agent !== null && firstOfAgent) {
      seenAgents.add(step.agent);
      const received = inputOfAgent.get(step.agent);
      if (received !== step.inputText) push("received", received);
    }
    push("input", step.inputText, !firstOfAgent && step.kind === "llm");
    push("args", step.args);
    push("message", handoff?.message);
    push("output", step.outputText);
    if (step.isError) push("error", errorText(t, step));
    return { index: step.index, spanId: step.spanId, agent: step.agent, header: headerOf(step, handoff), fields };
  });
}

/**
 * What the tracer said of a failed step: its error type and, after it, the exception messages and
 * the status message ("TimeoutError: upstream took 30 s"), each once. A judge placing the decisive
 * error needs what went wrong, not only its class.
 */
function errorText(t: TraceTrajectories, step: Step): string {
  const span = t.spanById.get(step.spanId);
  const messages: string[] = [];
  for (const text of [...(span?.content.exceptions ?? []).map((e) => e.message), span?.status.message ?? ""]) {
    const message = text.trim();
    if (message !== "" && !messages.includes(message)) messages.push(message);
  }
  const type = step.errorType ?? "error";
  return messages.length === 0 ? type : `${type}: ${messages.join(" | ")}`;
}

/** Every text of the step, in full: what a quote must be found in. */
export function stepText(view: StepView): string {
  return view.fields.map((f) => f.text).join("\n");
}
