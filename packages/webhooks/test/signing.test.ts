import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, signWebhook, verifyWebhook } from "../src/index.ts";

describe("signing", () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ id: "evt_1", type: "alert.fired" });

  it("generates whsec_ secrets of 32 random bytes, different each time", () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it("signs id.timestamp.body as v1 HMAC-SHA256, which standardwebhooks verifies", () => {
    const headers = signWebhook(secret, { id: "msg_1", timestamp: new Date(), body });
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, body, headers)).toEqual({ ok: true });
  });

  it("a tampered body, another secret or another id fails", () => {
    const headers = signWebhook(secret, { id: "msg_1", timestamp: new Date(), body });
    expect(verifyWebhook(secret, body.replace("fired", "cleared"), headers)).toEqual({ ok: false, reason: "No matching signature found" });
    expect(verifyWebhook(generateWebhookSecret(), body, headers).ok).toBe(false);
    expect(verifyWebhook(secret, body, { ...headers, "webhook-id": "msg_2" }).ok).toBe(false);
  });

  it("an old timestamp fails even with a valid signature (replay)", () => {
    const headers = signWebhook(secret, { id: "msg_1", timestamp: new Date(Date.now() - 10 * 60_000), body });
    expect(verifyWebhook(secret, body, headers)).toEqual({ ok: false, reason: "Message timestamp too old" });
  });

  it("with two secrets (a rotation's overlap) carries two space-separated signatures: either secret verifies", () => {
    const next = generateWebhookSecret();
    const headers = signWebhook([next, secret], { id: "msg_1", timestamp: new Date(), body });
    expect(headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifyWebhook(next, body, headers)).toEqual({ ok: true });
    expect(verifyWebhook(secret, body, headers)).toEqual({ ok: true });
    expect(verifyWebhook(generateWebhookSecret(), body, headers).ok).toBe(false);
  });

  it("missing headers fail", () => {
    expect(verifyWebhook(secret, body, {}).ok).toBe(false);
  });
});
