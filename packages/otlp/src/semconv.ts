/**
 * Attribute keys the normalizer reads, grouped by convention. Pinned to the
 * versions in docs/conventions.md §1: OTel semantic-conventions v1.41.0 (GenAI,
 * Development) + semantic-conventions-genai registry e8fc5751; OpenInference
 * semconv 0.1.32; OpenLLMetry 0.62.1 (semconv-ai 0.5.2, legacy 0.4.15);
 * Vercel AI SDK ai 7.0.77 (legacy `ai.*` spans of ai 4.x-6.x included);
 * logfire 4.41.0; pydantic-ai v2.33.0; @mastra/otel-exporter for
 * @mastra/core 0.24.x; @langfuse/tracing 5.11.1. Every attribute key Crux reads is defined here (core
 * reads none). Keys only: no behaviour lives here.
 */

/** OTel GenAI (v1.41.0, plus deprecated names still emitted). */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  /** Deprecated in v1.37 for gen_ai.provider.name. */
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  /** pydantic-ai run id (per run, not stable). */
  agentCallId: "gen_ai.agent.call.id",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolCallArguments: "gen_ai.tool.call.arguments",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  /** Deprecated in v1.28 for input_tokens / output_tokens. */
  promptTokens: "gen_ai.usage.prompt_tokens",
  completionTokens: "gen_ai.usage.completion_tokens",
  cacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  /** OpenLLMetry <=0.54 and Strands spelling. */
  cacheReadInputTokensLegacy: "gen_ai.usage.cache_read_input_tokens",
  /** pydantic-ai back-compat detail key. */
  detailsCacheReadTokens: "gen_ai.usage.details.cache_read_tokens",
  /** pydantic-ai agent-level run totals (never per call). */
  aggregatedInputTokens: "gen_ai.aggregated_usage.input_tokens",
  aggregatedOutputTokens: "gen_ai.aggregated_usage.output_tokens",
  aggregatedCacheReadTokens: "gen_ai.aggregated_usage.cache_read.input_tokens",
  cost: "gen_ai.usage.cost",
  costUsd: "gen_ai.usage.cost_usd",
  /** semantic-conventions-genai [in flux]: agent invoked as a tool. */
  transferTargetName: "gen_ai.transfer.target.name",
  transferTargetId: "gen_ai.transfer.target.id",
  transferMode: "gen_ai.transfer.mode",
  /** OpenLLMetry / OTel contrib openai-agents handoff spans. */
  handoffFromAgent: "gen_ai.handoff.from_agent",
  handoffToAgent: "gen_ai.handoff.to_agent",
  /** OpenLLMetry back-link on the target agent span. */
  agentHandoffParent: "gen_ai.agent.handoff_parent",
  /** Content (opt-in): chat messages as JSON or structured values. */
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  toolCallResult: "gen_ai.tool.call.result",
  /** Deprecated content attributes (OpenLLMetry <=0.54 also flattens them: gen_ai.prompt.<i>.content). */
  prompt: "gen_ai.prompt",
  completion: "gen_ai.completion",
  finishReasons: "gen_ai.response.finish_reasons",
  /** Singular spellings some tracers emit. */
  finishReason: "gen_ai.response.finish_reason",
  stopReason: "gen_ai.response.stop_reason",
  agentEndReason: "gen_ai.agent.end_reason",
  evaluationScoreLabel: "gen_ai.evaluation.score.label",
  /** Deprecated per-choice event that still carries the completion (Strands, Semantic Kernel, MAF). */
  choiceEvent: "gen_ai.choice",
} as const;

/** Attributes of the gen_ai.choice event that may hold the completion, in order. */
export const CHOICE_EVENT_CONTENT_KEYS = ["message", "body", "content"] as const;

/** Flattened indexed content keys (OpenInference llm.*_messages.<i>.message.*, OpenLLMetry legacy gen_ai.prompt|completion.<i>.*). */
export const FLATTENED = {
  inputMessagePrefix: "llm.input_messages.",
  outputMessagePrefix: "llm.output_messages.",
  promptPrefix: "gen_ai.prompt.",
  completionPrefix: "gen_ai.completion.",
  inputMessageContent: /^llm\.input_messages\.(\d+)\.message\.content$/,
  outputMessageContent: /^llm\.output_messages\.(\d+)\.message\.content$/,
  promptContent: /^gen_ai\.prompt\.(\d+)\.content$/,
  completionContent: /^gen_ai\.completion\.(\d+)\.content$/,
  finishReason: /^(gen_ai\.completion|llm\.output_messages)\.\d+\.(message\.)?finish_reason$/,
} as const;

export const ERROR_TYPE = "error.type";
export const EXCEPTION_EVENT = "exception";
export const EXCEPTION_TYPE = "exception.type";
export const EXCEPTION_MESSAGE = "exception.message";
export const SERVICE_NAME = "service.name";

/** OpenInference (semconv 0.1.32). */
export const OPENINFERENCE = {
  spanKind: "openinference.span.kind",
  agentName: "agent.name",
  graphNodeId: "graph.node.id",
  graphNodeParentId: "graph.node.parent_id",
  modelName: "llm.model_name",
  requestModelName: "llm.request.model_name",
  responseModelName: "llm.response.model_name",
  embeddingModelName: "embedding.model_name",
  provider: "llm.provider",
  system: "llm.system",
  promptTokens: "llm.token_count.prompt",
  completionTokens: "llm.token_count.completion",
  cacheReadTokens: "llm.token_count.prompt_details.cache_read",
  costTotal: "llm.cost.total",
  costPrompt: "llm.cost.prompt",
  costCompletion: "llm.cost.completion",
  toolName: "tool.name",
  toolId: "tool.id",
  toolCallId: "tool_call.id",
  inputValue: "input.value",
  outputValue: "output.value",
  sessionId: "session.id",
  /** JSON string; LangGraph puts langgraph_node here. */
  metadata: "metadata",
} as const;

/** OpenLLMetry / Traceloop (0.62.1; legacy 0.4.x keys included). */
export const TRACELOOP = {
  spanKind: "traceloop.span.kind",
  entityName: "traceloop.entity.name",
  entityInput: "traceloop.entity.input",
  entityOutput: "traceloop.entity.output",
  workflowName: "traceloop.workflow.name",
  /** Present on legacy (<=0.54) LLM spans. */
  llmRequestType: "llm.request.type",
  langgraphNode: "traceloop.association.properties.langgraph_node",
  langgraphCheckpointNs: "traceloop.association.properties.langgraph_checkpoint_ns",
  threadId: "traceloop.association.properties.thread_id",
  sessionId: "traceloop.association.properties.session_id",
  conversationId: "traceloop.association.properties.conversation_id",
  gotoNode: "langgraph.command.goto_node",
  gotoNodes: "langgraph.command.goto_nodes",
} as const;

export const LANGSMITH = {
  langgraphNode: "langsmith.metadata.langgraph_node",
  langgraphCheckpointNs: "langsmith.metadata.langgraph_checkpoint_ns",
  threadId: "langsmith.metadata.thread_id",
  sessionId: "langsmith.metadata.session_id",
} as const;

/** Vercel AI SDK legacy `ai.*` spans (ai 4.x-6.x, v7 LegacyOpenTelemetry). */
export const VERCEL_AI = {
  operationId: "ai.operationId",
  functionId: "ai.telemetry.functionId",
  modelId: "ai.model.id",
  modelProvider: "ai.model.provider",
  responseModel: "ai.response.model",
  inputTokens: "ai.usage.inputTokens",
  outputTokens: "ai.usage.outputTokens",
  promptTokens: "ai.usage.promptTokens",
  completionTokens: "ai.usage.completionTokens",
  cacheReadTokens: "ai.usage.inputTokenDetails.cacheReadTokens",
  cachedInputTokens: "ai.usage.cachedInputTokens",
  toolCallName: "ai.toolCall.name",
  toolCallId: "ai.toolCall.id",
  toolCallArgs: "ai.toolCall.args",
  toolCallResult: "ai.toolCall.result",
  promptMessages: "ai.prompt.messages",
  prompt: "ai.prompt",
  responseText: "ai.response.text",
  responseObject: "ai.response.object",
  responseToolCalls: "ai.response.toolCalls",
  responseFinishReason: "ai.response.finishReason",
  sessionId: "ai.telemetry.metadata.sessionId",
  threadId: "ai.telemetry.metadata.threadId",
} as const;

/** pydantic logfire (4.41.0): OpenAI Agents integration. */
export const LOGFIRE = {
  msgTemplate: "logfire.msg_template",
  msg: "logfire.msg",
  name: "name",
  fromAgent: "from_agent",
  toAgent: "to_agent",
  input: "input",
} as const;

/** Google ADK (scope gcp.vertex.agent). */
export const ADK = {
  sessionId: "gcp.vertex.agent.session_id",
  toolCallArgs: "gcp.vertex.agent.tool_call_args",
} as const;

/** pydantic-ai format v2 keys. */
export const PYDANTIC_AI = {
  agentName: "agent_name",
  toolArguments: "tool_arguments",
  toolResponse: "tool_response",
  /** Agent run spans: the run's final output. */
  finalResult: "final_result",
} as const;

/** @mastra/otel-exporter (for @mastra/core 0.24.x; newer versions also set gen_ai.* ops). */
export const MASTRA = {
  spanType: "mastra.span.type",
  /** Agent run spans: the agent's id (Mastra agents are keyed by id). */
  agentId: "agent.id",
  /** Model generation spans: cached input tokens. */
  cachedInputTokens: "gen_ai.usage.cached_input_tokens",
  /** Tool spans: the call's arguments and result (JSON strings). */
  toolInput: "gen_ai.tool.input",
  toolOutput: "gen_ai.tool.output",
  threadId: "threadId",
} as const;

/** Langfuse JS SDK (@langfuse/tracing + @langfuse/otel 5.11.1, scope `langfuse-sdk`). */
export const LANGFUSE = {
  /** agent | generation | embedding | tool | span | chain | retriever | evaluator | guardrail | event. */
  observationType: "langfuse.observation.type",
  /** DEBUG | DEFAULT | WARNING | ERROR; ERROR marks a failure while the OTel status stays unset. */
  level: "langfuse.observation.level",
  statusMessage: "langfuse.observation.status_message",
  model: "langfuse.observation.model.name",
  /** JSON object of token counts: `input` and `output` exclude their `input_*` / `output_*` detail keys (input_cached_tokens, ...). */
  usageDetails: "langfuse.observation.usage_details",
  /** JSON object of USD costs: `total`, else the sum of its parts. */
  costDetails: "langfuse.observation.cost_details",
  /** Any value; a JSON string unless it was a string. */
  input: "langfuse.observation.input",
  output: "langfuse.observation.output",
} as const;

/**
 * Keys inside langfuse.observation.usage_details. Langfuse's own shape splits
 * input and output: `input` leaves out every `input_*` detail (its OpenAI
 * integration sends input = prompt_tokens - cached, plus input_cached_tokens)
 * and the Anthropic cache keys; `output` leaves out every `output_*` detail.
 * The SDK also accepts OpenAI usage objects as they are, whose totals include
 * their details.
 */
export const LANGFUSE_USAGE = {
  input: "input",
  output: "output",
  inputDetailPrefix: "input_",
  outputDetailPrefix: "output_",
  /** Cached input, in order: OpenAI integration, LangChain handler, Anthropic spelling. */
  cachedKeys: ["input_cached_tokens", "input_cache_read", "cache_read_input_tokens"],
  /** Anthropic cache keys, left out of `input` like the `input_*` details. */
  anthropicInputKeys: ["cache_read_input_tokens", "cache_creation_input_tokens"],
  /** OpenAI usage objects (chat completions, responses, the SDK's camel-case form): totals, cached part nested. */
  openAiInputKeys: ["prompt_tokens", "input_tokens", "promptTokens"],
  openAiOutputKeys: ["completion_tokens", "output_tokens", "completionTokens"],
  openAiInputDetails: ["prompt_tokens_details", "input_tokens_details"],
  openAiCachedKey: "cached_tokens",
} as const;

/** Keys inside langfuse.observation.cost_details. */
export const LANGFUSE_COST = { total: "total" } as const;

/** Crux run / experiment tags (docs/conventions.md §7), read from span then resource attributes. */
export const CRUX_TAGS = {
  outcomeSuccess: "crux.outcome.success",
  outcomeScore: "crux.outcome.score",
  taskId: "crux.task.id",
  variant: "crux.variant",
  baseline: "crux.baseline",
  experimentId: "crux.experiment.id",
  seed: "crux.seed",
  /** The trial number of an experiment run (an integer from 0 or 1, the tracer's choice). */
  trial: "crux.trial",
  /** The active agents of an ablation run: a string array, or one comma-separated string. */
  activeAgents: "crux.agents.active",
  replayId: "crux.replay.id",
  /** The task statement: goal drift and dropped-constraint checks compare handoffs against it. */
  taskGoal: "crux.task.goal",
} as const;

export const CRUX_TAG_KEYS: readonly string[] = Object.values(CRUX_TAGS);

/** Crux's own detector attributes (docs/failure-modes.md §3). */
export const CRUX = {
  endReason: "crux.end_reason",
  terminationReason: "crux.termination.reason",
  verdict: "crux.verdict",
  verificationVerdict: "crux.verification.verdict",
} as const;

/** Keys frameworks emit outside any published convention. */
export const UNVERSIONED = {
  finishReason: "llm.finish_reason",
  endReason: "end_reason",
  terminationReason: "termination_reason",
  stopReason: "stop_reason",
} as const;

/** Placeholder some tracers (Google ADK) write instead of leaving a value unset. */
export const NOT_SPECIFIED = "<not specified>";
