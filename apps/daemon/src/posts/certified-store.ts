/**
 * The answer to a proposal, for its conversation's lane (posts/proposal-lanes.ts): a certified
 * post is checked like any other record and stored, its intent retired in the same transaction; a
 * refused one retires its intent.
 */
import {
  membersOfConversation,
  readRecord,
  verifyCertificate,
  type CheckedGuidance,
  type RecordFields,
  type RecordRead,
} from "@social-harness/protocol";
import { turnTransaction, type Db } from "../db/database.js";
import type { History } from "../history/history.service.js";
import type { VerifiedRecords } from "../history/verified-records.js";
import type { RouterKey } from "../identity/router-key.js";
import { retireIntent, retireIntentHeld, type IntentRow } from "./intents.store.js";
import type { Signed } from "./proposal-lanes.js";
import { refusalReason } from "./router-failures.js";
import type { ProposalAnswer } from "./router-port.js";
import { SendError } from "./send-error.js";

export interface PostReceipt {
  readonly conv: string;
  readonly postId: string;
  readonly hash: string;
  readonly seq: number;
  /** The firewall's advice on the admitted send, when a norm judgment was left uncertain. */
  readonly guidance?: CheckedGuidance;
}

/** Told once each of our own posts is stored, whichever path stored it. */
export type OwnPostListener = (record: RecordFields, hash: string) => void;

export interface CertifiedStore {
  readonly db: Db;
  readonly self: string;
  readonly history: History;
  readonly routerKey: RouterKey;
  /** Our signatures and verified certificates, shared with ingress so none is checked twice. */
  readonly verified?: VerifiedRecords | undefined;
  /** Told of each certified post, so its conversation's next wait starts short (posts/redelivery.ts). */
  readonly redelivery: { certified(conv: string): void };
  readonly ownListeners: ReadonlySet<OwnPostListener>;
}

/** The lanes' `settle`: a certified or refused proposal; the record is stored, or the refused intent retired. */
export function proposalSettler(
  deps: CertifiedStore,
): (intent: IntentRow, signed: Signed, answer: Exclude<ProposalAnswer, { t: "head-moved" }>) => Promise<PostReceipt> {
  return async (intent, signed, answer) => {
    if (answer.t === "certified") {
      const stored = answer.stored ?? {
        record: signed.bytes,
        signatures: [{ signer: deps.self, signature: signed.signature }],
      };
      // Our own bytes: their fields and hash are those we encoded them from (no second decode).
      const read: RecordRead =
        answer.stored === undefined && signed.fields !== undefined && signed.hash !== undefined
          ? { ok: true, record: signed.fields, hash: signed.hash }
          : readRecord(stored.record);
      return store(deps, intent, answer, stored, read);
    }
    if (answer.reason === "internal")
      throw new SendError("delivery-pending", "the router failed; the bound post will be proposed again");
    await retireIntent(deps.db, intent.postId);
    throw new SendError(refusalReason(answer), answer.detail);
  };
}

/** Stores our certified post (its certificate checked like any other) and retires its intent. */
async function store(
  deps: CertifiedStore,
  intent: IntentRow,
  answer: Extract<ProposalAnswer, { t: "certified" }>,
  stored: { record: Uint8Array; signatures: { signer: string; signature: Uint8Array }[] },
  read: RecordRead,
): Promise<PostReceipt> {
  const { record: bytes, signatures } = stored;
  const routerKey = deps.routerKey.current;
  if (
    !read.ok ||
    read.hash !== answer.record ||
    routerKey === undefined ||
    !(
      deps.verified?.isVerifiedCertificate(answer.record, answer.seq, answer.certificate) === true ||
      verifyCertificate(routerKey, { conv: answer.conv, seq: answer.seq, record: answer.record }, answer.certificate)
    )
  ) {
    throw new SendError("outcome-unknown", "the router certified a record this daemon cannot verify");
  }
  deps.verified?.certified(answer.record, answer.seq, answer.certificate);
  try {
    // The intent is durably bound; if power fails before this commit reaches the disk, the
    // restart re-proposes it and the router answers with this same record.
    await turnTransaction(deps.db, "relaxed", (held) => {
      deps.history.appendOwnHeld(held, {
        record: {
          conv: answer.conv,
          seq: answer.seq,
          hash: answer.record,
          record: read.record,
          bytes,
          signatures,
          certificate: answer.certificate,
        },
        disposition: "own",
        opens: membersOfConversation(answer.conv) ?? [],
      });
      retireIntentHeld(held, intent.postId);
    });
  } catch (cause) {
    throw new SendError("outcome-unknown", "the post was certified but could not be stored locally", { cause });
  }
  deps.redelivery.certified(answer.conv);
  for (const listener of deps.ownListeners) listener(read.record, answer.record);
  return { conv: answer.conv, postId: intent.postId, hash: answer.record, seq: answer.seq };
}
