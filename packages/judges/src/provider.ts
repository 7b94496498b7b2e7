/**
 * The only module that talks to a provider: one non-streaming completion
 * through the official SDK, Anthropic Messages or OpenAI-compatible Chat
 * Completions. The SDKs' own retries are off (maxRetries 0) so that every
 * HTTP call is one JudgeCallRecord and the retry policy is ours (call.ts);
 * every option the SDKs would otherwise read from the environment (base URL,
 * key, organization, telemetry) is passed explicitly, since packages never
 * read env. Failures leave as ProviderCallError, classified once here.
 *
 * Sampling (docs/judges.md §3): temperature 0 wherever the API takes it.
 * Anthropic's API version 2026-10-21, which SDK 1.x sends, rejects
 * temperature, top_p and top_k on every model (400), so Claude judges run at
 * the model's own sampling. OpenAI's reasoning families (o-series, gpt-5,
 * gpt-6) reject max_tokens and a temperature other than the default: they
 * get max_completion_tokens and low reasoning effort instead.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { JudgeCallRecord, JudgeModelSettings } from "@crux/contracts";
import { normalizeModelId } from "@crux/core";
import OpenAI from "openai";
import { endpointOf, errorDetailOf, redact } from "./errors.ts";

export interface CompletionRequest {
  system: string;
  messages: Array<{ role: "user" | "assistant"; content: string }>;
  maxOutputTokens: number;
}

interface Completion {
  text: string;
  inputTokens: number;
  outputTokens: number;
  /** "max_tokens" when the reply was cut at the output limit. */
  stopReason: string | null;
}

export interface ProviderClient {
  complete(request: CompletionRequest): Promise<Completion>;
}

/** Why a call failed: `permanent` ones (bad key, unknown model, rejected request) are not retried. */
export class ProviderCallError extends Error {
  override readonly name = "ProviderCallError";
  constructor(
    message: string,
    readonly outcome: Exclude<JudgeCallRecord["outcome"], "ok" | "invalid_reply">,
    readonly permanent: { code: string } | null,
    /** From retry-after-ms or retry-after (seconds or an HTTP date), when the provider sent one. */
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}

export const DEFAULT_BASE_URLS = { anthropic: "https://api.anthropic.com", openai: "https://api.openai.com/v1" } as const;

function retryAfterMsOf(headers: Headers | undefined, nowMs: number): number | null {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers?.get("retry-after");
  if (!after) return null;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error & { status: number | undefined; headers: Headers | undefined };
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
}

/** The errors of a cause chain with a code (the guarded fetch's refusal is BLOCKED_TARGET, a socket's ECONNREFUSED, ...). */
function causesWithCode(err: unknown): Array<{ code: string; message: string }> {
  const found: Array<{ code: string; message: string }> = [];
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") found.push({ code, message: e.message });
  }
  return found;
}

function classify(err: unknown, sdk: SdkErrorClasses, settings: JudgeModelSettings): ProviderCallError {
  const where = `${settings.provider} ${endpointOf(settings.baseUrl ?? DEFAULT_BASE_URLS[settings.provider])}`;
  const text = (m: string) => redact(m, settings.apiKey);
  if (err instanceof sdk.APIConnectionTimeoutError) return new ProviderCallError(`${where}: the call timed out`, "timeout", null, null);
  if (err instanceof sdk.APIConnectionError) {
    const causes = causesWithCode(err);
    // The outbound guard's own words (which rule refused the URL), never the URL's credentials.
    const blocked = causes.find((c) => c.code === "BLOCKED_TARGET");
    if (blocked) return new ProviderCallError(text(`${where}: refused: ${blocked.message}`), "provider_error", { code: "judge_target_refused" }, null);
    // The code only (ECONNREFUSED, ENOTFOUND, ...): a socket message can carry more than the endpoint.
    return new ProviderCallError(`${where}: connection failed${causes.length > 0 ? ` (${causes.at(-1)!.code})` : ""}`, "provider_error", null, null);
  }
  if (err instanceof sdk.APIError && err.status !== undefined) {
    const status = err.status;
    // Never the answer's body as it came (an HTML page, an internal service's reply): status, the
    // provider's error type and a short excerpt of its own error message (errorDetailOf).
    const detail = errorDetailOf((err as { error?: unknown }).error);
    const message = text(`${where} answered ${status}${detail.kind ? ` (${detail.kind})` : ""}${detail.excerpt ? `: ${detail.excerpt}` : ""}`);
    const retryAfterMs = retryAfterMsOf(err.headers, Date.now());
    if (status === 429) return new ProviderCallError(message, "rate_limited", null, retryAfterMs);
    if (status >= 500 || status === 408 || status === 409) return new ProviderCallError(message, "provider_error", null, retryAfterMs);
    if (status === 401 || status === 403)
      return new ProviderCallError(
        text(`${where} refused the judge API key (${status}); check the key in the judge settings`),
        "provider_error",
        { code: "judge_auth_failed" },
        null,
      );
    if (status === 404)
      return new ProviderCallError(
        text(`${where} has no model "${settings.model}" (404); check the model and base URL in the judge settings`),
        "provider_error",
        { code: "judge_model_not_found" },
        null,
      );
    return new ProviderCallError(message, "provider_error", { code: "judge_request_rejected" }, null);
  }
  return new ProviderCallError(`${where}: the call failed (${err instanceof Error ? err.name : typeof err})`, "provider_error", null, null);
}

export interface ProviderOptions {
  timeoutMs: number;
  fetch?: typeof fetch;
}

function anthropicClient(settings: JudgeModelSettings, options: ProviderOptions): ProviderClient {
  const client = new Anthropic({
    apiKey: settings.apiKey,
    baseURL: settings.baseUrl ?? DEFAULT_BASE_URLS.anthropic,
    webhookKey: null,
    timeout: options.timeoutMs,
    maxRetries: 0,
    logLevel: "off",
    openTelemetry: false,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    async complete(request) {
      try {
        const reply = await client.messages.create({
          model: settings.model,
          max_tokens: request.maxOutputTokens,
          system: request.system,
          messages: request.messages,
        });
        const text = reply.content.map((block) => (block.type === "text" ? block.text : "")).join("");
        return { text, inputTokens: reply.usage.input_tokens, outputTokens: reply.usage.output_tokens, stopReason: reply.stop_reason ?? null };
      } catch (err) {
        throw classify(err, Anthropic, settings);
      }
    },
  };
}

/** OpenAI models that reason before answering: no temperature, max_completion_tokens instead of max_tokens. */
export function isOpenAiReasoningModel(model: string): boolean {
  return /^(o\d|gpt-[5-9])([^0-9]|$)/.test(normalizeModelId(model));
}

function openAiClient(settings: JudgeModelSettings, options: ProviderOptions): ProviderClient {
  const client = new OpenAI({
    // Local servers (Ollama, vLLM without --api-key) take any key; the SDK refuses an empty one.
    apiKey: settings.apiKey === "" ? "unused" : settings.apiKey,
    baseURL: settings.baseUrl ?? DEFAULT_BASE_URLS.openai,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    timeout: options.timeoutMs,
    maxRetries: 0,
    logLevel: "off",
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    async complete(request) {
      try {
        const messages = [{ role: "system" as const, content: request.system }, ...request.messages];
        const reply = await client.chat.completions.create(
          isOpenAiReasoningModel(settings.model)
            ? { model: settings.model, max_completion_tokens: request.maxOutputTokens, reasoning_effort: "low", messages }
            : { model: settings.model, temperature: 0, max_tokens: request.maxOutputTokens, messages },
        );
        const choice = reply.choices[0];
        return {
          text: choice?.message.content ?? "",
          inputTokens: reply.usage?.prompt_tokens ?? 0,
          outputTokens: reply.usage?.completion_tokens ?? 0,
          stopReason: choice?.finish_reason === "length" ? "max_tokens" : (choice?.finish_reason ?? null),
        };
      } catch (err) {
        throw classify(err, OpenAI, settings);
      }
    },
  };
}

export function createProviderClient(settings: JudgeModelSettings, options: ProviderOptions): ProviderClient {
  return settings.provider === "anthropic" ? anthropicClient(settings, options) : openAiClient(settings, options);
}
