/**
 * The router's durability certificate (SPEC §5): the router's signature over the canonical CBOR
 * of {conv, seq, record}, stating that the record is committed durably at that position.
 */
import { encodeCanonical } from "./cbor.js";
import type { RecordHash } from "./ids.js";
import type { ConversationKey } from "./names.js";
import { domainMessage, verifySignature, type SigningKey } from "./signatures.js";

export const CERTIFICATE_DOMAIN = "social-harness/certificate/v1";

export interface CertifiedPosition {
  readonly conv: ConversationKey;
  readonly seq: number;
  readonly record: RecordHash;
}

function certificateMessage(position: CertifiedPosition): Uint8Array {
  return domainMessage(
    CERTIFICATE_DOMAIN,
    encodeCanonical({ conv: position.conv, seq: position.seq, record: position.record }),
  );
}

export function signCertificate(routerKey: SigningKey, position: CertifiedPosition): Uint8Array {
  return routerKey.sign(certificateMessage(position));
}

export function verifyCertificate(
  routerPublicKey: Uint8Array,
  position: CertifiedPosition,
  certificate: Uint8Array,
): boolean {
  return verifySignature(routerPublicKey, certificateMessage(position), certificate);
}
