/**
 * Encryption at rest of the secrets Crux stores (AES-256-GCM, node:crypto):
 * the judge provider keys projects set and the webhook signing secrets. One
 * service secret, CRUX_SECRET_KEY; the 256-bit key is derived from it with
 * HKDF, so any long random string works. A sealed value is
 * `v1.<iv>.<tag>.<ciphertext>` in base64url; a value sealed with another
 * secret, or altered, fails to open (GCM authenticates it).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws when the value was sealed with another secret or altered. */
  open(sealed: string): string;
}

export function createSecretBox(secret: string): SecretBox {
  if (secret.length < 32) throw new RangeError("the secret must be at least 32 characters");
  const key = Buffer.from(hkdfSync("sha256", secret, "crux", "crux secrets at rest v1", 32));
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split(".");
      if (version !== "v1" || iv === undefined || tag === undefined || body === undefined) throw new Error("not a sealed value");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}
