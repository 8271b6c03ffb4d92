/**
 * The arrival of a verified record from another author (seed 003 "Inbound items"): projected,
 * classified (one inbound item, an answer, an all_gather close, or consumed) and, unless consumed,
 * admitted, inside the transaction that stores the record.
 */
import type { RecordFields } from "@social-harness/protocol";
import type { Logger } from "pino";
import type { Trx } from "../db/database.js";
import type { Admission, Arrival } from "./admission.js";
import type { Classification, CollectiveClassifier } from "./classification.js";
import { projectRecord } from "./projection.js";

export interface ArrivalDeps {
  readonly self: string;
  readonly collectives: CollectiveClassifier;
  readonly admission: Admission;
}

/**
 * Projects and classifies a record from another author, then admits what it became: one inbound
 * item, an answer (checked when the policy checks inbound subjects), or an all_gather close.
 */
export async function classifyAndAdmit(
  deps: ArrivalDeps,
  trx: Trx,
  input: { record: RecordFields; hash: string; members: readonly string[] },
  log: () => Logger,
  checks: boolean,
): Promise<Arrival> {
  const { record, hash, members } = input;
  const projection = projectRecord(deps.self, record, members);
  const classification: Classification =
    projection.kind === "collective"
      ? await deps.collectives.classify(trx, {
          record,
          hash,
          members,
          part: projection.part,
          message: projection.message,
        })
      : projection.kind === "deliver"
        ? { kind: "item", item: projection.item }
        : { kind: "consume", reason: projection.reason };
  const origin = { sender: record.author, conv: record.conv, recordHash: hash };
  if (classification.kind === "consume") {
    log().info({ hash, reason: classification.reason }, "consumed a record");
    return { disposition: "consumed" };
  }
  return deps.admission.arrive(trx, origin, classification, checks);
}
