/**
 * Alerts and webhooks end to end through the REST API and OTLP, on every backend: a
 * webhook and a rule are registered over /api/v1, failing runs exported over
 * OTLP/HTTP push FM-3.3 (a reviewer approving a save that failed) over the
 * rule's threshold, and the HTTP receiver started here gets exactly one signed
 * alert.firing; clean runs bring exactly one alert.resolved. Along the way:
 * the secret is returned once, rotate-secret signs later deliveries with the
 * new one (and the old one during its overlap), deliveries are listed with their attempts, a manual retry resends
 * with the same webhook-id, a test event arrives, bad input is a 400.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";
import { schema } from "@crux/db";
import { createBullmqQueue, createInProcessQueue, purgeQueuePrefix, queueRegistry, withScheduleEvery, type JobQueue } from "@crux/queue";
import { recordSpans, toProtobuf } from "@crux/testkit";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, eventually, getJson, startTestCrux, type Backend, type TestCrux } from "./harness.ts";

const registry = withScheduleEvery(queueRegistry, "alerts.evaluate", 200);

function queueFor(backend: Backend): { queue: JobQueue; purge: () => Promise<unknown> } {
  const redisUrl = process.env.REDIS_URL;
  if (backend.name === "embedded" || !redisUrl) return { queue: createInProcessQueue({ registry }), purge: async () => {} };
  const prefix = `test-alerts-${randomUUID()}`;
  return { queue: createBullmqQueue({ redisUrl, prefix, registry }), purge: () => purgeQueuePrefix(redisUrl, prefix) };
}

/** A planner hands a write to a writer whose save fails; a reviewer approves anyway (unless clean). */
function emitRun(tracer: Tracer, startMs: number, failing: boolean) {
  let t = startMs;
  const open = (name: string, parent: Span | null, attributes: Record<string, string | number | boolean>, kind = SpanKind.INTERNAL) =>
    tracer.startSpan(name, { kind, attributes, startTime: (t += 5) }, parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT);
  const agent = (parent: Span | null, name: string) =>
    open(`invoke_agent ${name}`, parent, { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name });
  const chat = (parent: Span, text: string) =>
    open(
      "chat gpt-4o-mini",
      parent,
      {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.usage.input_tokens": 100,
        "gen_ai.usage.output_tokens": 20,
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: text }] }]),
      },
      SpanKind.CLIENT,
    ).end((t += 20));
  const root = agent(null, "planner");
  root.setAttributes({ "crux.outcome.success": !failing, "crux.task.id": "report" });
  chat(root, "Plan: the writer saves the report, the reviewer checks it");
  const handoff = open("execute_tool transfer_to_writer", root, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "transfer_to_writer",
    "gen_ai.tool.call.arguments": JSON.stringify({ message: "Save the report", path: "report.md" }),
  });
  const writer = agent(handoff, "writer");
  chat(writer, "Saving report.md");
  const save = open("execute_tool save_file", writer, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "save_file",
    "gen_ai.tool.call.arguments": '{"path":"report.md"}',
  });
  if (failing) save.setStatus({ code: SpanStatusCode.ERROR, message: "disk full" });
  save.end((t += 10));
  writer.end((t += 2));
  handoff.end((t += 1));
  const reviewer = agent(root, "reviewer");
  chat(reviewer, "Approved: report.md is fine");
  reviewer.end((t += 2));
  chat(root, "Report delivered");
  root.end((t += 2));
}

async function startReceiver() {
  const requests: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/crux`,
    requests,
    ofType: (type: string) => requests.filter((r) => JSON.parse(r.body).type === type),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const verify = (secret: string, r: { headers: IncomingHttpHeaders; body: string }) =>
  new Webhook(secret).verify(r.body, {
    "webhook-id": String(r.headers["webhook-id"]),
    "webhook-timestamp": String(r.headers["webhook-timestamp"]),
    "webhook-signature": String(r.headers["webhook-signature"]),
  }) as Record<string, any>;

describe.each(backends())("alerts over REST and OTLP on $name", (backend) => {
  let crux: TestCrux;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let purge: () => Promise<unknown>;
  const api = (path: string) => `${crux.apiUrl}/api/v1${path}`;
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(api(path), {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as any };
  };
  const exportRuns = async (n: number, failing: boolean, startMs: number) => {
    const spans = recordSpans((tracer) => {
      for (let i = 0; i < n; i++) emitRun(tracer, startMs + i * 1_000, failing);
    }, "report-crew");
    const res = await fetch(crux.otlpUrl, { method: "POST", body: toProtobuf(spans), headers: { "content-type": "application/x-protobuf" } });
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    const own = queueFor(backend);
    purge = own.purge;
    crux = await startTestCrux(
      backend,
      {
        CRUX_SETTLE_ROOT_DELAY_MS: "50",
        CRUX_PUBLIC_URL: "https://crux.example.test",
        CRUX_WEBHOOK_RETRY_BASE_MS: "30",
        CRUX_SECRET_KEY: "the service secret of this test, 32+ characters",
      },
      own.queue,
    );
  });
  afterAll(async () => {
    await crux?.stop();
    await purge?.();
    await receiver?.close();
  });

  it("rejects bad rules and webhooks whole, with what is wrong", async () => {
    const bad = await send("POST", "/alert-rules", {
      name: "x",
      metric: { kind: "failure_mode_rate", mode: "bogus" },
      condition: { kind: "threshold", op: "above", value: 0.1 },
      windowMs: 10,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/mode/);
    expect(bad.body.message).toMatch(/windowMs/);
    const unknownHook = await send("POST", "/alert-rules", {
      name: "x",
      metric: { kind: "success_rate" },
      condition: { kind: "threshold", op: "below", value: 0.9 },
      windowMs: 3_600_000,
      webhookIds: [randomUUID()],
    });
    expect(unknownHook.status).toBe(400);
    expect(unknownHook.body.message).toMatch(/webhookIds: no webhook/);
    expect((await send("POST", "/webhooks", { url: "ftp://example.com/x" })).status).toBe(400);
    const docs = Object.keys((await getJson(`${crux.apiUrl}/api/docs/json`)).body.paths);
    for (const p of ["/api/v1/alert-rules/{id}", "/api/v1/alerts", "/api/v1/webhooks/{id}/rotate-secret", "/api/v1/deliveries/{id}/retry"])
      expect(docs).toContain(p);
    expect((await send("POST", "/webhooks", { url: "https://user:pw@example.com/x" })).status).toBe(400);
    const privateIp = await send("POST", "/webhooks", { url: "http://10.1.2.3/hook" });
    expect(privateIp.status).toBe(400);
    expect(privateIp.body.message).toMatch(/^url: a private address \(private-use 10\.0\.0\.0\/8\)/);
    expect((await send("POST", "/webhooks", { url: "http://[::1]:9/hook", allowPrivateTargets: true })).status).toBe(201);
  });

  it("delivers one signed firing event and one resolved event; secrets, deliveries, retry and test events over REST", async () => {
    const created = await send("POST", "/webhooks", { url: receiver.url, description: "ops", allowPrivateTargets: true });
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_/);
    const hookId: string = created.body.id;
    const fetched = await getJson(api(`/webhooks/${hookId}`));
    expect(fetched.body).not.toHaveProperty("secret");
    expect(secret.startsWith(fetched.body.secretPrefix)).toBe(true);
    // Stored encrypted (CRUX_SECRET_KEY is set): the row holds no part of the secret after its prefix.
    const row = (await crux.database.db.select().from(schema.webhooks)).find((w) => w.id === hookId);
    expect(row!.secret).toMatch(/^v1\./);
    expect(row!.secret).not.toContain(secret.slice(12));

    const rule = await send("POST", "/alert-rules", {
      name: "unverified approvals",
      metric: { kind: "failure_mode_rate", mode: "FM-3.3" },
      condition: { kind: "threshold", op: "above", value: 0.5 },
      windowMs: 3_600_000,
      // Traces are scored one by one: with 4 as the minimum it fires once all 4 failing runs are in.
      minSamples: 4,
      webhookIds: [hookId],
    });
    expect(rule.status).toBe(201);
    expect(rule.body).toMatchObject({ state: "ok", enabled: true, scope: { service: null, agent: null } });
    const ruleId: string = rule.body.id;

    const startMs = Date.now() - 5 * 60_000;
    await exportRuns(4, true, startMs);
    const [firing] = await eventually(async () => (receiver.ofType("alert.firing").length > 0 ? receiver.ofType("alert.firing") : undefined), 30_000);
    const payload = verify(secret, firing!);
    expect(payload).toMatchObject({ type: "alert.firing", rule: { id: ruleId, name: "unverified approvals" } });
    expect(payload.values.current).toMatchObject({ value: 1, numerator: 4, denominator: 4 });
    expect(payload.links.query).toContain("https://crux.example.test/api/v1/metrics/failure-modes?groupBy=mode");
    // The linked query reproduces the numbers.
    const query = new URL(payload.links.query);
    const reproduced = await getJson(api(`/metrics/failure-modes${query.search}`));
    expect(reproduced.body.rates.find((r: { mode: string }) => r.mode === "FM-3.3")).toMatchObject({ numerator: 4, denominator: 4 });
    expect(payload.links.exampleTraces).toHaveLength(4);

    const alerts = await getJson(api(`/alerts?ruleId=${ruleId}&type=alert.firing`));
    expect(alerts.body.items).toHaveLength(1);
    expect(alerts.body.items[0]).toMatchObject({ id: payload.id, sequence: 1, current: { numerator: 4, denominator: 4 } });
    expect((await getJson(api(`/alert-rules/${ruleId}`))).body.state).toBe("firing");

    const deliveries = await eventually(async () => {
      const d = await getJson(api(`/webhooks/${hookId}/deliveries`));
      return d.body.items[0]?.status === "delivered" ? d.body.items : undefined;
    });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ eventId: payload.id, eventType: "alert.firing", attempts: [{ attempt: 1, status: 200, ok: true }] });
    expect((await send("POST", `/deliveries/${randomUUID()}/retry`)).status).toBe(404);
    const retried = await send("POST", `/deliveries/${deliveries[0].id}/retry`);
    expect(retried.status).toBe(202);
    await eventually(async () => (receiver.ofType("alert.firing").length === 2 ? true : undefined));
    expect(receiver.ofType("alert.firing").map((r) => r.headers["webhook-id"])).toEqual([payload.id, payload.id]);

    const rotated = await send("POST", `/webhooks/${hookId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(secret);
    expect((await send("POST", `/webhooks/${hookId}/test`)).status).toBe(202);
    const [testEvent] = await eventually(async () => (receiver.ofType("webhook.test").length > 0 ? receiver.ofType("webhook.test") : undefined));
    expect(verify(rotated.body.secret, testEvent!)).toMatchObject({ type: "webhook.test", webhook: { id: hookId } });
    // Within the rotation's overlap (CRUX_WEBHOOK_SECRET_OVERLAP_MS, 24 h by default) the old secret verifies too.
    expect(verify(secret, testEvent!)).toMatchObject({ type: "webhook.test" });

    await exportRuns(5, false, startMs + 10_000);
    const [resolved] = await eventually(async () => (receiver.ofType("alert.resolved").length > 0 ? receiver.ofType("alert.resolved") : undefined), 30_000);
    // Not above 0.5 from 4 / 8 on; the evaluation may see 8 or all 9 scored.
    const resolvedValues = verify(rotated.body.secret, resolved!).values.current;
    expect(resolvedValues.numerator).toBe(4);
    expect([8, 9]).toContain(resolvedValues.denominator);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.ofType("alert.firing")).toHaveLength(2); // the original and the manual retry
    expect(receiver.ofType("alert.resolved")).toHaveLength(1);
    const all = await getJson(api(`/alerts?ruleId=${ruleId}`));
    expect(all.body.items.map((e: { type: string }) => e.type)).toEqual(["alert.resolved", "alert.firing"]);

    const second = await send("POST", "/alert-rules", {
      name: "success drop",
      enabled: false,
      metric: { kind: "success_rate" },
      condition: { kind: "change", direction: "drop", by: 0.2 },
      windowMs: 3_600_000,
    });
    expect(second.status).toBe(201);
    const first = await getJson(api("/alert-rules?limit=1"));
    expect(first.body.items).toHaveLength(1);
    expect(first.body.nextCursor).not.toBeNull();
    const rest = await getJson(api(`/alert-rules?limit=1&cursor=${first.body.nextCursor}`));
    expect(rest.body.nextCursor).toBeNull();
    expect([first.body.items[0].id, rest.body.items[0].id].sort()).toEqual([ruleId, second.body.id].sort());
    expect((await getJson(api("/alert-rules?cursor=bm90LWEtY3Vyc29y"))).status).toBe(400);
    expect((await send("DELETE", `/alert-rules/${ruleId}`)).status).toBe(204);
    expect((await getJson(api(`/alert-rules/${ruleId}`))).status).toBe(404);
  });
});
