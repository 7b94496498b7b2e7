/**
 * The one outbound guard (@crux/outbound) as the worker uses it for both of
 * its outbound requests: webhook deliveries and judge provider calls (the
 * provider SDKs get the guarded fetch). Per range and per spelling, written
 * literally in the URL and resolved from a name (a custom resolver), nothing
 * is sent; what the operator allows is reached; credentials in a URL are
 * refused by both.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PermanentError, prepareTrace, runTagsOf } from "@crux/core";
import { createJudgeSuite } from "@crux/judges";
import { createOutboundFetch, type PrivateTargets, type Resolver } from "@crux/outbound";
import { startMockLlmServer, type MockLlmServer } from "@crux/testkit";
import { deliverWebhook, generateWebhookSecret } from "@crux/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** One address per refused range, in each spelling that reaches it. */
const refused: Array<[what: string, address: string]> = [
  ["loopback", "127.0.0.1"],
  ["loopback, IPv6", "::1"],
  ["loopback, IPv4-mapped", "::ffff:127.0.0.1"],
  ["loopback, NAT64", "64:ff9b::7f00:1"],
  ["loopback, IPv4-compatible", "::127.0.0.1"],
  ["loopback, 6to4", "2002:7f00:1::1"],
  ["private-use 10/8", "10.0.0.1"],
  ["private-use 172.16/12", "172.16.0.1"],
  ["private-use 192.168/16", "192.168.0.1"],
  ["private, NAT64", "64:ff9b::a00:1"],
  ["CGNAT", "100.64.0.1"],
  ["link-local, cloud metadata", "169.254.169.254"],
  ["link-local, IPv4-mapped", "::ffff:169.254.169.254"],
  ["benchmarking", "198.18.0.1"],
  ["multicast", "224.0.0.1"],
  ["reserved 240/4", "240.0.0.1"],
  ["broadcast", "255.255.255.255"],
  ["this network", "0.0.0.0"],
  ["documentation", "192.0.2.1"],
  ["unique local", "fd00::1"],
  ["link-local IPv6", "fe80::1"],
  ["multicast IPv6", "ff02::1"],
];

const hostOf = (address: string) => (address.includes(":") ? `[${address}]` : address);
const to =
  (address: string): Resolver =>
  async () => [{ address, family: address.includes(":") ? 6 : 4 }];

let hits = 0;
let server: Server;
let port: number;
let mock: MockLlmServer;
beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  mock = await startMockLlmServer(() => ({ text: '{"findings": []}' }));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await mock.close();
});

const secret = generateWebhookSecret();
const deliver = (url: string, privateTargets: PrivateTargets, resolver?: Resolver) =>
  deliverWebhook({ url, secret, id: "msg_1", payload: { hello: "world" } }, { privateTargets, timeoutMs: 2_000, ...(resolver ? { resolver } : {}) });

function judgeRun(baseUrl: string, privateTargets: PrivateTargets, resolver?: Resolver) {
  const fetch = createOutboundFetch({ privateTargets, ...(resolver ? { resolver } : {}) });
  const judge = createJudgeSuite(
    { provider: "openai", model: "gpt-4.1-mini", baseUrl, apiKey: "sk-test-0123456789" },
    { kinds: ["mast-checklist"], fetch, maxAttempts: 1, timeoutMs: 2_000 },
  ).judges[0]!;
  const spans = [] as Parameters<typeof prepareTrace>[0];
  const trajectories = prepareTrace(spans);
  return judge.run({ spans, trajectories, runTags: runTagsOf(trajectories, { success: false }) });
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe.each(["literal", "resolved"] as const)("a %s target", (form) => {
  describe.each(["none", "loopback"] as const)("with private targets %s", (allowance) => {
    const cases = refused.filter(([what]) => allowance === "none" || !what.startsWith("loopback") || what.includes("compatible"));
    it.each(cases)("%s (%s): a webhook is refused and nothing is sent", async (_what, address) => {
      const before = hits;
      const url = form === "literal" ? `http://${hostOf(address)}:${port}/hook` : `http://hooks.example.test:${port}/hook`;
      const attempt = await deliver(url, allowance, form === "resolved" ? to(address) : undefined);
      expect(attempt).toMatchObject({ ok: false, status: null, failure: { kind: "blocked_target" } });
      expect(hits).toBe(before);
    });

    it.each(cases)("%s (%s): a judge call is refused, permanently, and nothing is sent", async (_what, address) => {
      const before = mock.requests.length;
      const baseUrl = form === "literal" ? `http://${hostOf(address)}:${port}/v1` : `http://llm.example.test:${port}/v1`;
      const err = await rejection(judgeRun(baseUrl, allowance, form === "resolved" ? to(address) : undefined));
      expect(err).toBeInstanceOf(PermanentError);
      expect(err).toMatchObject({ code: "judge_target_refused" });
      expect(mock.requests.length).toBe(before);
    });
  });

  it("loopback is reached where the operator allows it: webhook and judge", async () => {
    const before = hits;
    const hookUrl = form === "literal" ? `http://127.0.0.1:${port}/hook` : `http://hooks.example.test:${port}/hook`;
    expect(await deliver(hookUrl, "loopback", form === "resolved" ? to("127.0.0.1") : undefined)).toMatchObject({ ok: true, status: 200 });
    expect(hits).toBe(before + 1);

    const calls = mock.requests.length;
    const baseUrl = form === "literal" ? mock.openAiBaseUrl : mock.openAiBaseUrl.replace("127.0.0.1", "llm.example.test");
    const run = await judgeRun(baseUrl, "loopback", form === "resolved" ? to("127.0.0.1") : undefined);
    expect(run.calls.length).toBeGreaterThan(0);
    expect(mock.requests.length).toBeGreaterThan(calls);
  });
});

describe("credentials in an outbound URL", () => {
  it("a webhook URL with user:password@ is refused before any connect", async () => {
    const before = hits;
    const attempt = await deliver(`http://user:pw@127.0.0.1:${port}/hook`, "loopback");
    expect(attempt).toMatchObject({ ok: false, failure: { kind: "invalid_url" } });
    expect(attempt.ok ? "" : attempt.failure.message).not.toContain("pw");
    expect(hits).toBe(before);
  });

  it("a judge base URL with user:password@ is refused before any connect, and the password is in no error", async () => {
    const before = mock.requests.length;
    const err = await rejection(judgeRun(mock.openAiBaseUrl.replace("http://", "http://judge:hunter2-secret@"), "loopback"));
    expect(err).toMatchObject({ code: "judge_target_refused" });
    expect(JSON.stringify({ message: (err as Error).message, details: (err as PermanentError).details })).not.toContain("hunter2-secret");
    expect(mock.requests.length).toBe(before);
  });
});
