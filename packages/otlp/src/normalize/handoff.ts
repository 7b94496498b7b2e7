/**
 * Handoff source and target (docs/conventions.md §4.2 "Handoff source / target").
 * Only called for spans classified as handoffs. When no source is on the
 * span, attributeAgents() falls back to the owning agent.
 */
import type { AttrValue, DecodedSpan } from "@crux/core";
import { ADK, GEN_AI, LOGFIRE, MASTRA, OPENINFERENCE, PYDANTIC_AI, TRACELOOP, VERCEL_AI } from "../semconv.ts";
import { asObject, firstStr, str, unquote } from "./attrs.ts";

export interface Handoff {
  from: string | null;
  to: string | null;
}

/** Where handoff tools put their arguments, by convention. */
const TOOL_ARGUMENT_KEYS = [
  GEN_AI.toolCallArguments,
  VERCEL_AI.toolCallArgs,
  PYDANTIC_AI.toolArguments,
  ADK.toolCallArgs,
  MASTRA.toolInput,
  OPENINFERENCE.inputValue,
  LOGFIRE.input,
  TRACELOOP.entityInput,
] as const;

const ARROW = " → ";

export function readHandoff(span: DecodedSpan, toolName: string | null): Handoff {
  const a = span.attributes;
  const isOpenInferenceHandoff = span.name.startsWith("handoff to ");
  const arrow = parseArrowName(span);

  let from = firstStr(a, [GEN_AI.handoffFromAgent, LOGFIRE.fromAgent]);
  if (from === null && isOpenInferenceHandoff) from = openInferenceValue(a[OPENINFERENCE.inputValue], "from_agent");
  // On a transfer tool span gen_ai.agent.* describes the source agent (docs/conventions.md §3.4).
  from ??= str(a, GEN_AI.agentName) ?? arrow?.from ?? null;

  let to = firstStr(a, [GEN_AI.transferTargetName, GEN_AI.handoffToAgent, LOGFIRE.toAgent]);
  if (to === null && isOpenInferenceHandoff) {
    to = openInferenceValue(a[OPENINFERENCE.outputValue], "to_agent") ?? (span.name.slice(11).trim() || null);
  }
  to ??= arrow?.to ?? null;
  if (to === null && toolName !== null) to = targetFromTool(span, toolName);
  to ??= gotoTarget(span);
  return { from, to };
}

/**
 * OpenInference handoff values: a bare agent name (Python bridge) or a JSON
 * object `{"from_agent": ...}` / `{"to_agent": ...}` (JS bridge).
 */
function openInferenceValue(v: AttrValue | undefined, key: string): string | null {
  if (typeof v !== "string" || v === "") return null;
  const obj = asObject(v);
  if (obj !== null) {
    const named = obj[key];
    return typeof named === "string" && named !== "" ? named : null;
  }
  return unquote(v);
}

/** OpenLLMetry `{from} → {to}.handoff`, logfire `Handoff: {from} → {to}`. */
function parseArrowName(span: DecodedSpan): Handoff | null {
  let text = str(span.attributes, LOGFIRE.msg) ?? span.name;
  const at = text.indexOf(ARROW);
  if (at < 0) return null;
  if (text.startsWith("Handoff: ")) text = text.slice(9);
  if (text.endsWith(".handoff")) text = text.slice(0, -8);
  const split = text.indexOf(ARROW);
  const from = text.slice(0, split).trim();
  const to = text.slice(split + ARROW.length).trim();
  return { from: from === "" ? null : from, to: to === "" ? null : to };
}

/**
 * Target of a handoff tool: the `agent_name` argument (ADK transfer_to_agent,
 * Strands handoff_to_agent), CrewAI's `coworker` argument, else the tool-name
 * suffix (`transfer_to_billing` → billing, MAF `handoff_to_<id>`).
 */
function targetFromTool(span: DecodedSpan, toolName: string): string | null {
  const args = readToolArguments(span);
  const lower = toolName.toLowerCase();
  if (args !== null) {
    const named = args["agent_name"] ?? args["agentName"];
    if (typeof named === "string" && named !== "") return named;
    if (lower.includes("coworker")) {
      const coworker = args["coworker"];
      if (typeof coworker === "string" && coworker !== "") return coworker;
    }
  }
  if (toolName === "transfer_to_agent" || toolName === "handoff_to_agent") return null;
  for (const prefix of ["transfer_to_", "handoff_to_"]) {
    if (toolName.startsWith(prefix)) {
      const suffix = toolName.slice(prefix.length);
      return suffix === "" ? null : suffix;
    }
  }
  return null;
}

function readToolArguments(span: DecodedSpan): Record<string, AttrValue> | null {
  for (const key of TOOL_ARGUMENT_KEYS) {
    const parsed = asObject(span.attributes[key]);
    if (parsed === null) continue;
    // OpenLLMetry entity input is {"args": [...], "kwargs": {...}}.
    const kwargs = asObject(parsed["kwargs"]);
    return kwargs !== null && key === TRACELOOP.entityInput ? kwargs : parsed;
  }
  return null;
}

/** LangGraph Command(goto=...) recorded by OpenLLMetry as a `goto {target}` span. */
function gotoTarget(span: DecodedSpan): string | null {
  const node = str(span.attributes, TRACELOOP.gotoNode);
  if (node !== null) return node;
  const nodes = span.attributes[TRACELOOP.gotoNodes];
  if (Array.isArray(nodes) && typeof nodes[0] === "string" && nodes[0] !== "") return nodes[0];
  if (span.name.startsWith("goto ")) return span.name.slice(5).trim() || null;
  return null;
}
