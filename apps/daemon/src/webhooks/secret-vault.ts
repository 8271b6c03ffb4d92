/**
 * The write-only vault for webhook secrets (seed 004 "One connection vault"): each secret is sealed
 * with AES-256-GCM under `webhook.key` (32 random bytes, mode 0600, created in the data directory on
 * first use) and bound to its subscription id as associated data, so a sealed value cannot be moved
 * to another row. Only the delivery engine and the verification cache ever open one.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { readOrCreateSecret } from "../identity/secret-file.js";
import { decodeBase64url, encodeBase64url } from "@social-harness/protocol";

const PREFIX = "enc:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretVault {
  private key: Buffer | undefined;

  constructor(private readonly keyFile: string) {}

  /** Seals a secret for the subscription `context`; the result is `enc:v1:` + base64url(iv ‖ ciphertext ‖ tag). */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.loadKey(), iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const sealed = Buffer.concat([iv, cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return PREFIX + encodeBase64url(sealed);
  }

  /** Opens a sealed secret; throws when it was tampered with, sealed for another context, or under another key. */
  open(sealed: string, context: string): string {
    const bytes = sealed.startsWith(PREFIX) ? decodeBase64url(sealed.slice(PREFIX.length)) : undefined;
    if (bytes === undefined || bytes.length < IV_BYTES + TAG_BYTES) throw new Error("not a sealed webhook secret");
    const data = Buffer.from(bytes);
    const decipher = createDecipheriv("aes-256-gcm", this.loadKey(), data.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
      decipher.final(),
    ]).toString("utf8");
  }

  private loadKey(): Buffer {
    if (this.key !== undefined) return this.key;
    const key = decodeBase64url(readOrCreateSecret(this.keyFile, () => encodeBase64url(randomBytes(32))));
    if (key?.length !== 32) throw new Error(`${this.keyFile} is not a 32-byte base64url key`);
    this.key = Buffer.from(key);
    return this.key;
  }
}
