/**
 * One pushed record through ingress, inside the batch's transaction: position (stored already, a
 * gap, or next) → verify (history/verify.ts) → classify and admit (ingress/arrival.ts; our own post
 * is only stored) → store. Each stage is called once, in that order, from here.
 */
import { recordHashOf, type RecordFrame, type RecordRead } from "@social-harness/protocol";
import type { Logger } from "pino";
import type { Trx } from "../db/database.js";
import type { Disposition, History } from "../history/history.service.js";
import type { VerifiedRecords } from "../history/verified-records.js";
import { verifyRecordFrame } from "../history/verify.js";
import type { RouterKey } from "../identity/router-key.js";
import type { Arrival } from "./admission.js";
import { classifyAndAdmit, type ArrivalDeps } from "./arrival.js";
import type { ArrivedAnswer } from "./classification.js";

export type ReceiveOutcome =
  { readonly kind: "stored" | "duplicate" } | { readonly kind: "gap" | "refused"; readonly reason: string };

/** One received record, and what its commit tells others afterwards. */
export interface Received {
  readonly outcome: ReceiveOutcome;
  readonly disposition?: Disposition;
  readonly answer?: ArrivedAnswer;
}

export interface RecordDeps extends ArrivalDeps {
  readonly history: History;
  readonly routerKey: RouterKey;
  /** What the send path already verified or signed: our own pushed posts are not checked twice. */
  readonly verified?: VerifiedRecords;
  readonly log: Logger;
}

/** A child logger made only when something is logged: most records log nothing. */
function lazyChild(log: Logger, bindings: Record<string, unknown>): () => Logger {
  let child: Logger | undefined;
  return () => (child ??= log.child(bindings));
}

/** Verifies, classifies, admits and stores one pushed record (in the batch's transaction). */
export async function receiveRecord(
  deps: RecordDeps,
  trx: Trx,
  frame: RecordFrame,
  read: RecordRead,
  keys: ReadonlyMap<string, Uint8Array>,
  checks: boolean,
): Promise<Received> {
  const { conv, seq } = frame;
  const { history, self } = deps;
  const log = lazyChild(deps.log, { conv, seq });
  const hash = read.ok ? read.hash : recordHashOf(frame.record);
  const refuse = (reason: string, fields: Record<string, unknown> = {}): Received => {
    log().warn({ ...fields, hash, reason }, "refused a record");
    return { outcome: { kind: "refused", reason } };
  };

  // Position. Our own post may be stored already: the send path stores it from its certificate.
  const { conversation, atHash, prevHash, storedAfter } = await history.position(trx, conv, seq);
  if (atHash !== undefined) {
    return atHash === hash
      ? { outcome: { kind: "duplicate" } }
      : refuse("it conflicts with the certified record at its position", { stored: atHash });
  }
  const contiguous = conversation?.contiguousSeq ?? 0;
  if (seq > contiguous + 1)
    return { outcome: { kind: "gap", reason: `the daemon holds this conversation up to ${contiguous}` } };
  if (seq <= contiguous) return refuse("it is below the contiguous cursor but not stored");

  // Verify.
  const routerKey = deps.routerKey.current;
  if (routerKey === undefined) return refuse("the router key is not pinned yet");
  const known = deps.verified;
  const verified = verifyRecordFrame(
    frame,
    { self, routerKey, keys, prevHash, members: conversation?.members, verified: known },
    read,
  );
  if (!verified.ok) return refuse(`it does not verify: ${verified.reason}`);
  if (verified.record.author === self) known?.certified(hash, seq, frame.certificate);
  const { record, members } = verified;

  // Classify and admit (our own post is only stored), then store.
  const arrival: Arrival =
    record.author === self
      ? { disposition: "own" }
      : await classifyAndAdmit(deps, trx, { record, hash, members }, log, checks);
  await history.append(trx, {
    record: {
      conv,
      seq,
      hash,
      record,
      bytes: frame.record,
      signatures: frame.signatures,
      certificate: frame.certificate,
    },
    disposition: arrival.disposition,
    opens: conversation === undefined ? members : undefined,
    storedAfter,
  });
  return { outcome: { kind: "stored" }, ...arrival };
}
