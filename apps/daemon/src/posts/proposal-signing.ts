/**
 * Signing a bound intent as a post record that names `prev`, for its conversation's lane
 * (posts/proposal-lanes.ts). Our signature is noted so ingress does not check it again.
 */
import {
  actionMessage,
  decodeCanonical,
  encodeFieldsWithContent,
  fieldsOfDraft,
  recordHashOf,
  type Content,
  type SigningKey,
} from "@social-harness/protocol";
import type { VerifiedRecords } from "../history/verified-records.js";
import type { IntentRow } from "./intents.store.js";
import type { Signed } from "./proposal-lanes.js";

export interface ProposalSigning {
  readonly self: string;
  readonly key: SigningKey;
  /** Our signatures and verified certificates, shared with ingress so none is checked twice. */
  readonly verified?: VerifiedRecords | undefined;
}

/** The lanes' `sign`: encodes and signs one bound intent after `prev`. */
export function proposalSigner(deps: ProposalSigning): (intent: IntentRow, prev: string | null) => Signed {
  return (intent, prev) => {
    const decoded = decodeCanonical(intent.content);
    if (!decoded.ok) throw new Error(`bound content of ${intent.postId} is corrupt`);
    const fields = fieldsOfDraft({
      kind: "post",
      conv: intent.conv,
      prev,
      author: deps.self,
      postId: intent.postId,
      at: intent.createdAt,
      content: decoded.value as Content,
    });
    // The bound bytes decoded strictly, so they are the content's canonical encoding: copied in.
    const bytes = encodeFieldsWithContent(fields, intent.content);
    const signature = deps.key.sign(actionMessage(bytes));
    const hash = recordHashOf(bytes);
    deps.verified?.signed(hash, signature);
    return { bytes, signature, hash, fields };
  };
}
