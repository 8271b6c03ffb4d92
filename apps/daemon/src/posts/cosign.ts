/**
 * Co-signing a group's GENESIS when the router asks (SPEC §5). The daemon signs only a
 * well-formed genesis of a group that includes this agent and lists exactly its members.
 */
import { actionMessage, readRecord, type SigningKey } from "@social-harness/protocol";

export type CosignAnswer =
  { readonly ok: true; readonly signature: Uint8Array } | { readonly ok: false; readonly reason: string };

export function cosignGenesis(self: string, key: SigningKey, bytes: Uint8Array): CosignAnswer {
  const read = readRecord(bytes);
  if (!read.ok) return { ok: false, reason: `malformed genesis: ${read.reason}` };
  const { record } = read;
  if (record.kind !== "genesis") return { ok: false, reason: "not a genesis" };
  if (!(record.members ?? []).includes(self)) return { ok: false, reason: "this agent is not a member" };
  return { ok: true, signature: key.sign(actionMessage(bytes)) };
}
