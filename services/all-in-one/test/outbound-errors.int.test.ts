/**
 * What a remote server answers is never served back: a judge provider and a
 * webhook receiver that answer with an HTML page (an internal admin page,
 * say) leave only a status, a kind and at most a short excerpt in the API's
 * answers (/judge-calls, /verdicts, webhook deliveries), and nothing of the
 * page in any log line. A provider still answering 429 after its retries is
 * not called again every few seconds: the trace's judging waits. URLs with
 * credentials are refused when written.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { createLogger } from "@crux/runtime";
import { exportMultiAgentTrace } from "./processes.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, eventually, getJson, startTestCrux, type TestCrux } from "./harness.ts";

const MARKER = "INTERNAL-ADMIN-PAGE-MARKER-5521";
const KEY = "sk-e2e-outbound-key-9090";
const PAGE = `<!doctype html><html><head><title>Admin</title></head><body><h1>${MARKER}</h1><p>db password: hunter2</p></body></html>`;

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger({ level: "debug", name: "crux", destination }), text: () => lines.join("") };
}

describe.each(backends())("outbound errors on $name", (backend) => {
  let crux: TestCrux;
  let server: Server;
  let base: string;
  let answer: "html" | "429" = "html";
  const logs = capture();
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      if (answer === "429")
        res.writeHead(429, { "content-type": "application/json", "retry-after": "1" }).end('{"error":{"message":"slow down","type":"rate_limit_error"}}');
      else res.writeHead(500, { "content-type": "text/html" }).end(PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    crux = await startTestCrux(backend, { CRUX_SECRET_KEY: "an end-to-end secret of thirty-two characters" }, undefined, { log: logs.log });
  });
  afterAll(async () => {
    await crux?.stop();
    await new Promise((resolve) => server.close(resolve));
  });

  const api = () => `${crux.apiUrl}/api/v1`;
  const put = (path: string, body: unknown, method = "PUT") =>
    fetch(`${api()}${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("URLs with credentials are refused when written, the password in no answer", async () => {
    const judge = await put("/judge-settings", { provider: "openai", model: "gpt-4.1-mini", baseUrl: `http://judge:pw-7731@127.0.0.1:1/v1`, apiKey: KEY });
    expect(judge.status).toBe(400);
    expect(await judge.text()).toMatch(/baseUrl.*credentials/);
    const hook = await put("/webhooks", { url: `http://hook:pw-7731@127.0.0.1:1/x`, allowPrivateTargets: true }, "POST");
    expect(hook.status).toBe(400);
    expect(await hook.text()).toMatch(/credentials/);
  });

  it("an HTML error page from the judge provider and the webhook receiver reaches no API answer and no log line", async () => {
    answer = "html";
    const settings = await put("/judge-settings", {
      provider: "openai",
      model: "gpt-4.1-mini",
      baseUrl: `${base}/v1`,
      apiKey: KEY,
      samplingShare: 0,
      kinds: ["mast-checklist"],
    });
    expect(settings.status).toBe(200);
    const traceId = await exportMultiAgentTrace(crux.otlpUrl);
    await eventually(async () => ((await getJson(`${api()}/traces/${traceId}/scores`)).body.scored ? true : undefined), 20_000);
    expect((await fetch(`${api()}/traces/${traceId}/judge`, { method: "POST" })).status).toBe(202);
    const calls = await eventually(async () => {
      const items = (await getJson(`${api()}/judge-calls?traceId=${traceId}`)).body.items;
      return items.length > 0 ? items : undefined;
    }, 30_000);
    expect(calls[0]).toMatchObject({ outcome: "provider_error", error: expect.stringMatching(/answered 500$/) });

    const hook = await put("/webhooks", { url: `${base}/hook`, allowPrivateTargets: true }, "POST");
    expect(hook.status).toBe(201);
    const webhookId = ((await hook.json()) as { id: string }).id;
    expect((await fetch(`${api()}/webhooks/${webhookId}/test`, { method: "POST" })).status).toBe(202);
    const deliveries = await eventually(async () => {
      const items = (await getJson(`${api()}/webhooks/${webhookId}/deliveries`)).body.items;
      return items[0]?.attempts.length > 0 ? items : undefined;
    }, 30_000);
    expect(deliveries[0].attempts[0]).toMatchObject({ status: 500, responseExcerpt: "" });

    const answers = [
      await (await fetch(`${api()}/judge-calls`)).text(),
      await (await fetch(`${api()}/traces/${traceId}/verdicts`)).text(),
      await (await fetch(`${api()}/webhooks/${webhookId}/deliveries`)).text(),
      await (await fetch(`${api()}/judge-settings`)).text(),
    ].join("\n");
    for (const text of [answers, logs.text()]) {
      expect(text).not.toContain(MARKER);
      expect(text).not.toContain("hunter2");
      expect(text).not.toMatch(/<html|<!doctype/i);
      expect(text).not.toContain(KEY);
    }
    expect(logs.text().length).toBeGreaterThan(0);
  }, 90_000);

  it("a provider that keeps answering 429 is not called again every few seconds: the trace's judging waits", async () => {
    answer = "429";
    // Every trace is judged once scored (one judge request, one job).
    const settings = await put("/judge-settings", {
      provider: "openai",
      model: "gpt-4.1-mini",
      baseUrl: `${base}/v1`,
      apiKey: KEY,
      samplingShare: 1,
      kinds: ["mast-checklist"],
    });
    expect(settings.status).toBe(200);
    const traceId = await exportMultiAgentTrace(crux.otlpUrl);
    const count = async () => ((await getJson(`${api()}/judge-calls?traceId=${traceId}&limit=100`)).body.items as unknown[]).length;
    await eventually(async () => ((await count()) >= 3 ? true : undefined), 30_000);
    // The run made its bounded attempts (3); then the trace's judging is deferred: the sweeper (every
    // 200 ms here) and the queue's retry leave it alone, where before they called again at once.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(await count()).toBe(3);
    const calls = (await getJson(`${api()}/judge-calls?traceId=${traceId}`)).body.items;
    expect(
      calls.every((c: { outcome: string; error: string }) => c.outcome === "rate_limited" && /answered 429 \(rate_limit_error\): slow down/.test(c.error)),
    ).toBe(true);
  }, 90_000);
});
