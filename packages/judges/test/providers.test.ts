/**
 * The provider side of a judge call, against the local mock provider (real
 * HTTP): both APIs parsed, what is sent (sampling, output limit, prompt, key
 * header), invalid replies retried then a failed verdict, 429 with
 * retry-after honoured, 5xx retried, timeouts, bad keys and unknown models
 * as permanent errors, and the key in no error and no call record.
 */
import type { JudgeCallRecord, JudgeModelSettings, JudgeVerdictResult } from "@crux/contracts";
import { PermanentError, prepareTrace, runTagsOf } from "@crux/core";
import { startMockLlmServer, type MockLlmServer } from "@crux/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callsOf, createJudgeSuite, JudgeUnavailableError, type JudgeSuiteOptions } from "../src/index.ts";
import { rubberStampReply } from "./replies.ts";
import { ids, travelTrace } from "./travel-trace.ts";

const KEY = "sk-ant-secret-key-0123456789abcdef";

let mock: MockLlmServer;
beforeEach(async () => {
  mock = await startMockLlmServer();
});
afterEach(() => mock.close());

function input() {
  const spans = travelTrace();
  const trajectories = prepareTrace(spans);
  return { spans, trajectories, runTags: runTagsOf(trajectories, { success: false }) };
}

function settings(provider: "anthropic" | "openai", model = provider === "anthropic" ? "claude-sonnet-5-5" : "gpt-4.1-mini"): JudgeModelSettings {
  return { provider, model, baseUrl: provider === "anthropic" ? mock.url : mock.openAiBaseUrl, apiKey: KEY };
}

function checklist(provider: "anthropic" | "openai", options: JudgeSuiteOptions = {}, model?: string) {
  return createJudgeSuite(settings(provider, model), { kinds: ["mast-checklist"], retryBaseDelayMs: 1, maxOutputTokens: 2_000, ...options }).judges[0]!;
}

async function thrown(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe.each(["anthropic", "openai"] as const)("%s", (provider) => {
  it("parses the reply into findings and records the call: tokens, cost, model, prompt version, outcome", async () => {
    mock.reply({ text: "Here is my review:\n```json\n" + rubberStampReply + "\n```", inputTokens: 3_000, outputTokens: 500 });
    const run = await checklist(provider).run(input());
    expect(run.status).toBe("succeeded");
    const result = run.result as JudgeVerdictResult;
    expect(result).toMatchObject({
      kind: "mast-checklist",
      promptVersion: 1,
      provider,
      model: provider === "anthropic" ? "claude-sonnet-5-5" : "gpt-4.1-mini",
    });
    expect(result.findings.map((f) => [f.mode, f.spanId])).toEqual([
      ["FM-3.2", ids.approve],
      ["FM-3.3", ids.approve],
    ]);
    // claude-sonnet-5-5 $2/$10, gpt-4.1-mini $0.40/$1.60 per million tokens
    const cost = provider === "anthropic" ? (3_000 * 2 + 500 * 10) / 1e6 : (3_000 * 0.4 + 500 * 1.6) / 1e6;
    expect(run.calls).toHaveLength(1);
    expect(run.calls[0]).toMatchObject({
      kind: "mast-checklist",
      promptVersion: 1,
      provider,
      inputTokens: 3_000,
      outputTokens: 500,
      outcome: "ok",
      error: null,
    });
    expect(run.calls[0]!.costUsd).toBeCloseTo(cost, 12);
    expect(run.calls[0]!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("sends the bounded output, the sampling the API takes, the prompt and the key", async () => {
    mock.reply({ text: rubberStampReply });
    await checklist(provider).run(input());
    const req = mock.requests[0]!;
    expect(req.path).toBe(provider === "anthropic" ? "/v1/messages" : "/v1/chat/completions");
    expect(req.body.max_tokens).toBe(2_000);
    // Anthropic's API version 2026-10-21 rejects any temperature; everything else gets 0.
    if (provider === "anthropic") {
      expect(req.body).not.toHaveProperty("temperature");
      expect(req.headers["anthropic-version"]).toBe("2026-10-21");
    } else expect(req.body.temperature).toBe(0);
    expect(req.headers.authorization ?? req.headers["x-api-key"]).toContain(KEY);
    expect(req.prompt).toContain("[1] orchestrator · handoff → flight_searcher");
    expect(req.prompt).toContain("Reply with one JSON object only");
  });

  it("retries an unparseable or invalid reply with the reason, then fails the verdict with the error (no verdict)", async () => {
    mock.reply({ text: "I think the run went fine." }, { rawBody: "{not json" }, { text: '{"answers": [{"mode": "FM-1.1", "answer": "maybe"}]}' });
    const run = await checklist(provider).run(input());
    expect(run.status).toBe("failed");
    expect(run.result).toEqual({ error: expect.stringMatching(/^no valid reply after 3 attempts; the last: the reply does not match the expected shape/) });
    expect(run.calls.map((c) => c.outcome)).toEqual(["invalid_reply", "provider_error", "invalid_reply"]);
    expect(run.calls[0]!.error).toMatch(/holds no JSON object/);
    // The retry sends the reason back.
    expect(mock.requests[1]!.prompt).toContain("Your reply could not be used: the reply holds no JSON object");
  });

  it("honours retry-after on a 429 and retries a 500", async () => {
    mock.reply({ status: 429, retryAfter: "1" }, { status: 500 }, { text: rubberStampReply });
    const run = await checklist(provider).run(input());
    expect(run.status).toBe("succeeded");
    expect(run.calls.map((c) => c.outcome)).toEqual(["rate_limited", "provider_error", "ok"]);
    const [first, second] = mock.requests;
    expect(second!.receivedAtMs - first!.receivedAtMs).toBeGreaterThanOrEqual(990);
  });

  it("a provider still failing after the attempts throws a retryable error carrying the calls", async () => {
    mock.reply({ status: 503 }, { status: 503 }, { status: 503 });
    const err = await thrown(checklist(provider).run(input()));
    expect(err).toBeInstanceOf(JudgeUnavailableError);
    expect(err).not.toBeInstanceOf(PermanentError);
    expect(callsOf(err).map((c) => c.outcome)).toEqual(["provider_error", "provider_error", "provider_error"]);
  });

  it("a retry-after longer than the run may wait is left to the worker's retry", async () => {
    mock.reply({ status: 429, retryAfter: "120" });
    const err = await thrown(checklist(provider).run(input()));
    expect(err).toBeInstanceOf(JudgeUnavailableError);
    expect((err as JudgeUnavailableError).retryAfterSeconds).toBe(120);
    expect(mock.requests).toHaveLength(1);
  });

  it("times a slow reply out and records it", async () => {
    mock.reply({ text: rubberStampReply, delayMs: 1_000 }, { text: rubberStampReply, delayMs: 1_000 });
    const err = await thrown(checklist(provider, { timeoutMs: 150, maxAttempts: 2 }).run(input()));
    expect(err).toBeInstanceOf(JudgeUnavailableError);
    const calls = callsOf(err);
    expect(calls.map((c) => c.outcome)).toEqual(["timeout", "timeout"]);
    expect(calls[0]!.latencyMs).toBeLessThan(900);
  });

  it("a refused key is a permanent error; the key is in no error message and no call record", async () => {
    mock.respondWith((req) => ({ status: 401, message: `invalid x-api-key: ${req.headers.authorization ?? req.headers["x-api-key"]}` }));
    const err = await thrown(checklist(provider).run(input()));
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as PermanentError).code).toBe("judge_auth_failed");
    expect((err as Error).message).toMatch(/refused the judge API key \(401\)/);
    const calls: JudgeCallRecord[] = callsOf(err);
    expect(calls).toHaveLength(1);
    expect(mock.requests).toHaveLength(1); // not retried
    expect(JSON.stringify({ message: (err as Error).message, calls })).not.toContain(KEY.slice(8));
  });

  it("the key is redacted from a provider message that echoes it", async () => {
    mock.respondWith((req) => ({ status: 400, message: `bad request from ${req.headers.authorization ?? req.headers["x-api-key"]}` }));
    const err = await thrown(checklist(provider).run(input()));
    expect((err as PermanentError).code).toBe("judge_request_rejected");
    expect((err as Error).message).toContain("[redacted]");
    expect(JSON.stringify({ message: (err as Error).message, calls: callsOf(err) })).not.toContain(KEY.slice(8));
  });

  it("an unknown model is a permanent error naming it", async () => {
    mock.reply({ status: 404, message: "model not found" });
    const err = await thrown(checklist(provider, {}, "no-such-model").run(input()));
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as PermanentError).code).toBe("judge_model_not_found");
    expect((err as Error).message).toContain('no model "no-such-model" (404)');
  });
});

describe("Anthropic models that think", () => {
  it("read the text block only, not the thinking before it", async () => {
    mock.reply({ thinking: "Step [4] approves; maybe FM-3.3 {not json", text: rubberStampReply });
    const run = await checklist("anthropic").run(input());
    expect(run.status).toBe("succeeded");
    expect((run.result as JudgeVerdictResult).findings.map((f) => f.mode)).toEqual(["FM-3.2", "FM-3.3"]);
  });
});

describe("OpenAI reasoning models", () => {
  it("get max_completion_tokens and low reasoning effort instead of temperature and max_tokens", async () => {
    mock.reply({ text: rubberStampReply });
    await checklist("openai", {}, "gpt-6-luna").run(input());
    const body = mock.requests[0]!.body;
    expect(body).toMatchObject({ max_completion_tokens: 2_000, reasoning_effort: "low" });
    expect(body).not.toHaveProperty("temperature");
    expect(body).not.toHaveProperty("max_tokens");
  });
});
