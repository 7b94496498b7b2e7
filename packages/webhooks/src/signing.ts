import { randomBytes } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";

/**
 * Standard Webhooks signing: the receiver
 * checks `webhook-signature` = `v1,<base64 HMAC-SHA256(secret, id.timestamp.body)>`
 * and rejects a timestamp more than five minutes off its clock (replays).
 */
export type SignedHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

/** A new signing secret, `whsec_` + base64 of 32 random bytes. Callers show it once and store it. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/**
 * The three headers for one delivery of `body` (the exact bytes that are sent). With several secrets
 * (a rotation's overlap: the new one first) webhook-signature carries one signature per secret,
 * space-separated, as Standard Webhooks allows: a receiver with either secret verifies it.
 */
export function signWebhook(secret: string | readonly string[], message: { id: string; timestamp: Date; body: string }): SignedHeaders {
  const secrets = typeof secret === "string" ? [secret] : secret;
  const signature = secrets.map((s) => new Webhook(s).sign(message.id, message.timestamp, message.body)).join(" ");
  return {
    "webhook-id": message.id,
    "webhook-timestamp": String(Math.floor(message.timestamp.getTime() / 1000)),
    "webhook-signature": signature,
  };
}

export type VerifyResult = { ok: true } | { ok: false; reason: string };

/** What a receiver does: signature over the raw body, timestamp within tolerance of now. */
export function verifyWebhook(secret: string, body: string, headers: Record<string, string | undefined>): VerifyResult {
  const present: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) present[name] = value;
  try {
    new Webhook(secret).verify(body, present, { jsonParse: false });
    return { ok: true };
  } catch (err) {
    if (err instanceof WebhookVerificationError) return { ok: false, reason: err.message };
    throw err;
  }
}
