/**
 * Webhook signing secrets at rest. The signature needs the secret itself (it
 * cannot be hashed like an API key), so with the service secret
 * (CRUX_SECRET_KEY, the box that also seals judge provider keys) it is stored
 * sealed; without one it is stored as it is (a `whsec_` value). Either way it
 * is never served after the answer that created or rotated it.
 */
import type { SecretBox } from "../secret-box.ts";

export class SecretUnreadableError extends Error {
  override readonly name = "SecretUnreadableError";
}

/** What is stored for a new secret, and its first 12 characters (whsec_ + 6), shown to tell secrets apart. */
export function webhookSecretForStorage(secret: string, box: SecretBox | null): { stored: string; prefix: string } {
  return { stored: box ? box.seal(secret) : secret, prefix: secret.slice(0, 12) };
}

/** The secret from what is stored; SecretUnreadableError when it is sealed and the box is missing or holds another secret. */
export function openWebhookSecret(stored: string, box: SecretBox | null): string {
  if (stored.startsWith("whsec_")) return stored;
  if (box === null) throw new SecretUnreadableError("the signing secret is encrypted and CRUX_SECRET_KEY is not set");
  try {
    return box.open(stored);
  } catch {
    throw new SecretUnreadableError("the signing secret was encrypted with another CRUX_SECRET_KEY");
  }
}
