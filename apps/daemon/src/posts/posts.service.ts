/**
 * The send pipeline (SPEC §6): validate content → canonicalise the address → resolve members at
 * the router → open a cold group (GENESIS co-signed by every member) → bind the intent (PostId and
 * content, durably) → propose → certified → store the complete record → return. Anything that
 * fails after binding leaves the intent bound, for posts/redelivery.ts to propose again.
 */
import {
  actionMessage,
  checkContentSize,
  conversationOf,
  decodeCanonical,
  directConversation,
  encodeRecord,
  membersOfConversation,
  mintId,
  othersOf,
  parseMessageAddress,
  readRecord,
  recordHashOf,
  traced,
  verifyCertificate,
  type CanonicalAddress,
  type CheckedGuidance,
  type Content,
  type RecordFields,
  type SigningKey,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import { relaxedTransaction, type DaemonStore } from "../db/database.js";
import type { History } from "../history/history.service.js";
import type { VerifiedRecords } from "../history/verified-records.js";
import type { RouterKey } from "../identity/router-key.js";
import { bindChecked, subjectOfSend } from "./checked-binding.js";
import { ProposalLanes, type Signed } from "./proposal-lanes.js";
import { settleIntent, type IntentRow } from "./intents.store.js";
import { Redelivery } from "./redelivery.js";
import { refusalReason, unboundFailure } from "./router-failures.js";
import type { PostsRouter, ProposalAnswer } from "./router-port.js";
import type { Capture, OutboundSubject, SendCheck } from "./send-check.js";
import { SendError } from "./send-error.js";

export interface PostReceipt {
  readonly conv: string;
  readonly postId: string;
  readonly hash: string;
  readonly seq: number;
  /** The firewall's advice on the admitted send, when a norm judgment was left uncertain. */
  readonly guidance?: CheckedGuidance;
}

export interface PostsDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly key: SigningKey;
  readonly router: PostsRouter;
  readonly history: History;
  readonly routerKey: RouterKey;
  /** Binds intents with the firewall's check (checked-binding.ts); a test may wrap it (faults/). */
  readonly bindIntents?: BindIntents;
  /** The firewall's check of each send; absent, sends are bound unchecked. */
  readonly sendCheck?: SendCheck;
  readonly log: Logger;
  readonly now?: () => number;
  /** Our signatures and verified certificates, shared with ingress so none is checked twice. */
  readonly verified?: VerifiedRecords;
}

export type BindIntents = typeof bindChecked;

/** Told once each of our own posts is stored, whichever path stored it. */
export type OwnPostListener = (record: RecordFields, hash: string) => void;

export class Posts {
  private readonly lanes = new ProposalLanes<PostReceipt>({
    head: async (conv) => (await this.deps.history.head(conv))?.hash ?? null,
    sign: (intent, prev) => this.signProposal(intent, prev),
    propose: (signed) => this.deps.router.propose(signed.bytes, signed.signature),
    settle: (intent, signed, answer) => this.settleProposal(intent, signed, answer),
    pending: (why) =>
      new SendError(
        "delivery-pending",
        why === "lost"
          ? "the post is bound and will be delivered when the router answers"
          : "the conversation head kept moving; the post will be proposed again",
      ),
  });
  private readonly redelivery: Redelivery<PostReceipt>;
  private readonly ownListeners = new Set<OwnPostListener>();

  constructor(private readonly deps: PostsDeps) {
    this.redelivery = new Redelivery({
      db: deps.store.db,
      propose: (intent) => this.lanes.deliver(intent),
      log: deps.log,
    });
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Subscribes to our own stored posts (the collective engine follows its requests and closes). */
  onOwnPost(listener: OwnPostListener): void {
    this.ownListeners.add(listener);
  }

  canonicalise(to: string): CanonicalAddress {
    const parsed = parseMessageAddress(to, this.deps.self);
    if (!parsed.ok) throw new SendError(parsed.reason, parsed.detail);
    return parsed.address;
  }

  /** The canonical form of `to`, or undefined when it has none. */
  tryCanonicalise(to: string): string | undefined {
    const parsed = parseMessageAddress(to, this.deps.self);
    return parsed.ok ? parsed.address.address : undefined;
  }

  async checkLink(): Promise<void> {
    const ready = await this.deps.router.ready();
    if (!ready.ok) throw unboundFailure(ready.failure, "the router did not answer");
  }

  /** Resolves names at the router (pinned keys answer without asking); unknown names are listed. */
  async resolve(names: readonly string[]): Promise<{ unknown: { name: string; reason: "unknown-agent" }[] }> {
    const keys = await this.deps.router.keysFor(names);
    if (!keys.ok) throw unboundFailure(keys.failure, "the router did not answer the resolution");
    const unknown = names.filter((n) => keys.value.get(n) === undefined);
    return { unknown: unknown.map((name) => ({ name, reason: "unknown-agent" as const })) };
  }

  /** The whole pipeline for one post (a multicast or an answer). */
  async send(to: string, content: Content): Promise<PostReceipt> {
    const size = checkContentSize(content);
    if (!size.ok) throw new SendError("content-invalid", size.reason);
    const address = this.canonicalise(to);
    await this.checkLink();
    const { unknown } = await this.resolve(othersOf(this.deps.self, address));
    if (unknown.length > 0)
      throw new SendError("unknown-agent", `not registered: ${unknown.map((u) => u.name).join(", ")}`);
    return this.post(address, content);
  }

  /**
   * Opens the conversation if needed, has the firewall check the send (when the policy checks
   * sends), binds and delivers. Address and members are checked by the caller.
   */
  async post(address: CanonicalAddress, content: Content): Promise<PostReceipt> {
    const { delivery, guidance } = await this.postChecked(address, content);
    const receipt = await delivery;
    return guidance === undefined ? receipt : { ...receipt, guidance };
  }

  /** post() in two steps: checked and bound (the post will go out), then its delivery. */
  async postChecked(
    address: CanonicalAddress,
    content: Content,
  ): Promise<{ delivery: Promise<PostReceipt>; guidance?: CheckedGuidance }> {
    const conv = conversationOf(this.deps.self, address);
    const postId = mintId("post");
    const subject = subjectOfSend(this.deps.self, address, postId, content);
    // The check comes before anything exists (seed 001 "Stock host projection"): a refused first
    // send to a group leaves no GENESIS at the router.
    const capture = await this.capture(subject, [conv]);
    if (address.kind === "group") await this.openGroup(conv, address.members);
    const { intents, guidance } = await traced("bind", () =>
      this.bind([conv], [postId], content, { subject, capture }),
    );
    const delivery = this.deliver(intents[0]!);
    return guidance === undefined ? { delivery } : { delivery, guidance };
  }

  /**
   * One post of the same content to each member's direct conversation (a gather's requests),
   * checked once as one send to `address` and bound in one transaction; each is then delivered.
   */
  async postToEach(
    address: CanonicalAddress,
    content: Content,
  ): Promise<{ deliveries: { member: string; delivery: Promise<PostReceipt> }[]; guidance?: CheckedGuidance }> {
    const members = othersOf(this.deps.self, address);
    const convs = members.map((member) => directConversation(this.deps.self, member));
    const postIds = members.map(() => mintId("post"));
    const { intents, guidance } = await traced("bind", () =>
      this.bind(convs, postIds, content, { subject: subjectOfSend(this.deps.self, address, postIds[0]!, content) }),
    );
    const deliveries = members.map((member, i) => ({ member, delivery: this.deliver(intents[i]!) }));
    return guidance === undefined ? { deliveries } : { deliveries, guidance };
  }

  /** The firewall's check of a send, taken before its conversation is opened; undefined without one. */
  private capture(subject: OutboundSubject | undefined, convs: readonly string[]): Promise<Capture | undefined> {
    const check = this.deps.sendCheck;
    return check === undefined || subject === undefined ? Promise.resolve(undefined) : check.capture(subject, convs);
  }

  /** Creates the group's GENESIS unless it exists; every member's daemon co-signs it. */
  async openGroup(conv: string, members: readonly string[]): Promise<void> {
    const known = await this.deps.history.conversation(this.deps.store.db, conv);
    if (known !== undefined && known.contiguousSeq > 0) return;
    const bytes = encodeRecord({
      kind: "genesis",
      conv,
      prev: null,
      author: this.deps.self,
      postId: mintId("post"),
      at: this.now(),
      content: [],
      members,
    });
    const answer = await this.deps.router.openGroup(bytes, this.deps.key.sign(actionMessage(bytes)));
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
        this.deps.log.info({ conv }, "opened a group");
        return;
    }
  }

  /**
   * Binds PostIds to their content durably: from here on the posts will be delivered. A store
   * failure before the commit is persistence-failed (nothing was sent); one at or after the
   * commit is outcome-unknown unless the intent is provably absent (seed 003 "Closed failures").
   */
  private async bind(
    convs: readonly string[],
    postIds: readonly string[],
    content: Content,
    check: { subject: OutboundSubject | undefined; capture?: Capture | undefined },
  ): Promise<{ intents: IntentRow[]; guidance: CheckedGuidance | undefined }> {
    const bound = await (this.deps.bindIntents ?? bindChecked)(this.deps.store.db, this.deps.sendCheck, {
      convs,
      postIds,
      content,
      createdAt: this.now(),
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
        for (const conv of convs) this.redelivery.wait(conv);
        throw new SendError("outcome-unknown", "storing the intent failed at its commit; it may still be sent", {
          cause: bound.cause,
        });
      case "bound":
        return { intents: bound.intents, guidance: bound.guidance };
    }
  }

  /**
   * Proposes a bound intent until it is certified or refused. A conversation's intents go out in
   * their binding order, pipelined: each names the one before it (posts/proposal-lanes.ts).
   */
  deliver(intent: IntentRow): Promise<PostReceipt> {
    return this.redelivery.deliver(intent);
  }

  private signProposal(intent: IntentRow, prev: string | null): Signed {
    const decoded = decodeCanonical(intent.content);
    if (!decoded.ok) throw new Error(`bound content of ${intent.postId} is corrupt`);
    const bytes = encodeRecord({
      kind: "post",
      conv: intent.conv,
      prev,
      author: this.deps.self,
      postId: intent.postId,
      at: intent.createdAt,
      content: decoded.value as Content,
    });
    const signature = this.deps.key.sign(actionMessage(bytes));
    const hash = recordHashOf(bytes);
    this.deps.verified?.signed(hash, signature);
    return { bytes, signature, hash };
  }

  /** A certified or refused proposal: the record is stored, or the intent settled as refused. */
  private async settleProposal(
    intent: IntentRow,
    signed: Signed,
    answer: Exclude<ProposalAnswer, { t: "head-moved" }>,
  ): Promise<PostReceipt> {
    if (answer.t === "certified") {
      return this.store(
        intent,
        answer,
        answer.stored?.record ?? signed.bytes,
        answer.stored?.signatures ?? [{ signer: this.deps.self, signature: signed.signature }],
      );
    }
    if (answer.reason === "internal")
      throw new SendError("delivery-pending", "the router failed; the bound post will be proposed again");
    await settleIntent(
      this.deps.store.db,
      intent.postId,
      "refused",
      { detail: `${answer.reason}: ${answer.detail}` },
      this.now(),
    );
    throw new SendError(refusalReason(answer), answer.detail);
  }

  /** Stores our certified post (its certificate checked like any other) and settles its intent. */
  private async store(
    intent: IntentRow,
    answer: Extract<ProposalAnswer, { t: "certified" }>,
    bytes: Uint8Array,
    signatures: { signer: string; signature: Uint8Array }[],
  ): Promise<PostReceipt> {
    const read = readRecord(bytes);
    const routerKey = this.deps.routerKey.current;
    if (
      !read.ok ||
      read.hash !== answer.record ||
      routerKey === undefined ||
      !(
        this.deps.verified?.isVerifiedCertificate(answer.record, answer.seq, answer.certificate) === true ||
        verifyCertificate(routerKey, { conv: answer.conv, seq: answer.seq, record: answer.record }, answer.certificate)
      )
    ) {
      throw new SendError("outcome-unknown", "the router certified a record this daemon cannot verify");
    }
    this.deps.verified?.certified(answer.record, answer.seq, answer.certificate);
    try {
      // The intent is durably bound; if power fails before this commit reaches the disk, the
      // restart re-proposes it and the router answers with this same record.
      await relaxedTransaction(this.deps.store.db, async (trx) => {
        const existing = await this.deps.history.recordAt(trx, answer.conv, answer.seq);
        if (existing !== undefined && existing.hash !== answer.record)
          throw new Error("a different record is stored at our record's position");
        if (existing === undefined) {
          await this.deps.history.append(trx, {
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
        }
        await settleIntent(trx, intent.postId, "certified", { recordHash: answer.record }, this.now());
      });
    } catch (cause) {
      throw new SendError("outcome-unknown", "the post was certified but could not be stored locally", { cause });
    }
    this.redelivery.certified(answer.conv);
    for (const listener of this.ownListeners) listener(read.record, answer.record);
    return { conv: answer.conv, postId: intent.postId, hash: answer.record, seq: answer.seq };
  }

  /**
   * Resolves once our proposals in `conv` so far are settled, or undefined when none is in flight:
   * the router does not push our own posts back, so a record pushed after one of them is
   * received once that post is stored (its predecessor in the chain).
   */
  ownSettled(conv: string): Promise<void> | undefined {
    return this.lanes.settled(conv);
  }

  /** Proposes every bound intent again (after a restart or when the link comes back). */
  resume(): Promise<void> {
    return this.redelivery.resume();
  }

  /** A record was stored in `conv`: its head moved, so its waiting intents go again. */
  headMoved(conv: string): void {
    this.redelivery.headMoved(conv);
  }

  /** Stops the retry timers (daemon shutdown). */
  stop(): void {
    this.redelivery.stop();
  }
}
