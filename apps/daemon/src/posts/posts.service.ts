/**
 * The send pipeline (SPEC §6): validate content → canonicalise the address → resolve members at
 * the router → open a cold group (GENESIS co-signed by every member) → bind the intent (PostId and
 * content, durably) → propose → certified → store the complete record → return. Anything that
 * fails after binding leaves the intent bound, for posts/redelivery.ts to propose again. This file
 * composes the stages, each called once in order: the firewall's check (send-subject.ts), the
 * group's opening (open-group.ts), the binding (checked-binding.ts), and the delivery through the
 * proposal lanes, which sign (proposal-signing.ts) and settle (certified-store.ts) each post.
 */
import {
  checkContentSize,
  conversationOf,
  directConversation,
  mintId,
  othersOf,
  parseMessageAddress,
  traced,
  type CanonicalAddress,
  type CheckedGuidance,
  type Content,
  type SigningKey,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import type { DaemonStore } from "../db/database.js";
import type { History } from "../history/history.service.js";
import type { VerifiedRecords } from "../history/verified-records.js";
import type { RouterKey } from "../identity/router-key.js";
import { proposalSettler, type OwnPostListener, type PostReceipt } from "./certified-store.js";
import { bindSend, type BindIntents, type SendBinding } from "./checked-binding.js";
import type { IntentRow } from "./intents.store.js";
import { openGroup, type GroupOpening } from "./open-group.js";
import { ProposalLanes } from "./proposal-lanes.js";
import { proposalSigner } from "./proposal-signing.js";
import { Redelivery } from "./redelivery.js";
import { unboundFailure } from "./router-failures.js";
import type { PostsRouter } from "./router-port.js";
import type { SendCheck } from "./send-check.js";
import { SendError } from "./send-error.js";
import { checkSend, subjectOfSend } from "./send-subject.js";

export type { BindIntents } from "./checked-binding.js";
export type { OwnPostListener, PostReceipt } from "./certified-store.js";

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

export class Posts {
  private readonly lanes: ProposalLanes<PostReceipt>;
  private readonly redelivery: Redelivery<PostReceipt>;
  private readonly ownListeners = new Set<OwnPostListener>();
  private readonly opening: GroupOpening;
  private readonly binding: SendBinding;

  constructor(private readonly deps: PostsDeps) {
    const now = deps.now ?? Date.now;
    const db = deps.store.db;
    // The one tie back: a bound intent is proposed through its lane, and a lane's certified post
    // restarts its conversation's wait.
    this.redelivery = new Redelivery({
      db,
      propose: (intent) => this.lanes.deliver(intent),
      log: deps.log,
    });
    this.lanes = new ProposalLanes<PostReceipt>({
      head: async (conv) => (await deps.history.head(conv))?.hash ?? null,
      sign: proposalSigner({ self: deps.self, key: deps.key, verified: deps.verified }),
      propose: (signed) => deps.router.propose(signed.bytes, signed.signature),
      settle: proposalSettler({
        db,
        self: deps.self,
        history: deps.history,
        routerKey: deps.routerKey,
        verified: deps.verified,
        redelivery: this.redelivery,
        ownListeners: this.ownListeners,
      }),
      pending: (why) =>
        new SendError(
          "delivery-pending",
          why === "lost"
            ? "the post is bound and will be delivered when the router answers"
            : "the conversation head kept moving; the post will be proposed again",
        ),
    });
    const { self, key, router, history, log, sendCheck, bindIntents } = deps;
    this.opening = { db, self, key, router, history, log, now };
    this.binding = { db, sendCheck, bindIntents, now, redelivery: this.redelivery };
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
    return this.post(address, content, size.encoded);
  }

  /**
   * Opens the conversation if needed, has the firewall check the send (when the policy checks
   * sends), binds and delivers. Address and members are checked by the caller.
   */
  async post(address: CanonicalAddress, content: Content, encoded?: Uint8Array): Promise<PostReceipt> {
    const { delivery, guidance } = await this.postChecked(address, content, encoded);
    const receipt = await delivery;
    return guidance === undefined ? receipt : { ...receipt, guidance };
  }

  /** post() in two steps: checked and bound (the post will go out), then its delivery. */
  async postChecked(
    address: CanonicalAddress,
    content: Content,
    /** The content's canonical bytes, when the caller has encoded it already. */
    encoded?: Uint8Array,
  ): Promise<{ delivery: Promise<PostReceipt>; guidance?: CheckedGuidance }> {
    const conv = conversationOf(this.deps.self, address);
    const postId = mintId("post");
    // The check comes before anything exists (seed 001 "Stock host projection"): a refused first
    // send to a group leaves no GENESIS at the router.
    const { subject, capture } = await checkSend(this.deps.sendCheck, {
      self: this.deps.self,
      address,
      postId,
      content,
      convs: [conv],
    });
    if (address.kind === "group") await openGroup(this.opening, conv, address.members);
    const { intents, guidance } = await traced("bind", () =>
      bindSend(this.binding, [conv], [postId], content, { subject, capture }, encoded),
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
      bindSend(this.binding, convs, postIds, content, {
        subject: subjectOfSend(this.deps.self, address, postIds[0]!, content),
      }),
    );
    const deliveries = members.map((member, i) => ({ member, delivery: this.deliver(intents[i]!) }));
    return guidance === undefined ? { deliveries } : { deliveries, guidance };
  }

  /** Creates the group's GENESIS unless it exists; every member's daemon co-signs it (open-group.ts). */
  openGroup(conv: string, members: readonly string[]): Promise<void> {
    return openGroup(this.opening, conv, members);
  }

  /**
   * Proposes a bound intent until it is certified or refused. A conversation's intents go out in
   * their binding order, pipelined: each names the one before it (posts/proposal-lanes.ts).
   */
  deliver(intent: IntentRow): Promise<PostReceipt> {
    return this.redelivery.deliver(intent);
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
