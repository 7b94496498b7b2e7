/**
 * Alerts end to end inside the worker, on both databases and both queues:
 * scored traces push a failure mode over a rule's threshold, the real HTTP
 * receiver started here gets exactly one signed alert.firing (verified with
 * standardwebhooks), then clean traces bring exactly one alert.resolved. A
 * change rule fires on a rise against the hour before its window, carrying both
 * readings. An error rise on one agent fires that agent's rule, not the system's.
 * Evaluations racing on one rule make one event per transition. Deliveries:
 * 500, 500, 200 is three logged attempts and one success; a receiver down past
 * the retry budget leaves a failed delivery that a manual retry sends; a name
 * resolving to 127.0.0.1 is refused unless the webhook allows private targets.
 */
import { randomUUID } from "node:crypto";
import {
  createAlertRule,
  createDelivery,
  createWebhook,
  ensureProject,
  getDeliveryWithAttempts,
  insertSpanBatch,
  listAlertEvents,
  retryDelivery,
  rotateWebhookSecret,
  type AlertRuleInput,
  type Database,
  createSecretBox,
  webhookSecretForStorage,
} from "@crux/db";
import { createBullmqQueue, createInProcessQueue, purgeQueuePrefix, queueRegistry, withScheduleEvery, type JobQueue } from "@crux/queue";
import { testDatabases } from "@crux/testkit";
import { generateWebhookSecret, testEventBody } from "@crux/webhooks";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createAlertsEvaluateProcessor } from "../src/processors/alerts-evaluate.processor.ts";
import { createWorker, type Worker } from "../src/worker.ts";
import { directStages, recordingLog, reportTrace } from "./traces.ts";
import { closedPort, startWebhookReceiver } from "./webhook-receiver.ts";

const PROJECT = "p-alerts";
const EVALUATE_EVERY_MS = 150;
const SECRET_KEY = "the service secret that seals webhook secrets";
const registry = withScheduleEvery(queueRegistry, "alerts.evaluate", EVALUATE_EVERY_MS);

interface QueueCase {
  name: string;
  /** `count` queues sharing one prefix (several worker processes), and how to clean up. */
  create(count: number, reg?: typeof registry): { queues: JobQueue[]; purge(): Promise<unknown> };
}
const queueCases: QueueCase[] = [
  { name: "in-process", create: (_count, reg = registry) => ({ queues: [createInProcessQueue({ registry: reg })], purge: async () => {} }) },
];
const redisUrl = process.env.REDIS_URL;
if (redisUrl) {
  queueCases.push({
    name: "bullmq",
    create: (count, reg = registry) => {
      const prefix = `test-alerts-${randomUUID()}`;
      return {
        queues: Array.from({ length: count }, () => createBullmqQueue({ redisUrl, prefix, registry: reg })),
        purge: () => purgeQueuePrefix(redisUrl, prefix),
      };
    },
  });
}
const cases = testDatabases().flatMap((db) => queueCases.map((q) => ({ name: `${db.name} + ${q.name}`, db, q })));

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(c: (typeof cases)[number], workers = 1, reg = registry) {
  const database = await c.db.create();
  await ensureProject(database, PROJECT, PROJECT);
  const { queues, purge } = c.q.create(workers, reg);
  const started: Worker[] = queues.map((queue) =>
    createWorker({
      database,
      queue,
      log: recordingLog().log,
      config: {
        CRUX_WORKER_CONCURRENCY: 2,
        CRUX_SWEEP_INTERVAL_MS: 3_600_000,
        CRUX_SWEEP_QUIET_MS: 0,
        CRUX_WEBHOOK_MAX_ATTEMPTS: 3,
        CRUX_WEBHOOK_RETRY_BASE_MS: 30,
        // Long enough that a loaded machine does not time out an attempt (a retry would be a second request).
        CRUX_WEBHOOK_TIMEOUT_MS: 10_000,
        CRUX_PUBLIC_URL: "https://crux.example.test",
        CRUX_SECRET_KEY: SECRET_KEY,
        // The receivers run on this host: the operator's allowance that webhooks with allowPrivateTargets ask for.
        CRUX_ALLOW_PRIVATE_TARGETS: "loopback",
      },
    }),
  );
  const stages = directStages(database);
  cleanups.push(async () => {
    for (const w of started) await w.stop();
    for (const q of queues) await q.close(1_000);
    for (const w of started) await w.close();
    await stages.close();
    await purge();
    await database.close();
  });
  return {
    database,
    queue: queues[0]!,
    /** A counter of the first worker's registry, by label. */
    async counted(name: string, labels: Record<string, string>) {
      const metric = (await started[0]!.registry.getMetricsAsJSON()).find((m) => m.name === name);
      return metric?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
    },
    start: () => started.forEach((w) => w.start()),
    /** Stores and scores traces (settle + score, as the worker's stages would). */
    async ingest(n: number, o: Parameters<typeof reportTrace>[0]) {
      for (let i = 0; i < n; i++) {
        const spans = reportTrace({ ...o, startMs: o.startMs + i * 1_000 });
        await insertSpanBatch(database, PROJECT, spans);
        await stages.run({ projectId: PROJECT, traceId: spans[0]!.traceId });
      }
    },
  };
}

async function webhookFor(database: Database, url: string, allowPrivateTargets = true, key = SECRET_KEY) {
  const secret = generateWebhookSecret();
  // Sealed with the workers' secret (SECRET_KEY), as the API stores it when CRUX_SECRET_KEY is set.
  const stored = webhookSecretForStorage(secret, createSecretBox(key));
  const webhook = await createWebhook(database, PROJECT, { url, description: "", enabled: true, slack: false, allowPrivateTargets }, stored);
  return { ...webhook, secret };
}

const rule = (webhookId: string, over: Partial<AlertRuleInput>): AlertRuleInput => ({
  name: "verification failures",
  enabled: true,
  scope: { service: null, agent: null },
  metric: { kind: "failure_mode_rate", mode: "FM-3.3" },
  condition: { kind: "threshold", op: "above", value: 0.5 },
  windowMs: 3_600_000,
  minSamples: 3,
  webhookIds: [webhookId],
  ...over,
});

function verified(secret: string, r: { headers: Record<string, unknown>; body: string }): unknown {
  const h = r.headers as Record<string, string>;
  return new Webhook(secret).verify(r.body, {
    "webhook-id": h["webhook-id"]!,
    "webhook-timestamp": h["webhook-timestamp"]!,
    "webhook-signature": h["webhook-signature"]!,
  });
}

/** Stores a webhook.test delivery to `hook`, enqueues it and waits until it is no longer pending. */
async function sendTestDelivery(t: Awaited<ReturnType<typeof setup>>, hook: { id: string; url: string }) {
  const body = testEventBody(randomUUID(), { id: hook.id, url: hook.url }, new Date());
  const d = await createDelivery(t.database, { projectId: PROJECT, webhookId: hook.id, eventId: body.id, eventType: body.type, payload: body });
  await t.queue.enqueue("webhook.deliver", { deliveryId: d.id });
  return { body, delivery: await settled(t.database, d.id) };
}

async function settled(database: Database, deliveryId: string) {
  return until("a delivered or failed delivery", async () => {
    const x = await getDeliveryWithAttempts(database, PROJECT, deliveryId);
    return x === null || x.status === "pending" ? undefined : x;
  });
}

describe.each(cases)("alerts on $name", (c) => {
  it("fires exactly once when a failure mode crosses the threshold and resolves exactly once on clean traces", async () => {
    const t = await setup(c, c.q.name === "bullmq" ? 2 : 1);
    const receiver = await startWebhookReceiver();
    cleanups.push(receiver.close);
    const hook = await webhookFor(t.database, receiver.url);
    // Traces are scored one by one while evaluations run: with 4 as the minimum it fires once all 4 are in.
    const r = await createAlertRule(t.database, PROJECT, rule(hook.id, { minSamples: 4 }));
    const startMs = Date.now() - 10 * 60_000;
    // Two failing traces: 100 %, but under the minimum sample size.
    await t.ingest(2, { startMs, success: false, saveFails: true });
    t.start();
    await sleep(EVALUATE_EVERY_MS * 4);
    expect(receiver.requests).toHaveLength(0);

    await t.ingest(2, { startMs: startMs + 10_000, success: false, saveFails: true });
    const [firing] = await until("the firing event", () => (receiver.ofType("alert.firing").length > 0 ? receiver.ofType("alert.firing") : undefined));
    const payload = verified(hook.secret, firing!) as Record<string, any>;
    expect(payload.type).toBe("alert.firing");
    expect(firing!.headers["webhook-id"]).toBe(payload.id);
    expect(payload.rule).toMatchObject({ id: r.id, metric: { kind: "failure_mode_rate", mode: "FM-3.3" } });
    const { current } = payload.values;
    expect(current).toEqual({ value: 1, numerator: 4, denominator: 4, samples: 4 });
    expect(payload.links.query).toMatch(/^https:\/\/crux\.example\.test\/api\/v1\/metrics\/failure-modes\?groupBy=mode&from=/);
    expect(payload.links.exampleTraces).toHaveLength(4);
    // A tampered body fails verification.
    const tampered = firing!.body.replace(`"numerator":${current.numerator}`, '"numerator":0');
    expect(tampered).not.toBe(firing!.body);
    expect(() => verified(hook.secret, { ...firing!, body: tampered })).toThrow();

    // More evaluations while it still holds: no repeat.
    await sleep(EVALUATE_EVERY_MS * 5);
    expect(receiver.requests).toHaveLength(1);

    // Five clean traces: 4 / 9 < 0.5 (it resolves at 4 / 8 already: not above 0.5).
    await t.ingest(5, { startMs: startMs + 20_000, success: true });
    const [resolved] = await until("the resolved event", () => (receiver.ofType("alert.resolved").length > 0 ? receiver.ofType("alert.resolved") : undefined));
    const resolvedPayload = verified(hook.secret, resolved!) as Record<string, any>;
    expect(resolvedPayload.values.current.numerator).toBe(4);
    expect([8, 9]).toContain(resolvedPayload.values.current.denominator);
    await sleep(EVALUATE_EVERY_MS * 5);
    expect(receiver.requests.map((q) => JSON.parse(q.body).type)).toEqual(["alert.firing", "alert.resolved"]);

    const events = await listAlertEvents(t.database, PROJECT, {});
    expect(events.items.map((e) => [e.type, e.sequence, e.current.numerator, e.current.denominator])).toEqual([
      ["alert.resolved", 2, 4, resolvedPayload.values.current.denominator],
      ["alert.firing", 1, current.numerator, current.denominator],
    ]);
  });

  it("a change rule fires on a rise against the previous window, with both readings and the change in the payload", async () => {
    const t = await setup(c);
    const receiver = await startWebhookReceiver();
    cleanups.push(receiver.close);
    const hook = await webhookFor(t.database, receiver.url);
    // A rise of 140 %: the traces below are scored one by one while evaluations run, and only all four
    // of them take the rate that far (2 / 5 is +60 %, 3 / 6 +100 %, 4 / 7 +129 %, 5 / 8 +150 %).
    const r = await createAlertRule(t.database, PROJECT, rule(hook.id, { condition: { kind: "change", direction: "rise", by: 1.4 }, minSamples: 4 }));
    const now = Date.now();
    // The hour before the rule's window: 1 of 4 traces with the finding (25 %).
    await t.ingest(1, { startMs: now - 90 * 60_000, success: false, saveFails: true });
    await t.ingest(3, { startMs: now - 89 * 60_000, success: true });
    // Its window: 1 of 4 too; no change, nothing fires.
    await t.ingest(1, { startMs: now - 20 * 60_000, success: false, saveFails: true });
    await t.ingest(3, { startMs: now - 19 * 60_000, success: true });
    t.start();
    await sleep(EVALUATE_EVERY_MS * 4);
    expect(receiver.requests).toHaveLength(0);

    // Four more with the finding: 5 of 8 (62.5 %) against 25 %, a rise of 150 %.
    await t.ingest(4, { startMs: now - 10 * 60_000, success: false, saveFails: true });
    const [firing] = await until("the firing event", () => (receiver.ofType("alert.firing").length > 0 ? receiver.ofType("alert.firing") : undefined));
    const payload = verified(hook.secret, firing!) as Record<string, any>;
    expect(payload.rule).toMatchObject({ id: r.id, condition: { kind: "change", direction: "rise", by: 1.4 } });
    expect(payload.values.current).toEqual({ value: 0.625, numerator: 5, denominator: 8, samples: 8 });
    expect(payload.values.previous).toEqual({ value: 0.25, numerator: 1, denominator: 4, samples: 4 });
    expect(payload.values.change).toBeCloseTo(1.5);
    expect(payload.links.previousQuery).toMatch(/^https:\/\/crux\.example\.test\/api\/v1\/metrics\/failure-modes\?/);
    await sleep(EVALUATE_EVERY_MS * 4);
    expect(receiver.requests).toHaveLength(1);
  });

  it("fires the rule of the agent whose errors rose, not the system's", async () => {
    const t = await setup(c);
    const receiver = await startWebhookReceiver();
    cleanups.push(receiver.close);
    const hook = await webhookFor(t.database, receiver.url);
    const errorRate = { metric: { kind: "error_rate" as const }, condition: { kind: "threshold" as const, op: "above" as const, value: 0.2 } };
    const writer = await createAlertRule(
      t.database,
      PROJECT,
      rule(hook.id, { ...errorRate, name: "writer errors", scope: { service: null, agent: "writer" } }),
    );
    const system = await createAlertRule(t.database, PROJECT, rule(hook.id, { ...errorRate, name: "system errors" }));
    // The writer's save fails in every run: 1 of its 3 spans; 1 of the system's 9.
    await t.ingest(4, { startMs: Date.now() - 10 * 60_000, success: false, saveFails: true });
    t.start();
    const [event] = await until("the writer's event", () => (receiver.requests.length > 0 ? receiver.requests : undefined));
    const payload = verified(hook.secret, event!) as Record<string, any>;
    expect(payload.rule.id).toBe(writer.id);
    expect(payload.values.current.value).toBeCloseTo(1 / 3);
    expect(payload.links.query).toContain("agent=writer");
    await sleep(EVALUATE_EVERY_MS * 4);
    const events = await listAlertEvents(t.database, PROJECT, {});
    expect(events.items.map((e) => e.ruleId)).toEqual([writer.id]);
    expect(await t.counted("crux_worker_alert_events_total", { type: "alert.firing" })).toBe(1);
    expect(events.items.map((e) => e.ruleId)).not.toContain(system.id);
  });

  it("evaluates a rule enqueued on alerts.evaluate-rule (the API does on create and replace) at once, not on the next tick", async () => {
    const t = await setup(c, 1, withScheduleEvery(queueRegistry, "alerts.evaluate", 3_600_000));
    const receiver = await startWebhookReceiver({});
    cleanups.push(receiver.close);
    const hook = await webhookFor(t.database, receiver.url);
    await t.ingest(4, { startMs: Date.now() - 10 * 60_000, success: false, saveFails: true });
    t.start();
    await sleep(500); // past the start's own tick, if the queue runs one; the next is an hour away
    const created = await createAlertRule(t.database, PROJECT, rule(hook.id, {}));
    await t.queue.enqueue("alerts.evaluate-rule", { projectId: PROJECT, ruleId: created.id });
    const events = await until("the rule's first event", async () => {
      const page = await listAlertEvents(t.database, PROJECT, {});
      return page.items.length > 0 ? page.items : undefined;
    });
    expect(events.map((e) => e.type)).toEqual(["alert.firing"]);
    await until("the firing delivery", () => (receiver.requests.length > 0 ? true : undefined));
  });

  it("makes one event per transition when evaluations race", async () => {
    const t = await setup(c);
    const hook = await webhookFor(t.database, "http://127.0.0.1:9/unused");
    await createAlertRule(t.database, PROJECT, rule(hook.id, {}));
    await t.ingest(4, { startMs: Date.now() - 10 * 60_000, success: false, saveFails: true });
    // Two evaluators (as two worker processes would run them), started together, several times.
    const evaluators = [0, 1].map(() =>
      createAlertsEvaluateProcessor({ database: t.database, queue: t.queue, log: recordingLog().log, publicUrl: "http://x" }),
    );
    for (let round = 0; round < 5; round++) await Promise.all(evaluators.map((evaluator) => evaluator.evaluateAlerts()));
    const events = await listAlertEvents(t.database, PROJECT, {});
    expect(events.items.map((e) => [e.type, e.sequence])).toEqual([["alert.firing", 1]]);
  });

  it("after a secret rotation signs with the new and the old secret for the overlap, then with the new one only", async () => {
    const t = await setup(c);
    const receiver = await startWebhookReceiver({});
    cleanups.push(receiver.close);
    const hook = await webhookFor(t.database, receiver.url);
    const newSecret = generateWebhookSecret();
    const overlapMs = 2_000;
    await rotateWebhookSecret(t.database, PROJECT, hook.id, webhookSecretForStorage(newSecret, createSecretBox(SECRET_KEY)), overlapMs);
    const rotatedAt = Date.now();
    t.start();
    await sendTestDelivery(t, hook);
    const during = receiver.requests.at(-1)!;
    // Within the window: a receiver still on the old secret verifies, as does one already on the new.
    expect(Date.now() - rotatedAt).toBeLessThan(overlapMs);
    expect(verified(hook.secret, during)).toMatchObject({ type: "webhook.test" });
    expect(verified(newSecret, during)).toMatchObject({ type: "webhook.test" });
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);

    await sleep(overlapMs - (Date.now() - rotatedAt) + 100);
    await sendTestDelivery(t, hook);
    const after = receiver.requests.at(-1)!;
    expect(verified(newSecret, after)).toMatchObject({ type: "webhook.test" });
    expect(() => verified(hook.secret, after)).toThrow(/No matching signature/);
  });

  it("retries a 500 twice and logs three attempts, one successful", async () => {
    const t = await setup(c);
    const receiver = await startWebhookReceiver({ statuses: [500, 500] });
    cleanups.push(receiver.close);
    const hook = await webhookFor(t.database, receiver.url);
    t.start();
    const { body, delivery } = await sendTestDelivery(t, hook);
    expect(delivery.status).toBe("delivered");
    expect(delivery.attempts.map((a) => [a.attempt, a.status, a.ok])).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 200, true],
    ]);
    expect(receiver.requests).toHaveLength(3);
    // The same message id on every attempt: the receiver can deduplicate.
    expect(new Set(receiver.requests.map((q) => q.headers["webhook-id"]))).toEqual(new Set([body.id]));
    for (const q of receiver.requests) expect(verified(hook.secret, q)).toMatchObject({ type: "webhook.test" });
    expect(await t.counted("crux_worker_webhook_attempts_total", { result: "retry" })).toBe(2);
    expect(await t.counted("crux_worker_webhook_attempts_total", { result: "delivered" })).toBe(1);
  });

  it("marks a delivery failed past the retry budget, keeps it, and sends it on a manual retry", async () => {
    const t = await setup(c);
    const port = await closedPort();
    const hook = await webhookFor(t.database, `http://127.0.0.1:${port}/hook`);
    t.start();
    const { body, delivery: failed } = await sendTestDelivery(t, hook);
    expect(failed.status).toBe("failed");
    expect(failed.attempts.map((a) => a.failureKind)).toEqual(["connect", "connect", "connect"]);
    expect(failed.lastError).toMatch(/^connect: /);
    expect(failed.payload).toEqual(body);

    const receiver = await startWebhookReceiver({ port });
    cleanups.push(receiver.close);
    await retryDelivery(t.database, PROJECT, failed.id);
    await t.queue.enqueue("webhook.deliver", { deliveryId: failed.id });
    const delivered = await settled(t.database, failed.id);
    expect(delivered.status).toBe("delivered");
    expect(delivered.attempts.map((a) => a.ok)).toEqual([false, false, false, true]);
    expect(receiver.requests).toHaveLength(1);
    expect(JSON.parse(receiver.requests[0]!.body)).toEqual(body);
  });

  it("refuses a name that resolves to 127.0.0.1 unless the webhook allows private targets", async () => {
    const t = await setup(c);
    const receiver = await startWebhookReceiver();
    cleanups.push(receiver.close);
    t.start();
    const send = async (allowPrivateTargets: boolean) =>
      (await sendTestDelivery(t, await webhookFor(t.database, `http://localhost:${receiver.port}/hook`, allowPrivateTargets))).delivery;
    const refused = await send(false);
    expect(refused?.status).toBe("failed");
    expect(refused?.attempts.map((a) => a.failureKind)).toEqual(["blocked_target"]);
    expect(receiver.requests).toHaveLength(0);
    const allowed = await send(true);
    expect(allowed?.status).toBe("delivered");
    expect(receiver.requests).toHaveLength(1);
  });

  it("fails a delivery whose secret was sealed with another key, without sending it", async () => {
    const t = await setup(c);
    const receiver = await startWebhookReceiver();
    cleanups.push(receiver.close);
    t.start();
    const { delivery } = await sendTestDelivery(
      t,
      await webhookFor(t.database, receiver.url, true, "a service secret the workers do not have, 32+ characters"),
    );
    expect(delivery.status).toBe("failed");
    expect(delivery.attempts.map((a) => a.failureKind)).toEqual(["secret_unreadable"]);
    expect(delivery.lastError).toMatch(/another CRUX_SECRET_KEY/);
    expect(receiver.requests).toHaveLength(0);
  });
});
