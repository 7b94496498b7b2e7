import { describe, expect, it } from "vitest";
import { generateWebhookSecret, openSecret, sealSecret, SecretUnreadableError, webhookSecretKey } from "../src/index.ts";

describe("signing secrets at rest", () => {
  const secret = generateWebhookSecret();
  const key = webhookSecretKey("operator key");

  it("round-trips through AES-256-GCM with a fresh IV each time, and never stores the secret in clear", () => {
    const a = sealSecret(secret, key);
    const b = sealSecret(secret, key);
    expect(a).toMatch(/^enc1:/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret.slice(6));
    expect(openSecret(a, key)).toBe(secret);
  });

  it("stores the secret as it is without a key, and reads such a row with or without one", () => {
    expect(webhookSecretKey(undefined)).toBeNull();
    expect(webhookSecretKey("")).toBeNull();
    expect(sealSecret(secret, null)).toBe(secret);
    expect(openSecret(secret, key)).toBe(secret);
  });

  it("refuses a sealed secret without the key, with another key, or tampered", () => {
    const sealed = sealSecret(secret, key);
    expect(() => openSecret(sealed, null)).toThrow(SecretUnreadableError);
    expect(() => openSecret(sealed, webhookSecretKey("another key"))).toThrow(/another CRUX_WEBHOOK_SECRET_KEY/);
    const bytes = Buffer.from(sealed.slice(5), "base64");
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1);
    expect(() => openSecret(`enc1:${bytes.toString("base64")}`, key)).toThrow(SecretUnreadableError);
  });
});
