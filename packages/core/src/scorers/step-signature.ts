/** What makes two steps "the same": same tool and canonical arguments, or the same message content. */
import type { Step } from "../trajectory/types.ts";
import { normalizeText } from "./text.ts";

/** Null when the step's identity is unknown (tool arguments or LLM content not captured). */
export function stepSignature(step: Step): string | null {
  if (step.kind === "llm") return step.outputText === null ? null : `llm:${normalizeText(step.outputText)}`;
  if (step.toolName === null || step.args === null) return null;
  return `${step.kind}:${step.toolName.toLowerCase()}:${step.args}`;
}

export function describeStep(step: Step): string {
  if (step.kind === "llm") return "the same message";
  return `${step.toolName ?? "tool"}(${step.args ?? ""})`;
}
