/**
 * The router's answer to the author of a proposal (SPEC §5): its certificate (with the stored
 * record when a retry's bytes differ from the certified ones), the head it must build on, or a
 * refusal with its reason; each answer is counted in the router's metrics.
 */
import { decodeSignatureList, hop } from "@social-harness/protocol";
import type { AppendOutcome } from "../conversations/append.service.js";
import type { RouterMetrics } from "../metrics/router-metrics.js";
import type { LinkSession } from "./session.js";

/** Answers the author of a proposal or a group's genesis: certified, head moved, or refused. */
export function answerProposal(
  session: LinkSession,
  id: number,
  outcome: AppendOutcome,
  started: number,
  metrics: RouterMetrics | undefined,
): void {
  metrics?.answered(
    outcome.kind,
    outcome.kind === "refused" ? outcome.reason : undefined,
    (performance.now() - started) / 1000,
  );
  switch (outcome.kind) {
    case "certified": {
      const { record } = outcome;
      const stored = outcome.differs ? storedOf(record) : undefined;
      session.send({
        t: "certified",
        id,
        conv: record.conv,
        seq: record.seq,
        record: record.hash,
        certificate: new Uint8Array(record.certificate),
        ...(stored === undefined ? {} : { stored }),
      });
      hop("router.certificate-sent", session.name);
      return;
    }
    case "head-moved":
      return session.send({ t: "head-moved", id, conv: outcome.conv, head: outcome.head });
    case "refused":
      return session.send({
        t: "refused",
        id,
        reason: outcome.reason,
        detail: outcome.detail,
        ...(outcome.members === undefined ? {} : { members: outcome.members }),
      });
  }
}

function storedOf(record: { bytes: Uint8Array; signatures: Uint8Array }) {
  return { record: new Uint8Array(record.bytes), signatures: decodeSignatureList(record.signatures) };
}
