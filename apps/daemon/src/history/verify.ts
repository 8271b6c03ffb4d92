/**
 * Verification of a certified record before the daemon stores it (SPEC §5, seed 002): canonical
 * bytes, the author's (or, for a genesis, every member's) action signature over the bytes as
 * they arrived, the router's certificate, the chain link to the previous record, and membership.
 * A pure function: expected failures are values, never exceptions.
 */
import {
  membersOfConversation,
  readRecord,
  verifyActionSignature,
  verifyCertificate,
  type RecordFields,
  type RecordFrame,
  type RecordRead,
} from "@social-harness/protocol";
import type { VerifiedRecords } from "./verified-records.js";

export interface VerifyContext {
  readonly self: string;
  readonly routerKey: Uint8Array;
  /** Pinned keys of every agent the record names as signer. */
  readonly keys: ReadonlyMap<string, Uint8Array>;
  /** The hash of the stored record at seq - 1 (undefined for seq 1). */
  readonly prevHash: string | undefined;
  /** The certified members of the conversation, once its first record is stored. */
  readonly members: readonly string[] | undefined;
  /** Signatures and certificates this daemon already checked or made; byte-identical ones pass. */
  readonly verified?: VerifiedRecords;
}

export type Verified =
  | { readonly ok: true; readonly record: RecordFields; readonly hash: string; readonly members: readonly string[] }
  | { readonly ok: false; readonly reason: string };

const refuse = (reason: string): Verified => ({ ok: false, reason });

/** `read` is the frame's record as the caller already read it, so it is decoded once. */
export function verifyRecordFrame(
  frame: RecordFrame,
  ctx: VerifyContext,
  read: RecordRead = readRecord(frame.record),
): Verified {
  if (!read.ok) return refuse(read.reason);
  const { record, hash } = read;
  if (record.conv !== frame.conv) return refuse("the record names another conversation than its frame");
  const convMembers = membersOfConversation(record.conv);
  if (convMembers === undefined || !convMembers.includes(ctx.self))
    return refuse("this agent is not a member of the conversation");

  const knownCertificate = ctx.verified?.isVerifiedCertificate(hash, frame.seq, frame.certificate) === true;
  if (
    !knownCertificate &&
    !verifyCertificate(ctx.routerKey, { conv: frame.conv, seq: frame.seq, record: hash }, frame.certificate)
  ) {
    return refuse("the router certificate does not verify");
  }

  const expectedSigners = record.kind === "genesis" ? convMembers : [record.author];
  const signers = frame.signatures.map((s) => s.signer);
  if (signers.length !== expectedSigners.length || !expectedSigners.every((m) => signers.includes(m))) {
    return refuse(`signed by ${signers.join(", ")}, expected ${expectedSigners.join(", ")}`);
  }
  for (const { signer, signature } of frame.signatures) {
    const key = ctx.keys.get(signer);
    if (key === undefined) return refuse(`no pinned key for ${signer}`);
    const ours = signer === ctx.self && ctx.verified?.isOwnSignature(hash, signature) === true;
    if (!ours && !verifyActionSignature(key, frame.record, signature))
      return refuse(`the signature of ${signer} does not verify`);
  }

  const group = record.conv.startsWith("group:");
  if (frame.seq === 1) {
    if (record.prev !== null) return refuse("the first record names a previous record");
    if (group && record.kind !== "genesis") return refuse("a group conversation starts with its genesis");
    if (!group && record.kind !== "post") return refuse("a direct conversation has no genesis");
  } else {
    if (record.kind !== "post") return refuse("a genesis can only be the first record");
    if (ctx.prevHash === undefined || record.prev !== ctx.prevHash)
      return refuse("the record does not link to the previous record");
  }

  const members =
    record.kind === "genesis" ? (record.members ?? []) : (ctx.members ?? (group ? undefined : convMembers));
  if (members === undefined) return refuse("the group's genesis is not stored");
  if (!members.includes(record.author)) return refuse(`${record.author} is not a certified member`);
  return { ok: true, record, hash, members };
}
