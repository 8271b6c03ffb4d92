/**
 * Canonical unpadded base64url (RFC 4648 §5). Decoding is strict: a string is accepted only when
 * re-encoding its bytes gives back the same string, so no two spellings ever name the same bytes.
 */

const ALPHABET = /^[A-Za-z0-9_-]*$/;

/** Encodes bytes as unpadded base64url. */
export function encodeBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/** Decodes canonical unpadded base64url, or returns undefined for any other spelling. */
export function decodeBase64url(text: string): Uint8Array | undefined {
  if (!ALPHABET.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, "base64url");
  if (bytes.toString("base64url") !== text) return undefined;
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
