/**
 * Signing secrets at rest. The signature needs the secret itself (it cannot be
 * hashed like an API key), so with an operator key (CRUX_WEBHOOK_SECRET_KEY)
 * it is stored encrypted with AES-256-GCM; without one it is stored as it is.
 * Either way it is never served after the answer that created or rotated it.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const SEALED_PREFIX = "enc1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The operator's key as AES-256 key material: SHA-256 of the configured text (any length). */
export function webhookSecretKey(text: string | undefined): Buffer | null {
  return text === undefined || text === "" ? null : createHash("sha256").update(text, "utf8").digest();
}

/** What is stored for `secret`: `enc1:` + base64(iv | tag | ciphertext) with a key, the secret itself without. */
export function sealSecret(secret: string, key: Buffer | null): string {
  if (key === null) return secret;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64");
}

/** The stored form of a new secret and its first 12 characters (whsec_ + 6), shown to tell secrets apart. */
export function secretForStorage(secret: string, key: Buffer | null): { stored: string; prefix: string } {
  return { stored: sealSecret(secret, key), prefix: secret.slice(0, 12) };
}

export class SecretUnreadableError extends Error {
  override readonly name = "SecretUnreadableError";
}

/** The secret from what is stored; SecretUnreadableError when it is sealed and the key is missing or another one. */
export function openSecret(stored: string, key: Buffer | null): string {
  if (!stored.startsWith(SEALED_PREFIX)) return stored;
  if (key === null) throw new SecretUnreadableError("the signing secret is encrypted and CRUX_WEBHOOK_SECRET_KEY is not set");
  const bytes = Buffer.from(stored.slice(SEALED_PREFIX.length), "base64");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretUnreadableError("the signing secret was encrypted with another CRUX_WEBHOOK_SECRET_KEY");
  }
}
