/**
 * The judge endpoints on both databases: GET/PUT /judge-settings (validation,
 * the provider key write-only and encrypted at rest, absent from every
 * response and log line, effective source and reason, budget and
 * self-preference warning), GET /judge-calls (filters, pagination), GET
 * /traces/:id/verdicts and POST /traces/:id/judge (404, judges off, not
 * scored, 202 with the job on a real queue).
 */
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { mastModeIds } from "@crux/contracts";
import { normalizedSpan } from "@crux/core/testing";
import {
  createSecretBox,
  getTraceSummary,
  insertJudgeCalls,
  insertSpanBatch,
  insertVerdict,
  persistTraceScores,
  schema,
  type Database,
  type JudgeCallInput,
  type JudgeServiceDefaults,
  type SecretBox,
} from "@crux/db";
import { createBullmqQueue, createInProcessQueue } from "@crux/queue";
import { createLogger } from "@crux/runtime";
import { testDatabases } from "@crux/testkit";
import { afterEach, describe, expect, it } from "vitest";
import type { ApiDeps } from "../src/app.ts";
import { HOUR, NOW, PROJECT, buildTestApp } from "./harness.ts";
import { hexSpanId, hexTraceId, scoreRecord } from "./score-records.ts";

const KEY = "sk-ant-very-secret-provider-key-7731";
const SERVICE_KEY = "sk-service-default-key-9902";
const box = createSecretBox("another test secret, at least thirty-two characters long");

/** Every JSON line the service logs, at trace level (Fastify's request lines included). */
function traceLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger({ level: "trace", name: "crux-api", destination }), text: () => lines.join("") };
}

const call = (over: Partial<JudgeCallInput> = {}): JudgeCallInput => ({
  kind: "mast-checklist",
  promptVersion: 1,
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  inputTokens: 1_200,
  outputTokens: 150,
  costUsd: 0.5,
  latencyMs: 800,
  outcome: "ok",
  error: null,
  ...over,
});

async function storeSpan(database: Database, n: number, model: string | null) {
  const startNs = BigInt(NOW - HOUR) * 1_000_000n;
  await insertSpanBatch(database, PROJECT, [
    normalizedSpan({ traceId: hexTraceId(n), spanId: hexSpanId(1), parentSpanId: null, model, startTimeUnixNano: startNs, endTimeUnixNano: startNs + 1_000n }),
  ]);
}

describe.each(testDatabases())("judge endpoints on $name", (db) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function app(judges?: { defaults: JudgeServiceDefaults; secretBox: SecretBox | null }, extra: Partial<ApiDeps> = {}) {
    const database = await db.create();
    const logs = traceLogger();
    const api = await buildTestApp(database, {
      log: logs.log,
      // The base URLs below name a local model server: the operator's loopback allowance.
      privateTargets: "loopback",
      ...(judges ? { judges: { defaults: judges.defaults }, secretBox: judges.secretBox } : {}),
      ...extra,
    });
    close = async () => {
      await api.close();
      await database.close();
    };
    return { database, api, logs };
  }

  it("the judge routes are in the OpenAPI document, the key write-only in it", async () => {
    const { api } = await app();
    const res = await api.inject({ method: "GET", url: "/api/docs/json" });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    for (const p of ["/api/v1/judge-settings", "/api/v1/judge-calls", "/api/v1/traces/{traceId}/verdicts", "/api/v1/traces/{traceId}/judge"])
      expect(Object.keys(doc.paths)).toContain(p);
    expect(JSON.stringify(doc.paths["/api/v1/judge-settings"].get.responses["200"])).not.toContain('"apiKey"');
  });

  it("says judges are off, and why, when nothing is configured", async () => {
    const { api } = await app();
    const res = await api.inject({ method: "GET", url: "/api/v1/judge-settings" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      stored: { enabled: true, provider: null, apiKeySet: false },
      effective: { enabled: false, source: "none", reason: expect.stringContaining("no judge model is configured"), samplingShare: 0.1, dailyBudgetUsd: 5 },
      budget: { day: "2026-01-15", spentUsd: 0, pausedUntil: null },
      selfPreferenceWarning: null,
      canStoreApiKey: false,
    });
  });

  it("rejects invalid settings whole, naming what is wrong", async () => {
    const { api } = await app({ defaults: { model: null, samplingShare: 0.1, dailyBudgetUsd: 5 }, secretBox: box });
    const bad = async (payload: unknown, expected: RegExp) => {
      const res = await api.inject({ method: "PUT", url: "/api/v1/judge-settings", payload: payload as object });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBe("invalid_request");
      expect(res.json().message).toMatch(expected);
    };
    await bad({ provider: "anthropic" }, /model.*required when provider is set/);
    await bad({ model: "gpt-4.1" }, /model.*needs provider/);
    await bad({ provider: "cohere", model: "x" }, /provider/);
    await bad({ samplingShare: 1.5 }, /samplingShare/);
    await bad({ dailyBudgetUsd: -1 }, /dailyBudgetUsd/);
    await bad({ kinds: ["mast-checklist", "mast-checklist"] }, /kinds.*repeat/);
    await bad({ kinds: ["vibes"] }, /kinds/);
    await bad({ provider: "openai", model: "m", baseUrl: "ftp://x" }, /baseUrl/);
    await bad({ enabled: true, surprise: 1 }, /surprise|unrecognized/i);
    const after = await api.inject({ method: "GET", url: "/api/v1/judge-settings" });
    expect(after.json().stored.updatedAt).toBeNull();
  });

  it("refuses to store a key without a secret to encrypt it with, and stores nothing", async () => {
    const { api, database } = await app();
    const res = await api.inject({ method: "PUT", url: "/api/v1/judge-settings", payload: { provider: "anthropic", model: "claude-sonnet-4-5", apiKey: KEY } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: "secret_key_missing", message: expect.stringContaining("CRUX_SECRET_KEY") });
    expect(await database.db.select().from(schema.judgeSettings)).toEqual([]);
  });

  it("stores the key encrypted, never returns or logs it, and resolves the project's model", async () => {
    const { api, database, logs } = await app({ defaults: { model: null, samplingShare: 0.1, dailyBudgetUsd: 5 }, secretBox: box });
    const body = { provider: "anthropic", model: "claude-sonnet-4-5", apiKey: KEY, samplingShare: 0.25, dailyBudgetUsd: 2, rubric: "The report cites sources" };
    const put = await api.inject({ method: "PUT", url: "/api/v1/judge-settings", payload: body });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      stored: {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        apiKeySet: true,
        apiKeyLast4: "7731",
        samplingShare: 0.25,
        dailyBudgetUsd: 2,
        rubric: body.rubric,
      },
      effective: { enabled: true, reason: null, source: "project", provider: "anthropic", model: "claude-sonnet-4-5", samplingShare: 0.25, dailyBudgetUsd: 2 },
      canStoreApiKey: true,
    });
    const got = await api.inject({ method: "GET", url: "/api/v1/judge-settings" });
    for (const res of [put, got]) expect(res.body).not.toContain(KEY.slice(0, -4));

    // At rest: a sealed value, not the key, that opens to the key with the service's secret only.
    const [row] = await database.db.select().from(schema.judgeSettings);
    expect(row!.apiKeyCiphertext).toMatch(/^v1\./);
    expect(row!.apiKeyCiphertext).not.toContain(KEY);
    expect(row!.apiKeyCiphertext).not.toContain(Buffer.from(KEY).toString("base64url").slice(0, 12));
    expect(box.open(row!.apiKeyCiphertext!)).toBe(KEY);
    expect(() => createSecretBox("a different secret of thirty-two characters or more").open(row!.apiKeyCiphertext!)).toThrow();

    // A PUT without apiKey keeps the stored key; null removes it.
    const kept = await api.inject({ method: "PUT", url: "/api/v1/judge-settings", payload: { provider: "anthropic", model: "claude-haiku-4-5" } });
    expect(kept.json().stored).toMatchObject({ apiKeySet: true, apiKeyLast4: "7731", model: "claude-haiku-4-5", samplingShare: null });
    expect(kept.json().effective.samplingShare).toBe(0.1);
    const removed = await api.inject({
      method: "PUT",
      url: "/api/v1/judge-settings",
      payload: { provider: "anthropic", model: "claude-haiku-4-5", apiKey: null },
    });
    expect(removed.json()).toMatchObject({ stored: { apiKeySet: false }, effective: { enabled: false, reason: expect.stringContaining("no API key") } });

    // Nothing the service logged holds the key, even a line that carries it by mistake (redaction).
    logs.log.info({ apiKey: KEY, settings: { apiKey: KEY } }, "a careless log line");
    expect(logs.text()).toContain("a careless log line");
    expect(logs.text()).toContain("judge-settings");
    expect(logs.text()).not.toContain(KEY);
  });

  it("falls back to the service default without returning its key; a project can switch judges off", async () => {
    const defaults = {
      model: { provider: "openai" as const, model: "gpt-4.1", baseUrl: "http://127.0.0.1:11434/v1", apiKey: SERVICE_KEY },
      samplingShare: 0.2,
      dailyBudgetUsd: 3,
    };
    const { api, database } = await app({ defaults, secretBox: null });
    // The project's agents call gpt-4o-mini: a gpt judge is of their family.
    await storeSpan(database, 1, "gpt-4o-mini");
    const res = await api.inject({ method: "GET", url: "/api/v1/judge-settings" });
    expect(res.json()).toMatchObject({
      effective: {
        enabled: true,
        source: "service",
        provider: "openai",
        model: "gpt-4.1",
        baseUrl: "http://127.0.0.1:11434/v1",
        samplingShare: 0.2,
        dailyBudgetUsd: 3,
      },
      selfPreferenceWarning: expect.stringMatching(/gpt family.*gpt-4o-mini/),
    });
    expect(res.body).not.toContain(SERVICE_KEY);
    const off = await api.inject({ method: "PUT", url: "/api/v1/judge-settings", payload: { enabled: false } });
    expect(off.json().effective).toMatchObject({ enabled: false, source: "service", reason: expect.stringContaining("switched off") });
  });

  it("shows today's spend and the pause once the budget is reached (UTC day of the injected clock)", async () => {
    const { api, database } = await app({ defaults: { model: null, samplingShare: 0.1, dailyBudgetUsd: 1 }, secretBox: box });
    await insertJudgeCalls(database, PROJECT, hexTraceId(1), [call({ costUsd: 0.75 })], new Date(NOW - 24 * HOUR)); // yesterday
    await insertJudgeCalls(database, PROJECT, hexTraceId(1), [call({ costUsd: 0.4 }), call({ costUsd: null, outcome: "timeout" })], new Date(NOW - HOUR));
    const under = await api.inject({ method: "GET", url: "/api/v1/judge-settings" });
    expect(under.json().budget).toEqual({ day: "2026-01-15", spentUsd: 0.4, dailyBudgetUsd: 1, pausedUntil: null });
    await insertJudgeCalls(database, PROJECT, hexTraceId(2), [call({ costUsd: 0.6 })], new Date(NOW - 1_000));
    const over = await api.inject({ method: "GET", url: "/api/v1/judge-settings" });
    expect(over.json().budget).toEqual({ day: "2026-01-15", spentUsd: 1, dailyBudgetUsd: 1, pausedUntil: "2026-01-16T00:00:00.000Z" });
  });

  it("lists judge calls newest first, filtered and paginated", async () => {
    const { api, database } = await app();
    await insertJudgeCalls(database, PROJECT, hexTraceId(1), [call()], new Date(NOW - 3 * HOUR));
    await insertJudgeCalls(
      database,
      PROJECT,
      hexTraceId(1),
      [call({ kind: "handoff-preservation", outcome: "invalid_reply", error: "no JSON in the reply" })],
      new Date(NOW - 2 * HOUR),
    );
    await insertJudgeCalls(database, PROJECT, hexTraceId(2), [call({ outcome: "rate_limited", costUsd: null })], new Date(NOW - HOUR));
    await insertJudgeCalls(database, "another-project", hexTraceId(3), [call()], new Date(NOW));

    const first = await api.inject({ method: "GET", url: "/api/v1/judge-calls?limit=2" });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().items.map((c: { traceId: string; outcome: string }) => [c.traceId, c.outcome])).toEqual([
      [hexTraceId(2), "rate_limited"],
      [hexTraceId(1), "invalid_reply"],
    ]);
    expect(first.json().items[1]).toMatchObject({
      kind: "handoff-preservation",
      error: "no JSON in the reply",
      createdAt: new Date(NOW - 2 * HOUR).toISOString(),
    });
    const second = await api.inject({ method: "GET", url: `/api/v1/judge-calls?limit=2&cursor=${first.json().nextCursor}` });
    expect(second.json().items.map((c: { outcome: string }) => c.outcome)).toEqual(["ok"]);
    expect(second.json().nextCursor).toBeNull();

    const only = async (query: string) => (await api.inject({ method: "GET", url: `/api/v1/judge-calls?${query}` })).json().items.length;
    expect(await only(`traceId=${hexTraceId(1)}`)).toBe(2);
    expect(await only("kind=handoff-preservation")).toBe(1);
    expect(await only("outcome=ok")).toBe(1);
    expect(await only(`since=${new Date(NOW - 2 * HOUR).toISOString()}`)).toBe(2);
    expect((await api.inject({ method: "GET", url: "/api/v1/judge-calls?outcome=maybe" })).statusCode).toBe(400);
    expect((await api.inject({ method: "GET", url: "/api/v1/judge-calls?cursor=bm9wZQ" })).json().code).toBe("invalid_cursor");
  });

  it("POST /traces/:id/judge: 404 unknown, 409 when judges are off or the trace is not scored, 202 with the job enqueued; verdicts carry the warning", async () => {
    const queue = createInProcessQueue();
    const jobs: unknown[] = [];
    queue.start({ "trace.judge": async (p) => void jobs.push(p) });
    try {
      const { api, database } = await app({ defaults: { model: null, samplingShare: 0.1, dailyBudgetUsd: 5 }, secretBox: box }, { queue });
      const traceId = hexTraceId(7);
      const judge = () => api.inject({ method: "POST", url: `/api/v1/traces/${traceId}/judge` });
      expect((await judge()).json().code).toBe("not_found");
      await storeSpan(database, 7, "claude-sonnet-4-5");
      const off = await judge();
      expect(off.statusCode).toBe(409);
      expect(off.json()).toMatchObject({ code: "judges_off", message: expect.stringContaining("no judge model is configured") });

      await api.inject({
        method: "PUT",
        url: "/api/v1/judge-settings",
        payload: { provider: "openai", model: "gpt-4.1", baseUrl: "http://127.0.0.1:11434/v1" },
      });
      const early = await judge();
      expect(early.statusCode).toBe(409);
      expect(early.json().message).toContain("not scored yet");

      await persistTraceScores(database, PROJECT, scoreRecord({ n: 7, startMs: NOW - HOUR, agents: [{ agent: "writer", input: 10, output: 5 }] }), {
        inputHash: null,
      });
      const accepted = await judge();
      expect(accepted.statusCode, accepted.body).toBe(202);
      expect(accepted.json()).toMatchObject({ traceId, enqueued: true });
      // Nothing judged yet: every judge of the settings will run.
      const planned = accepted.json().judges as { action: string }[];
      expect(planned.length).toBeGreaterThan(0);
      expect(planned.every((j) => j.action === "run")).toBe(true);
      await expect.poll(() => jobs).toEqual([{ projectId: PROJECT, traceId }]);
      // The request is recorded before the enqueue, so a job lost with the queue is swept (the handler here does not clear it).
      const recorded = (await getTraceSummary(database, PROJECT, traceId))!.judgeRequestedAt;
      expect(recorded).toBeInstanceOf(Date);

      // What the worker stores, as GET /verdicts serves it.
      const warning = "the judge model claude-x is of the claude family, as the agents' claude-sonnet-4-5";
      await insertVerdict(database, PROJECT, traceId, {
        producerId: "judge.mast-checklist",
        producerVersion: 1,
        model: "claude-x",
        inputHash: "h1",
        status: "succeeded",
        result: {
          kind: "mast-checklist",
          promptVersion: 1,
          provider: "anthropic",
          model: "claude-x",
          findings: [],
          askedModes: [...mastModeIds],
          attribution: null,
          outcome: null,
          omitted: [],
          rejected: [],
          selfPreferenceWarning: warning,
        },
      });
      await insertVerdict(database, PROJECT, traceId, {
        producerId: "judge.outcome-rubric",
        producerVersion: 1,
        model: "claude-x",
        inputHash: "h1",
        status: "failed",
        result: { error: "no rubric" },
      });
      const page = await api.inject({ method: "GET", url: `/api/v1/traces/${traceId}/verdicts?limit=1` });
      expect(page.json().items).toEqual([expect.objectContaining({ producerId: "judge.mast-checklist", model: "claude-x", selfPreferenceWarning: warning })]);
      const rest = await api.inject({ method: "GET", url: `/api/v1/traces/${traceId}/verdicts?cursor=${page.json().nextCursor}` });
      expect(rest.json()).toMatchObject({
        items: [{ producerId: "judge.outcome-rubric", status: "failed", selfPreferenceWarning: null, result: { error: "no rubric" } }],
        nextCursor: null,
      });
      expect((await api.inject({ method: "GET", url: `/api/v1/traces/${hexTraceId(99)}/verdicts` })).statusCode).toBe(404);
    } finally {
      await queue.close(1_000);
    }
  });

  it("POST /traces/:id/judge with the queue unreachable: 202 enqueued false, the request recorded for the worker's sweeper", async () => {
    const dead = createBullmqQueue({ redisUrl: "redis://127.0.0.1:1", prefix: `test-${randomUUID()}`, commandTimeoutMs: 500 });
    try {
      const { api, database } = await app({ defaults: { model: null, samplingShare: 0.1, dailyBudgetUsd: 5 }, secretBox: box }, { queue: dead });
      const traceId = hexTraceId(8);
      await storeSpan(database, 8, "gpt-4.1");
      await api.inject({
        method: "PUT",
        url: "/api/v1/judge-settings",
        payload: { provider: "openai", model: "gpt-4.1", baseUrl: "http://127.0.0.1:11434/v1" },
      });
      await persistTraceScores(database, PROJECT, scoreRecord({ n: 8, startMs: NOW - HOUR, agents: [{ agent: "writer", input: 10, output: 5 }] }), {
        inputHash: null,
      });
      const accepted = await api.inject({ method: "POST", url: `/api/v1/traces/${traceId}/judge` });
      expect(accepted.statusCode, accepted.body).toBe(202);
      expect(accepted.json()).toMatchObject({ traceId, enqueued: false });
      expect((await getTraceSummary(database, PROJECT, traceId))!.judgeRequestedAt).toBeInstanceOf(Date);
    } finally {
      await dead.close(0);
    }
  }, 30_000);
});
