/**
 * Binding with the firewall's check (seed 001 "Stock host projection"): the send is assessed before
 * its intents exist, the capture is confirmed in the very transaction that binds them, and a stale
 * capture is checked once more; a second stale capture is held (enforce) or recorded and allowed
 * without its advice (guidance). Without a check this is plain durable binding. `bindSend` is the
 * send pipeline's stage: the binding, with its outcome as the send's failure.
 */
import { encodeCanonical, type CheckedGuidance, type Content } from "@social-harness/protocol";
import type { Db } from "../db/database.js";
import { bindDurably, type BindOutcome, type IntentRow } from "./intents.store.js";
import type { Capture, OutboundSubject, SendCheck } from "./send-check.js";
import { SendError } from "./send-error.js";

export type CheckedBind =
  | { readonly outcome: "bound"; readonly intents: IntentRow[]; readonly guidance: CheckedGuidance | undefined }
  | Exclude<BindOutcome, { outcome: "bound" | "stale" }>;

export async function bindChecked(
  db: Db,
  check: SendCheck | undefined,
  input: {
    convs: readonly string[];
    postIds: readonly string[];
    content: Content;
    /** The content's canonical bytes, when the caller has them (the send's size check). */
    encoded?: Uint8Array | undefined;
    createdAt: number;
    subject: OutboundSubject | undefined;
    /** A capture the caller already made for the whole operation (a gather's members). */
    capture?: Capture;
  },
): Promise<CheckedBind> {
  const encoded = input.encoded ?? encodeCanonical(input.content);
  const intents: IntentRow[] = input.convs.map((conv, i) => ({
    postId: input.postIds[i]!,
    conv,
    content: encoded,
    createdAt: input.createdAt,
  }));
  const subject = input.subject;
  let capture =
    input.capture ??
    (check === undefined || subject === undefined ? undefined : await check.capture(subject, input.convs));
  for (let attempt = 0; ; attempt++) {
    const current = capture;
    const force = attempt === 2;
    const bound = await bindDurably(
      db,
      intents,
      current === undefined || check === undefined
        ? undefined
        : (trx) => check.confirm(trx, current, input.postIds, force),
    );
    if (bound.outcome === "bound")
      return { outcome: "bound", intents, guidance: force ? undefined : current?.guidance };
    if (bound.outcome !== "stale") return bound as Exclude<BindOutcome, { outcome: "bound" | "stale" }>;
    // Only a capture can be stale; check once more, then hold or allow the second stale one.
    if (attempt === 0) capture = await check!.capture(subject!, input.convs, current);
    else if (!check!.allowsStale(current!)) return check!.refuseStale(current!);
  }
}

export type BindIntents = typeof bindChecked;

export interface SendBinding {
  readonly db: Db;
  readonly sendCheck: SendCheck | undefined;
  /** Binds intents with the firewall's check (bindChecked); a test may wrap it (faults/). */
  readonly bindIntents: BindIntents | undefined;
  readonly now: () => number;
  /** Where an intent whose commit may have happened waits to be proposed (posts/redelivery.ts). */
  readonly redelivery: { wait(conv: string): void };
}

/**
 * Binds PostIds to their content durably: from here on the posts will be delivered. A store
 * failure before the commit is persistence-failed (nothing was sent); one at or after the
 * commit is outcome-unknown unless the intent is provably absent (seed 003 "Closed failures").
 */
export async function bindSend(
  deps: SendBinding,
  convs: readonly string[],
  postIds: readonly string[],
  content: Content,
  check: { subject: OutboundSubject | undefined; capture?: Capture | undefined },
  encoded?: Uint8Array,
): Promise<{ intents: IntentRow[]; guidance: CheckedGuidance | undefined }> {
  const bound = await (deps.bindIntents ?? bindChecked)(deps.db, deps.sendCheck, {
    convs,
    postIds,
    content,
    encoded,
    createdAt: deps.now(),
    subject: check.subject,
    ...(check.capture === undefined ? {} : { capture: check.capture }),
  });
  switch (bound.outcome) {
    case "failed-before-commit":
    case "absent-after-commit":
      throw new SendError("persistence-failed", "the intent could not be stored; nothing was sent", {
        cause: bound.cause,
      });
    case "unknown":
      for (const conv of convs) deps.redelivery.wait(conv);
      throw new SendError("outcome-unknown", "storing the intent failed at its commit; it may still be sent", {
        cause: bound.cause,
      });
    case "bound":
      return { intents: bound.intents, guidance: bound.guidance };
  }
}
