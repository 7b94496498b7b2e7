/** What makes two steps "the same": same tool and canonical arguments, or the same model output or turn text. */
import type { Step } from "../trajectory/types.ts";
import { normalizeText } from "./text.ts";

/** Null when the step's identity is unknown (tool arguments or LLM content not captured). */
export function stepSignature(step: Step): string | null {
  if (step.kind === "llm" || step.kind === "message") return step.outputText === null ? null : `${step.kind}:${normalizeText(step.outputText)}`;
  if (step.toolName === null || step.args === null) return null;
  return `${step.kind}:${step.toolName.toLowerCase()}:${step.args}`;
}

export function describeStep(step: Step): string {
  if (step.kind === "llm") return "the same message";
  if (step.kind === "message") return "the same turn";
  return `${step.toolName ?? "tool"}(${step.args ?? ""})`;
}
