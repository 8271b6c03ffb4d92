/**
 * Opening a cold group (SPEC §6): its GENESIS, co-signed by every member, is certified before the
 * first post is bound.
 */
import { actionMessage, encodeRecord, mintId, type SigningKey } from "@social-harness/protocol";
import type { Logger } from "pino";
import type { Db } from "../db/database.js";
import type { History } from "../history/history.service.js";
import { refusalReason, unboundFailure } from "./router-failures.js";
import type { PostsRouter } from "./router-port.js";
import { SendError } from "./send-error.js";

export interface GroupOpening {
  readonly db: Db;
  readonly self: string;
  readonly key: SigningKey;
  readonly router: PostsRouter;
  readonly history: History;
  readonly log: Logger;
  readonly now: () => number;
}

/** Creates the group's GENESIS unless it exists; every member's daemon co-signs it. */
export async function openGroup(deps: GroupOpening, conv: string, members: readonly string[]): Promise<void> {
  const known = await deps.history.conversation(deps.db, conv);
  if (known !== undefined && known.contiguousSeq > 0) return;
  const bytes = encodeRecord({
    kind: "genesis",
    conv,
    prev: null,
    author: deps.self,
    postId: mintId("post"),
    at: deps.now(),
    content: [],
    members,
  });
  const answer = await deps.router.openGroup(bytes, deps.key.sign(actionMessage(bytes)));
  if (!answer.ok) {
    // A genesis is not bound: whatever happened to it, no post of ours was made.
    if (answer.failure.kind === "lost")
      throw new SendError("certification-unavailable", "the group's genesis was not certified in time");
    throw unboundFailure(answer.failure, "");
  }
  switch (answer.value.t) {
    case "head-moved":
      return;
    case "refused": {
      const refused = answer.value;
      const named = refused.members?.map((m) => `${m.name} (${m.reason})`).join(", ");
      throw new SendError(
        refusalReason(refused),
        named === undefined ? refused.detail : `${refused.detail}; members: ${named}`,
      );
    }
    case "certified":
      // The co-signed genesis reaches every member, this daemon included, through the push.
      deps.log.info({ conv }, "opened a group");
      return;
  }
}
