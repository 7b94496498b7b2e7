/**
 * Asking the judge model one prompt (docs/judges.md §3): up to maxAttempts
 * calls. A 429, 5xx, timeout or network failure waits (the provider's
 * retry-after when it sent one, else exponential backoff from
 * retryBaseDelayMs, with jitter) and calls again; a wait longer than
 * maxRetryWaitMs is not slept in the job: the run throws
 * JudgeUnavailableError and the worker retries it later. An unparseable or
 * invalid reply is sent back with the reason and asked again; after the last
 * attempt it is a judge error (ok: false), never a verdict. Every call,
 * whatever its outcome, is appended to `calls`.
 */
import type { JudgeCallRecord, JudgeKind, JudgeModelSettings } from "@crux/contracts";
import type { z } from "zod";
import { judgePermanentError, JudgeUnavailableError } from "./errors.ts";
import { judgeCallCost } from "./prices.ts";
import { ProviderCallError, type CompletionRequest, type ProviderClient } from "./provider.ts";
import { parseReply, type Parsed } from "./reply.ts";
import { cut } from "./window.ts";

interface Prompt {
  system: string;
  user: string;
}

export interface CallPolicy {
  maxAttempts: number;
  maxOutputTokens: number;
  retryBaseDelayMs: number;
  maxRetryWaitMs: number;
  sleep: (ms: number) => Promise<void>;
}

export type Ask = <T>(prompt: Prompt, schema: z.ZodType<T>) => Promise<Parsed<T>>;

interface AskerDeps {
  client: ProviderClient;
  settings: JudgeModelSettings;
  kind: JudgeKind;
  promptVersion: number;
  policy: CallPolicy;
  calls: JudgeCallRecord[];
}

function backoffMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** (attempt - 1), 30_000) * (1 - Math.random() * 0.25);
}

export function createAsker(deps: AskerDeps): Ask {
  const { client, settings, policy, calls } = deps;
  const record = (outcome: JudgeCallRecord["outcome"], startedAt: number, tokens: { inputTokens: number; outputTokens: number }, error: string | null) => {
    calls.push({
      kind: deps.kind,
      promptVersion: deps.promptVersion,
      provider: settings.provider,
      model: settings.model,
      inputTokens: tokens.inputTokens,
      outputTokens: tokens.outputTokens,
      costUsd: judgeCallCost(settings.model, tokens.inputTokens, tokens.outputTokens),
      latencyMs: Math.max(0, Math.round(performance.now() - startedAt)),
      outcome,
      error,
    });
  };

  return async function ask<T>(prompt: Prompt, schema: z.ZodType<T>): Promise<Parsed<T>> {
    const first: CompletionRequest["messages"] = [{ role: "user", content: prompt.user }];
    let messages = first;
    let lastInvalid = "";
    for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
      const startedAt = performance.now();
      let reply;
      try {
        reply = await client.complete({ system: prompt.system, messages, maxOutputTokens: policy.maxOutputTokens });
      } catch (err) {
        if (!(err instanceof ProviderCallError)) throw err;
        record(err.outcome, startedAt, { inputTokens: 0, outputTokens: 0 }, err.message);
        if (err.permanent) throw judgePermanentError(err.permanent.code, err.message, calls);
        const waitMs = err.retryAfterMs ?? backoffMs(attempt, policy.retryBaseDelayMs);
        if (attempt === policy.maxAttempts || waitMs > policy.maxRetryWaitMs) {
          throw new JudgeUnavailableError(`judge ${deps.kind}: ${err.message} (after ${attempt} attempts)`, Math.max(1, Math.ceil(waitMs / 1000)), calls);
        }
        await policy.sleep(waitMs);
        continue;
      }
      const parsed = parseReply(reply.text, schema, reply.stopReason);
      record(parsed.ok ? "ok" : "invalid_reply", startedAt, reply, parsed.ok ? null : parsed.error);
      if (parsed.ok) return parsed;
      lastInvalid = parsed.error;
      messages = [
        ...first,
        { role: "assistant", content: cut(reply.text, 2_000).text || "(empty reply)" },
        { role: "user", content: `Your reply could not be used: ${parsed.error}. Reply again with only the JSON object described, nothing else.` },
      ];
    }
    return { ok: false, error: `no valid reply after ${policy.maxAttempts} attempts; the last: ${lastInvalid}` };
  };
}
