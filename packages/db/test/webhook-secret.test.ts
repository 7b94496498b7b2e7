import { describe, expect, it } from "vitest";
import { createSecretBox, openWebhookSecret, SecretUnreadableError, webhookSecretForStorage } from "../src/index.ts";

describe("webhook signing secrets at rest", () => {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const box = createSecretBox("the service secret, at least 32 characters long");

  it("seals with a fresh IV each time, never stores the secret in clear, and keeps its prefix apart", () => {
    const a = webhookSecretForStorage(secret, box);
    const b = webhookSecretForStorage(secret, box);
    expect(a.stored).not.toBe(b.stored);
    expect(a.stored).not.toContain(secret.slice(6));
    expect(a.prefix).toBe("whsec_MfKQ9r");
    expect(openWebhookSecret(a.stored, box)).toBe(secret);
  });

  it("stores the secret as it is without a box, and reads such a row with or without one", () => {
    expect(webhookSecretForStorage(secret, null).stored).toBe(secret);
    expect(openWebhookSecret(secret, null)).toBe(secret);
    expect(openWebhookSecret(secret, box)).toBe(secret);
  });

  it("refuses a sealed secret without the box, with another secret, or tampered", () => {
    const { stored } = webhookSecretForStorage(secret, box);
    expect(() => openWebhookSecret(stored, null)).toThrow(/CRUX_SECRET_KEY is not set/);
    expect(() => openWebhookSecret(stored, createSecretBox("another service secret of 32+ characters"))).toThrow(/another CRUX_SECRET_KEY/);
    const parts = stored.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body.writeUInt8(body.readUInt8(0) ^ 1, 0);
    expect(() => openWebhookSecret([...parts.slice(0, 3), body.toString("base64url")].join("."), box)).toThrow(SecretUnreadableError);
  });
});
