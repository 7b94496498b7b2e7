import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import type { Resolver } from "@crux/outbound";
import { decideRetry, defaultRetryPolicy, deliverWebhook, generateWebhookSecret } from "../src/index.ts";
import { answer, startReceiver } from "./receiver.ts";

const secret = generateWebhookSecret();
const payload = { id: "evt_1", type: "alert.fired", project: "p1" };
const local = { privateTargets: "loopback" as const };
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});
async function receiver(...handlers: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...handlers);
  close = r.close;
  return r;
}

describe("deliverWebhook", () => {
  it("POSTs the JSON payload with headers that standardwebhooks verifies; a tampered body does not", async () => {
    const r = await receiver(answer(200, "thanks"));
    const attempt = await deliverWebhook({ url: r.url, secret, id: "msg_1", payload }, local);
    // A 2xx body is not kept: there is nothing in it to fix.
    expect(attempt).toMatchObject({ ok: true, failure: null, status: 200, responseExcerpt: "", responseTruncated: false, retryAfterMs: null });
    expect(attempt.durationMs).toBeGreaterThan(0);
    const [got] = r.received;
    expect(got?.method).toBe("POST");
    expect(got?.headers["content-type"]).toBe("application/json");
    expect(got?.headers["webhook-id"]).toBe("msg_1");
    const headers = got!.headers as Record<string, string>;
    expect(new Webhook(secret).verify(got!.body, headers)).toEqual(payload);
    expect(() => new Webhook(secret).verify(got!.body.replace("p1", "p2"), headers)).toThrow(/No matching signature/);
  });

  it("500 then 200: the first is retried, the second delivered", async () => {
    const r = await receiver(answer(500, "boom"), answer(204));
    const first = await deliverWebhook({ url: r.url, secret, id: "msg_1", payload }, local);
    expect(first).toMatchObject({ ok: false, status: 500, failure: { kind: "http_status" }, responseExcerpt: "boom" });
    expect(decideRetry(first, 1, defaultRetryPolicy, () => 0.5)).toEqual({ action: "retry", delayMs: 2500 });
    const second = await deliverWebhook({ url: r.url, secret, id: "msg_1", payload }, local);
    expect(second).toMatchObject({ ok: true, status: 204 });
    expect(decideRetry(second, 2, defaultRetryPolicy, () => 0.5)).toEqual({ action: "delivered" });
    // The same message id on the retry, so the receiver can deduplicate.
    expect(r.received.map((x) => x.headers["webhook-id"])).toEqual(["msg_1", "msg_1"]);
  });

  it("429 with Retry-After: the policy waits what the receiver asked", async () => {
    const r = await receiver(answer(429, "", { "retry-after": "42" }));
    const attempt = await deliverWebhook({ url: r.url, secret, id: "msg_1", payload }, local);
    expect(attempt).toMatchObject({ ok: false, status: 429, retryAfterMs: 42_000 });
    expect(decideRetry(attempt, 1, defaultRetryPolicy, () => 0.99)).toEqual({ action: "retry", delayMs: 42_000 });
  });

  it("a redirect is not followed and is a failed attempt saying so", async () => {
    const target = await startReceiver(answer(200));
    try {
      const r = await receiver(answer(302, "", { location: target.url }));
      const attempt = await deliverWebhook({ url: r.url, secret, id: "msg_1", payload }, local);
      expect(attempt).toMatchObject({ ok: false, status: 302, failure: { kind: "redirect" } });
      expect(attempt.ok ? "" : attempt.failure.message).toContain("redirect (302) not followed");
      // Where it pointed is not repeated (a Location can carry credentials or internal names).
      expect(attempt.ok ? "" : attempt.failure.message).not.toContain(target.url);
      expect(target.received).toHaveLength(0);
      expect(decideRetry(attempt, 1, defaultRetryPolicy, () => 0.5)).toEqual({ action: "failed", reason: "not_retryable" });
    } finally {
      await target.close();
    }
  });

  it("reads at most maxResponseBytes of a large body, keeps a short excerpt and says it cut", async () => {
    const r = await receiver(answer(500, "x".repeat(1024 * 1024)));
    const attempt = await deliverWebhook({ url: r.url, secret, id: "msg_1", payload }, { ...local, maxResponseBytes: 1000 });
    expect(attempt).toMatchObject({ ok: false, status: 500, responseTruncated: true });
    expect(attempt.responseExcerpt).toBe(`${"x".repeat(200)}…`);
  });

  it("an HTML error page is never kept, and control characters of a text answer are removed", async () => {
    const page = "<!doctype html><html><body>INTERNAL-MARKER-7731 admin console</body></html>";
    const r = await receiver(answer(502, page), answer(400, "bad\u0000 signature\r\n\u001b[31m"));
    const html = await deliverWebhook({ url: r.url, secret, id: "msg_1", payload }, local);
    expect(html).toMatchObject({ ok: false, status: 502, responseExcerpt: "", responseTruncated: true });
    expect(JSON.stringify(html)).not.toContain("INTERNAL-MARKER-7731");
    const text = await deliverWebhook({ url: r.url, secret, id: "msg_2", payload }, local);
    expect(text.responseExcerpt).toBe("bad signature [31m");
  });

  it("a receiver that never finishes answering times out, and that is retried", async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      res.write("partial"); // and never end
    });
    const started = Date.now();
    const attempt = await deliverWebhook({ url: r.url, secret, id: "msg_1", payload }, { ...local, timeoutMs: 300 });
    expect(attempt).toMatchObject({ ok: false, status: null, failure: { kind: "timeout" } });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(attempt.durationMs).toBeGreaterThanOrEqual(290);
    expect(decideRetry(attempt, 1, defaultRetryPolicy, () => 0.5).action).toBe("retry");
  });

  it("a refused connection is a connect failure", async () => {
    const r = await startReceiver();
    await r.close();
    const attempt = await deliverWebhook({ url: r.url, secret, id: "msg_1", payload }, local);
    expect(attempt).toMatchObject({ ok: false, failure: { kind: "connect" } });
  });
});

describe("deliverWebhook refuses private targets (SSRF)", () => {
  const toLoopback: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];

  it("a hostname resolving to 127.0.0.1 is refused at connect time, and allowed with allowPrivateTargets", async () => {
    const r = await receiver(answer(200));
    const url = `http://hooks.example.test:${r.port}/hook`;
    const refused = await deliverWebhook({ url, secret, id: "msg_1", payload }, { resolver: toLoopback });
    expect(refused).toMatchObject({ ok: false, status: null, failure: { kind: "blocked_target" } });
    expect(refused.ok ? "" : refused.failure.message).toContain("loopback 127.0.0.0/8");
    expect(r.received).toHaveLength(0);
    expect(decideRetry(refused, 1, defaultRetryPolicy, () => 0.5)).toEqual({ action: "failed", reason: "not_retryable" });

    const allowed = await deliverWebhook({ url, secret, id: "msg_1", payload }, { resolver: toLoopback, privateTargets: "loopback" });
    expect(allowed).toMatchObject({ ok: true, status: 200 });
    expect(r.received).toHaveLength(1);
  });

  it("the connect itself asks the resolver and goes where it answered (no separate pre-check a rebinding could pass)", async () => {
    const r = await receiver(answer(200));
    const asked: string[] = [];
    const recording: Resolver = async (hostname) => {
      asked.push(hostname);
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const url = `http://rebind.example.test:${r.port}/`;
    expect(await deliverWebhook({ url, secret, id: "msg_1", payload }, { resolver: recording, privateTargets: "loopback" })).toMatchObject({ ok: true });
    expect(asked).toEqual(["rebind.example.test"]);
    expect(r.received).toHaveLength(1);
    // The next attempt resolves again, and is checked again.
    expect(await deliverWebhook({ url, secret, id: "msg_2", payload }, { resolver: recording })).toMatchObject({ failure: { kind: "blocked_target" } });
    expect(asked).toHaveLength(2);
    expect(r.received).toHaveLength(1);
  });

  it("a name with one public and one private address is refused as a whole", async () => {
    const mixed: Resolver = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "10.0.0.5", family: 4 },
    ];
    const attempt = await deliverWebhook({ url: "http://mixed.example.test/", secret, id: "msg_1", payload }, { resolver: mixed });
    expect(attempt).toMatchObject({ ok: false, failure: { kind: "blocked_target" } });
  });

  it("localhost through the real resolver is refused", async () => {
    const r = await receiver(answer(200));
    const attempt = await deliverWebhook({ url: `http://localhost:${r.port}/`, secret, id: "msg_1", payload });
    expect(attempt).toMatchObject({ ok: false, failure: { kind: "blocked_target" } });
    expect(r.received).toHaveLength(0);
  });

  it.each([
    "127.0.0.1",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.0.1",
    "100.64.0.1",
    "169.254.169.254",
    "0.0.0.0",
    "[::1]",
    "[fd00::1]",
    "[fe80::1]",
    "[::ffff:127.0.0.1]",
  ])("a literal %s in the URL is refused before any connect", async (host) => {
    const attempt = await deliverWebhook({ url: `http://${host}:9/`, secret, id: "msg_1", payload });
    expect(attempt).toMatchObject({ ok: false, failure: { kind: "blocked_target" } });
  });

  it.each([
    ["ftp://example.test/", /unsupported scheme/],
    ["not a url", /not a URL/],
    ["http://user:pw@example.test/", /credentials/],
  ])("%s is an invalid URL", async (url, message) => {
    const attempt = await deliverWebhook({ url, secret, id: "msg_1", payload });
    expect(attempt).toMatchObject({ ok: false, failure: { kind: "invalid_url" } });
    expect(attempt.ok ? "" : attempt.failure.message).toMatch(message);
  });
});
