/**
 * Operation-kind classification, docs/conventions.md §4.1: ordered rules, the
 * first that matches wins. `gen_ai.agent.name` alone is never evidence of an
 * agent span (OpenLLMetry, pydantic-ai baggage and handoff spans all copy it
 * onto spans that are not agents).
 */
import type { Attributes, DecodedSpan, OperationKind } from "@crux/core";
import { GEN_AI, LANGFUSE, LOGFIRE, MASTRA, OPENINFERENCE, TRACELOOP, VERCEL_AI } from "../semconv.ts";
import { firstStr, str } from "./attrs.ts";

/** Which convention produced a span's normalized fields (docs/conventions.md §4.1); core stores it as an opaque label. */
export type Convention = "otel_genai" | "openinference" | "openllmetry" | "vercel_ai" | "logfire" | "mastra" | "langfuse" | "fallback" | "none";

export interface Classification {
  operation: OperationKind;
  convention: Convention;
  /** Tool name, read only for tool and handoff spans (null otherwise). */
  toolName: string | null;
}

const LLM_OPS = new Set([
  "chat",
  "text_completion",
  "generate_content",
  "embeddings",
  "chat.completions",
  "chat.streaming_completions",
  "text.completions",
  "llm_request",
]);
const AGENT_OPS = new Set(["invoke_agent", "create_agent"]);
const HANDOFF_OPS = new Set(["handoff", "agent_handoff", "goto"]);
const OTHER_OPS = new Set([
  "invoke_workflow",
  "invoke_swarm",
  "invoke_graph",
  "invoke_node",
  "execute_task",
  "plan",
  "retrieval",
  "guardrail",
  "guardrail_check",
  "rerank",
  "speech_generation",
  "transcription",
  "vector_db_retrieve",
]);

/** gen_ai.operation.name values of @mastra/otel-exporter 0.x (core 0.24.x). */
const MASTRA_OPS = new Set(["agent.run", "tool.execute", "tool_selection", "model.step", "model.chunk", "workflow.run"]);

/** Keys whose presence makes an unclassified span an LLM call (rule 6). */
const TOKEN_KEYS = [
  GEN_AI.inputTokens,
  GEN_AI.outputTokens,
  GEN_AI.promptTokens,
  GEN_AI.completionTokens,
  OPENINFERENCE.promptTokens,
  OPENINFERENCE.completionTokens,
  VERCEL_AI.inputTokens,
  VERCEL_AI.outputTokens,
  VERCEL_AI.promptTokens,
  VERCEL_AI.completionTokens,
] as const;

export function classify(span: DecodedSpan): Classification {
  const a = span.attributes;
  const op = str(a, GEN_AI.operationName);

  const mastraType = str(a, MASTRA.spanType);
  if (mastraType !== null || (op !== null && MASTRA_OPS.has(op)) || span.scope.name.startsWith("@mastra/")) {
    const operation = classifyMastra(mastraType, op, span.name);
    if (operation !== null) return finish(span, operation, "mastra");
  }

  // Rule 1: gen_ai.operation.name.
  if (op !== null) {
    const traceloopKind = str(a, TRACELOOP.spanKind);
    const convention: Convention = isOpenLlmetry(a, traceloopKind) ? "openllmetry" : "otel_genai";
    if (LLM_OPS.has(op)) return finish(span, "llm", convention);
    if (AGENT_OPS.has(op)) {
      // OpenLLMetry marks workflows and tasks invoke_agent too; they are not agents.
      const notAgent = traceloopKind === "workflow" || traceloopKind === "task" || isOtelOpenAiAgentsWorkflowRoot(span);
      return finish(span, notAgent ? "other" : "agent", convention);
    }
    if (op === "execute_tool") return finish(span, "tool", convention);
    if (HANDOFF_OPS.has(op)) return finish(span, "handoff", convention);
    if (OTHER_OPS.has(op)) return finish(span, "other", convention);
    // Unknown values fall through to the vendor rules.
  }

  // Rule 2: OpenInference.
  const oiKind = str(a, OPENINFERENCE.spanKind);
  if (oiKind !== null) {
    const kind = oiKind.toUpperCase();
    if (kind === "AGENT") {
      // OpenInference's LangChain instrumentor marks AGENT any run whose name contains "agent"
      // (a react node "agent", a tool "transfer_to_booking_agent"): inside a LangGraph graph the
      // agents are the nodes named in the metadata (docs/conventions.md §3.5), not these spans.
      if (carriesLangGraphMetadata(span.attributes)) {
        return finish(span, firstStr(a, [OPENINFERENCE.toolName]) !== null ? "tool" : "other", "openinference");
      }
      return finish(span, isOpenAiAgentsWorkflowRoot(span) ? "other" : "agent", "openinference");
    }
    if (kind === "LLM" || kind === "EMBEDDING") return finish(span, "llm", "openinference");
    if (kind === "TOOL") return finish(span, span.name.startsWith("handoff to ") ? "handoff" : "tool", "openinference");
    return finish(span, "other", "openinference");
  }

  // Rule 3: OpenLLMetry / Traceloop span kinds and legacy LLM spans.
  const traceloopKind = str(a, TRACELOOP.spanKind);
  if (traceloopKind !== null) {
    if (traceloopKind === "agent") return finish(span, "agent", "openllmetry");
    if (traceloopKind === "tool") return finish(span, "tool", "openllmetry");
    if (traceloopKind === "handoff") return finish(span, "handoff", "openllmetry");
    if (traceloopKind === "workflow" || traceloopKind === "task") return finish(span, "other", "openllmetry");
  }
  if (a[TRACELOOP.llmRequestType] !== undefined) return finish(span, "llm", "openllmetry");

  // Rule 4: Vercel AI SDK legacy spans (operation id or span name).
  const vercelOp = str(a, VERCEL_AI.operationId) ?? (span.name.startsWith("ai.") ? span.name : null);
  if (vercelOp !== null) return finish(span, classifyVercel(vercelOp), "vercel_ai");

  // Rule 5: logfire message templates (OpenAI Agents integration).
  const template = str(a, LOGFIRE.msgTemplate);
  if (template !== null) {
    const operation = classifyLogfire(template);
    if (operation !== null) return finish(span, operation, "logfire");
  }

  // Rule 6: Langfuse observation types (an unknown type falls through).
  const langfuseType = str(a, LANGFUSE.observationType);
  if (langfuseType !== null) {
    const operation = classifyLangfuse(langfuseType);
    if (operation !== null) return finish(span, operation, "langfuse");
  }

  // Rule 7: fallback on evidence.
  for (const key of TOKEN_KEYS) {
    if (a[key] !== undefined) return finish(span, "llm", "fallback");
  }
  if (str(a, GEN_AI.requestModel) !== null) return finish(span, "llm", "fallback");
  if (firstStr(a, [GEN_AI.toolName, OPENINFERENCE.toolName]) !== null) return finish(span, "tool", "fallback");
  // pydantic-ai instrumentation v2 agent run (no operation name).
  if (span.name === "agent run" && str(a, "agent_name") !== null) return finish(span, "agent", "fallback");
  return { operation: "other", convention: "none", toolName: null };
}

/**
 * The OpenInference OpenAI Agents bridges export the trace (workflow) as an
 * AGENT span named after the workflow; real agent spans carry graph.node.id.
 */
function isOpenAiAgentsWorkflowRoot(span: DecodedSpan): boolean {
  const scope = span.scope.name;
  if (!scope.includes("openai-agents") && !scope.includes("openai_agents")) return false;
  return span.attributes[OPENINFERENCE.graphNodeId] === undefined && span.attributes[OPENINFERENCE.agentName] === undefined;
}

/**
 * The OTel contrib OpenAI Agents instrumentation exports the SDK trace (the workflow) as an
 * `invoke_agent` span named after the workflow, with no agent name; real agents carry one.
 */
function isOtelOpenAiAgentsWorkflowRoot(span: DecodedSpan): boolean {
  if (!span.scope.name.startsWith("opentelemetry.instrumentation.openai_agents")) return false;
  return str(span.attributes, GEN_AI.agentName) === null;
}

/** OpenInference LangChain spans inside a LangGraph graph: `metadata` (a JSON string) names the graph node. */
function carriesLangGraphMetadata(a: Attributes): boolean {
  const metadata = a[OPENINFERENCE.metadata];
  return typeof metadata === "string" && metadata.includes('"langgraph_node"');
}

function isOpenLlmetry(a: Attributes, traceloopKind: string | null): boolean {
  return (
    traceloopKind !== null || a[TRACELOOP.workflowName] !== undefined || a[TRACELOOP.entityName] !== undefined || a[TRACELOOP.llmRequestType] !== undefined
  );
}

function classifyMastra(spanType: string | null, op: string | null, name: string): OperationKind | null {
  switch (spanType) {
    case "agent_run":
      return "agent";
    case "model_generation":
    case "llm_generation":
      return "llm";
    case "tool_call":
    case "mcp_tool_call":
    case "provider_tool_call":
      return "tool";
    case null:
      break;
    default:
      // model_step, model_chunk, workflow_*, generic: structure, not calls.
      return "other";
  }
  if (op === "agent.run" || op === "invoke_agent") return "agent";
  if (op === "chat" || op === "tool_selection") return "llm";
  if (op === "tool.execute" || op === "execute_tool") return "tool";
  if (op !== null && MASTRA_OPS.has(op)) return "other";
  if (name === "agent.run" || (name.startsWith("agent.") && name.length > 6)) return "agent";
  if (name.startsWith("tool.execute")) return "tool";
  if (name === "chat" || name.startsWith("chat ") || name.startsWith("tool_selection")) return "llm";
  if (name.startsWith("model.") || name.startsWith("workflow.")) return "other";
  return null;
}

function classifyVercel(opId: string): OperationKind {
  if (opId.endsWith(".doGenerate") || opId.endsWith(".doStream") || opId.endsWith(".doEmbed")) return "llm";
  if (opId === "ai.toolCall") return "tool";
  if (opId === "ai.generateText" || opId === "ai.streamText" || opId === "ai.generateObject" || opId === "ai.streamObject") {
    return "agent";
  }
  return "other";
}

function classifyLangfuse(type: string): OperationKind | null {
  switch (type) {
    case "agent":
      return "agent";
    case "generation":
    case "embedding":
      return "llm";
    case "tool":
      return "tool";
    case "span":
    case "chain":
    case "retriever":
    case "evaluator":
    case "guardrail":
    case "event":
      return "other";
    default:
      return null;
  }
}

function classifyLogfire(template: string): OperationKind | null {
  if (template.startsWith("Agent run:")) return "agent";
  if (template.startsWith("Handoff:")) return "handoff";
  if (template.startsWith("Function:")) return "tool";
  if (template.startsWith("Chat completion with") || template.startsWith("Responses API")) return "llm";
  return null;
}

/** Reads the tool name of tool spans and turns transfer/handoff tools into handoffs. */
function finish(span: DecodedSpan, operation: OperationKind, convention: Convention): Classification {
  if (operation !== "tool" && operation !== "handoff") return { operation, convention, toolName: null };
  const toolName = readToolName(span);
  if (operation === "tool" && (isHandoffToolName(toolName) || hasTransferTarget(span.attributes))) {
    return { operation: "handoff", convention, toolName };
  }
  return { operation, convention, toolName };
}

function hasTransferTarget(a: Attributes): boolean {
  return a[GEN_AI.transferTargetName] !== undefined || a[GEN_AI.transferTargetId] !== undefined || a[GEN_AI.transferMode] !== undefined;
}

/**
 * Handoff tools by name: LangGraph supervisor/swarm `transfer_to_<agent>`,
 * OpenAI Agents `transfer_to_<agent>`, MAF `handoff_to_<id>`, ADK
 * `transfer_to_agent`, Strands `handoff_to_agent`, CrewAI delegation.
 */
function isHandoffToolName(name: string | null): boolean {
  if (name === null) return false;
  if (name.startsWith("transfer_to_") || name.startsWith("handoff_to_")) return true;
  const lower = name.toLowerCase();
  return lower.includes("delegate_work_to_coworker") || lower.includes("delegate work to coworker");
}

/** Tool name per docs/conventions.md §4.2 "Tool name". */
function readToolName(span: DecodedSpan): string | null {
  const a = span.attributes;
  const direct = firstStr(a, [GEN_AI.toolName, OPENINFERENCE.toolName, VERCEL_AI.toolCallName]);
  if (direct !== null) return direct;
  if (str(a, TRACELOOP.spanKind) === "tool") {
    const entity = str(a, TRACELOOP.entityName);
    if (entity !== null) return entity;
  }
  const template = str(a, LOGFIRE.msgTemplate);
  if (template !== null && template.startsWith("Function:")) {
    const name = str(a, LOGFIRE.name);
    if (name !== null) return name;
  }
  // A Langfuse tool observation is named by its span name, verbatim.
  if (str(a, LANGFUSE.observationType) === "tool") return span.name;
  return parseToolSpanName(span.name);
}

function parseToolSpanName(name: string): string | null {
  for (const prefix of ["execute_tool ", "tool.execute "]) {
    if (name.startsWith(prefix)) {
      const rest = name.slice(prefix.length).trim();
      if (rest === "") return null;
      // genai draft: `execute_tool transfer_to_weather_agent weather_agent` appends the target.
      const space = rest.indexOf(" ");
      return space > 0 && isHandoffToolName(rest.slice(0, space)) ? rest.slice(0, space) : rest;
    }
  }
  if (name.endsWith(".tool") && name.length > 5) return name.slice(0, -5);
  return null;
}
