/**
 * What this daemon already checked or produced for a record, so that the send path and ingress
 * never verify the same signature twice: our own action signature over a record we encoded, and
 * a router certificate that verified for (seq, record hash). Only byte-identical values match.
 */
const LIMIT = 4096;

interface Known {
  signature?: Uint8Array;
  certificates?: Map<number, Uint8Array>;
}

const same = (a: Uint8Array | undefined, b: Uint8Array): boolean =>
  a !== undefined && a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;

export class VerifiedRecords {
  private readonly known = new Map<string, Known>();

  private entry(hash: string): Known {
    let entry = this.known.get(hash);
    if (entry === undefined) {
      entry = {};
      this.known.set(hash, entry);
      if (this.known.size > LIMIT) this.known.delete(this.known.keys().next().value!);
    }
    return entry;
  }

  /** We signed the record with this hash ourselves. */
  signed(hash: string, signature: Uint8Array): void {
    this.entry(hash).signature = signature;
  }

  /** The router's certificate for the record at `seq` verified. */
  certified(hash: string, seq: number, certificate: Uint8Array): void {
    (this.entry(hash).certificates ??= new Map()).set(seq, certificate);
  }

  /** Whether `signature` is the one we made over the record with this hash. */
  isOwnSignature(hash: string, signature: Uint8Array): boolean {
    return same(this.known.get(hash)?.signature, signature);
  }

  /** Whether this certificate already verified for the record at `seq`. */
  isVerifiedCertificate(hash: string, seq: number, certificate: Uint8Array): boolean {
    return same(this.known.get(hash)?.certificates?.get(seq), certificate);
  }
}
