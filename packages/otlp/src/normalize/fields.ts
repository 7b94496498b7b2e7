/**
 * Field extraction by the precedence table of docs/conventions.md §4.2: for each
 * concept, read the sources left to right and keep the first non-empty one.
 */
import type { Attributes, DecodedSpan, OperationKind } from "@crux/core";
import type { Convention } from "./classify.ts";
import { ADK, GEN_AI, LANGFUSE, LANGSMITH, LOGFIRE, MASTRA, OPENINFERENCE, PYDANTIC_AI, SERVICE_NAME, TRACELOOP, VERCEL_AI } from "../semconv.ts";
import { asObject, count, firstCount, firstStr, str } from "./attrs.ts";
import { readLangfuseCost, readLangfuseUsage } from "./langfuse.ts";

const INPUT_TOKEN_KEYS = [GEN_AI.inputTokens, GEN_AI.promptTokens, OPENINFERENCE.promptTokens, VERCEL_AI.inputTokens, VERCEL_AI.promptTokens] as const;
const OUTPUT_TOKEN_KEYS = [
  GEN_AI.outputTokens,
  GEN_AI.completionTokens,
  OPENINFERENCE.completionTokens,
  VERCEL_AI.outputTokens,
  VERCEL_AI.completionTokens,
] as const;
const CACHED_TOKEN_KEYS = [
  GEN_AI.cacheReadInputTokens,
  GEN_AI.cacheReadInputTokensLegacy,
  OPENINFERENCE.cacheReadTokens,
  VERCEL_AI.cacheReadTokens,
  VERCEL_AI.cachedInputTokens,
  GEN_AI.detailsCacheReadTokens,
  MASTRA.cachedInputTokens,
] as const;
const MODEL_KEYS = [
  GEN_AI.responseModel,
  GEN_AI.requestModel,
  OPENINFERENCE.responseModelName,
  OPENINFERENCE.modelName,
  OPENINFERENCE.requestModelName,
  OPENINFERENCE.embeddingModelName,
  VERCEL_AI.responseModel,
  VERCEL_AI.modelId,
  LANGFUSE.model,
] as const;
const PROVIDER_KEYS = [GEN_AI.providerName, GEN_AI.system, OPENINFERENCE.provider, OPENINFERENCE.system, VERCEL_AI.modelProvider] as const;
const CONVERSATION_KEYS = [
  GEN_AI.conversationId,
  OPENINFERENCE.sessionId,
  TRACELOOP.threadId,
  TRACELOOP.sessionId,
  TRACELOOP.conversationId,
  LANGSMITH.threadId,
  LANGSMITH.sessionId,
  ADK.sessionId,
  VERCEL_AI.sessionId,
  VERCEL_AI.threadId,
] as const;

/** Model-call span names are `{operation} {model}`. */
const MODEL_NAME_PREFIXES = ["chat ", "text_completion ", "generate_content ", "embeddings ", "tool_selection "];

export interface Usage {
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
  cost: number | null;
}

export function readUsage(a: Attributes, operation: OperationKind): Usage {
  let inputTokens = firstCount(a, INPUT_TOKEN_KEYS);
  let outputTokens = firstCount(a, OUTPUT_TOKEN_KEYS);
  let cachedTokens = firstCount(a, CACHED_TOKEN_KEYS);
  // pydantic-ai run totals: only an agent span may carry them.
  if (operation === "agent") {
    inputTokens ??= count(a, GEN_AI.aggregatedInputTokens);
    outputTokens ??= count(a, GEN_AI.aggregatedOutputTokens);
    cachedTokens ??= count(a, GEN_AI.aggregatedCacheReadTokens);
  }
  // Langfuse's usage JSON is the last source, read as a whole (its input leaves the cached part out).
  if (inputTokens === null && outputTokens === null && cachedTokens === null && a[LANGFUSE.usageDetails] !== undefined) {
    const langfuse = readLangfuseUsage(a[LANGFUSE.usageDetails]);
    if (langfuse !== null) ({ inputTokens, outputTokens, cachedTokens } = langfuse);
  }
  return { inputTokens, outputTokens, cachedTokens, cost: readCost(a) };
}

function readCost(a: Attributes): number | null {
  const total = firstCount(a, [OPENINFERENCE.costTotal, GEN_AI.cost, GEN_AI.costUsd]);
  if (total !== null) return total;
  const prompt = count(a, OPENINFERENCE.costPrompt);
  const completion = count(a, OPENINFERENCE.costCompletion);
  if (prompt !== null || completion !== null) return (prompt ?? 0) + (completion ?? 0);
  return a[LANGFUSE.costDetails] === undefined ? null : readLangfuseCost(a[LANGFUSE.costDetails]);
}

/** Agent name of an agent span (§4.2 "Agent name"); the span name is the last resort. */
export function readAgentSpanName(span: DecodedSpan, convention: Convention): string {
  const a = span.attributes;
  const direct = firstStr(a, [GEN_AI.agentName, OPENINFERENCE.agentName, OPENINFERENCE.graphNodeId]);
  if (direct !== null) return direct;
  // A Langfuse agent observation is named by its span name, verbatim.
  if (convention === "langfuse") return span.name;
  if (str(a, TRACELOOP.spanKind) === "agent") {
    const entity = str(a, TRACELOOP.entityName);
    if (entity !== null) return entity;
  }
  if (convention === "logfire") {
    const name = str(a, LOGFIRE.name);
    if (name !== null) return name;
  }
  const functionId = str(a, VERCEL_AI.functionId);
  if (functionId !== null) return functionId;
  // Mastra keys agents by id: its agent.run spans carry only the id.
  if (convention === "mastra") {
    const id = firstStr(a, [GEN_AI.agentId, MASTRA.agentId]);
    if (id !== null) return id;
  }
  return parseAgentSpanName(span, convention) ?? str(a, PYDANTIC_AI.agentName) ?? span.name;
}

function parseAgentSpanName(span: DecodedSpan, convention: Convention): string | null {
  const name = span.name;
  // smolagents through OpenInference: `<agent>.run`, with no agent-name attribute.
  if (convention === "openinference" && name.endsWith(".run") && name.length > 4) return name.slice(0, -4);
  if (name.startsWith("invoke_agent ")) {
    const rest = name.slice(13).trim();
    // AI SDK v7 names its root `invoke_agent {modelId}`: a model id is not an agent name.
    const model = firstStr(span.attributes, [GEN_AI.requestModel, GEN_AI.responseModel]);
    return rest !== "" && rest !== model ? rest : null;
  }
  if (name.endsWith(".agent") && name.length > 6) return name.slice(0, -6);
  const msg = str(span.attributes, LOGFIRE.msg);
  if (msg !== null && msg.startsWith("Agent run: ")) return stripQuotes(msg.slice(11).trim());
  if (name.startsWith("agent.") && name !== "agent.run" && name.length > 6) return name.slice(6);
  return null;
}

function stripQuotes(v: string): string {
  const first = v.charAt(0);
  if (v.length >= 2 && (first === "'" || first === '"') && v.charAt(v.length - 1) === first) return v.slice(1, -1);
  return v;
}

/**
 * The agent name a non-agent span carries (§4.2 "Agent of a non-agent
 * span"): propagated gen_ai.agent.name, else the LangGraph node. A hint only:
 * the owning agent is decided over the tree by attributeAgents().
 */
export function readPropagatedAgentName(a: Attributes): string | null {
  const direct = str(a, GEN_AI.agentName);
  if (direct !== null) return direct;
  const fromTraceloop = langgraphAgent(str(a, TRACELOOP.langgraphCheckpointNs), str(a, TRACELOOP.langgraphNode));
  if (fromTraceloop !== null) return fromTraceloop;
  const metadata = a[OPENINFERENCE.metadata];
  // Cheap precheck before parsing OpenInference's JSON metadata blob.
  if (typeof metadata === "string" && metadata.includes("langgraph_")) {
    const parsed = asObject(metadata);
    if (parsed !== null) {
      const ns = parsed["langgraph_checkpoint_ns"];
      const node = parsed["langgraph_node"];
      const fromMetadata = langgraphAgent(typeof ns === "string" ? ns : null, typeof node === "string" ? node : null);
      if (fromMetadata !== null) return fromMetadata;
    }
  }
  return langgraphAgent(str(a, LANGSMITH.langgraphCheckpointNs), str(a, LANGSMITH.langgraphNode));
}

/**
 * LangGraph's agent for a span: the first segment of langgraph_checkpoint_ns
 * (`research_expert:<uuid>|tools:<uuid>`) names the outermost graph node on
 * every span inside it, while langgraph_node names the innermost node
 * ("agent", "tools" inside a prebuilt worker). Internal nodes (`__start__`)
 * are never agents.
 */
function langgraphAgent(checkpointNs: string | null, node: string | null): string | null {
  if (checkpointNs !== null) {
    let end = checkpointNs.length;
    for (const sep of [":", "|"]) {
      const at = checkpointNs.indexOf(sep);
      if (at >= 0 && at < end) end = at;
    }
    const outer = checkpointNs.slice(0, end);
    if (outer !== "" && !isInternalNode(outer)) return outer;
  }
  return node !== null && node !== "" && !isInternalNode(node) ? node : null;
}

function isInternalNode(name: string): boolean {
  return name.startsWith("__") && name.endsWith("__");
}

export function readAgentId(a: Attributes, convention: Convention): string | null {
  const id = firstStr(a, [GEN_AI.agentId, GEN_AI.agentCallId]);
  if (id !== null || convention !== "mastra") return id;
  return str(a, MASTRA.agentId);
}

export function readModel(span: DecodedSpan, operation: OperationKind): string | null {
  const model = firstStr(span.attributes, MODEL_KEYS);
  if (model !== null || operation !== "llm") return model;
  for (const prefix of MODEL_NAME_PREFIXES) {
    if (span.name.startsWith(prefix)) {
      const rest = span.name.slice(prefix.length).trim();
      return rest === "" || rest === "unknown" ? null : rest;
    }
  }
  return null;
}

/** Values that name the agent framework, not the model provider. */
const FRAMEWORK_VALUES = new Set(["strands-agents", "gcp.vertex.agent", "crewai", "langgraph", "langchain"]);
/** Deprecated gen_ai.system values and pre-0.5 OpenLLMetry spellings (already lowercased). */
const LEGACY_PROVIDERS: Record<string, string> = {
  "az.ai.openai": "azure.ai.openai",
  "az.ai.inference": "azure.ai.inference",
  vertex_ai: "gcp.vertex_ai",
  vertexai: "gcp.vertex_ai",
  gemini: "gcp.gemini",
  xai: "x_ai",
  mistralai: "mistral_ai",
};

export function readProvider(a: Attributes, convention: Convention): string | null {
  for (const key of PROVIDER_KEYS) {
    let value = str(a, key);
    if (value === null) continue;
    value = value.toLowerCase();
    if (FRAMEWORK_VALUES.has(value)) continue;
    // AI SDK provider ids are `{provider}.{api}` (openai.chat, anthropic.messages).
    if (key === VERCEL_AI.modelProvider || convention === "vercel_ai" || convention === "mastra") {
      const dot = value.indexOf(".");
      if (dot > 0) value = value.slice(0, dot);
    }
    return LEGACY_PROVIDERS[value] ?? value;
  }
  return null;
}

export function readConversationId(a: Attributes, convention: Convention): string | null {
  const id = firstStr(a, CONVERSATION_KEYS);
  if (id !== null || convention !== "mastra") return id;
  return str(a, MASTRA.threadId);
}

export function readServiceName(span: DecodedSpan): string | null {
  return str(span.resource, SERVICE_NAME);
}
