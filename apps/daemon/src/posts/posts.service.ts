/**
 * The send pipeline (SPEC §6): validate content → canonicalise the address → resolve members at
 * the router → open a cold group (GENESIS co-signed by every member) → bind the intent (PostId and
 * content, durably) → propose → certified → store the complete record → return. Anything that
 * fails after binding leaves the intent bound: the daemon proposes it again when the link comes
 * back, when the conversation's head moves, or after a restart, and the router's idempotency on
 * author + PostId means it is certified at most once.
 */
import {
  actionMessage,
  checkContentSize,
  conversationOf,
  decodeCanonical,
  encodeCanonical,
  encodeRecord,
  mintId,
  othersOf,
  parseMessageAddress,
  readRecord,
  type CanonicalAddress,
  type Content,
  type SendErrorReason,
  type SigningKey,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import { relaxedTransaction, type DaemonStore } from "../db/database.js";
import type { History } from "../history/history.service.js";
import { findConversation, findHead } from "../history/history.store.js";
import { LinkLost, LinkUnavailable, type ProposalAnswer, type RouterLink } from "../router-link/router-link.js";
import { bindIntent, boundIntents, settleIntent, type IntentRow } from "./intents.store.js";
import { SendError } from "./send-error.js";

export interface PostReceipt {
  readonly conv: string;
  readonly postId: string;
  readonly hash: string;
  readonly seq: number;
}

export interface PostsDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly key: SigningKey;
  readonly link: RouterLink;
  readonly history: History;
  readonly log: Logger;
  readonly now?: () => number;
}

const MAX_HEAD_RETRIES = 64;

function linkFailure({ state, refusal }: LinkUnavailable): SendError {
  switch (state) {
    case "not-registered":
      return new SendError(
        "not-registered",
        refusal === undefined
          ? "the router refused this agent's identity"
          : `the router refused this agent (${refusal.admission ?? refusal.reason}): ${refusal.detail}`,
      );
    case "version-mismatch":
      return new SendError("version-mismatch", "the router speaks another protocol version");
    case "router-untrusted":
      return new SendError("network-unavailable", "the router's key differs from the pinned one");
    case "connecting":
    case "offline":
      return new SendError("network-unavailable", "the router is unreachable");
  }
}

function refusalReason(answer: Extract<ProposalAnswer, { t: "refused" }>): SendErrorReason {
  switch (answer.reason) {
    case "unknown-agent":
      return "unknown-agent";
    case "content-invalid":
      return "content-invalid";
    case "not-member":
      return "membership-invalid";
    case "certification-unavailable":
    case "no-conversation":
      return "certification-unavailable";
    case "version-mismatch":
      return "version-mismatch";
    case "name-taken":
    case "not-admitted":
    case "not-authenticated":
    case "invalid-key":
      return "not-registered";
    case "bad-signature":
    case "malformed":
    case "internal":
      return "outcome-unknown";
  }
}

export class Posts {
  private readonly inFlight = new Set<string>();
  /** Conversations with a bound intent that is neither in flight nor certified. */
  private readonly waiting = new Set<string>();
  private readonly retryTimers = new Map<string, NodeJS.Timeout>();
  private readonly retryDelays = new Map<string, number>();
  private readonly convQueues = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: PostsDeps) {
    deps.history.onStored((conv) => this.resumeConversation(conv));
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
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
    try {
      await this.deps.link.ready();
    } catch (error) {
      if (error instanceof LinkUnavailable) throw linkFailure(error);
      throw error;
    }
  }

  /** Resolves names at the router (pinned keys answer without asking); unknown names are listed. */
  async resolve(names: readonly string[]): Promise<{ unknown: { name: string; reason: string }[] }> {
    let keys: Map<string, Uint8Array | undefined>;
    try {
      keys = await this.deps.history.keysFor(names);
    } catch (error) {
      if (error instanceof LinkUnavailable) throw linkFailure(error);
      if (error instanceof LinkLost)
        throw new SendError("network-unavailable", "the router did not answer the resolution");
      throw error;
    }
    const unknown = names.filter((n) => keys.get(n) === undefined).map((name) => ({ name, reason: "unknown-agent" }));
    return { unknown };
  }

  /** The whole pipeline for one post (a multicast or an answer). */
  async send(to: string, content: Content): Promise<PostReceipt> {
    const size = checkContentSize(content);
    if (!size.ok) throw new SendError("content-invalid", size.reason);
    const address = this.canonicalise(to);
    await this.checkLink();
    const others = othersOf(this.deps.self, address);
    const { unknown } = await this.resolve(others);
    if (unknown.length > 0)
      throw new SendError("unknown-agent", `not registered: ${unknown.map((u) => u.name).join(", ")}`);
    return this.post(address, content);
  }

  /** Opens the conversation if needed, binds and delivers. Address and members are checked. */
  async post(address: CanonicalAddress, content: Content): Promise<PostReceipt> {
    const conv = conversationOf(this.deps.self, address);
    if (address.kind === "group") await this.openGroup(conv, address.members);
    const intent = await this.bind(conv, content);
    return this.deliver(intent);
  }

  /** Creates the group's GENESIS unless it exists; every member's daemon co-signs it. */
  async openGroup(conv: string, members: readonly string[]): Promise<void> {
    const known = await findConversation(this.deps.store.db, conv);
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
    let answer: ProposalAnswer;
    try {
      answer = await this.deps.link.openGroup(bytes, this.deps.key.sign(actionMessage(bytes)));
    } catch (error) {
      if (error instanceof LinkUnavailable) throw linkFailure(error);
      if (error instanceof LinkLost)
        throw new SendError("certification-unavailable", "the group's genesis was not certified in time");
      throw error;
    }
    switch (answer.t) {
      case "head-moved":
        return;
      case "refused": {
        const named = answer.members?.map((m) => `${m.name} (${m.reason})`).join(", ");
        throw new SendError(
          refusalReason(answer),
          named === undefined ? answer.detail : `${answer.detail}; members: ${named}`,
        );
      }
      case "certified":
        // The co-signed genesis reaches every member, this daemon included, through the push.
        this.deps.log.info({ conv }, "opened a group");
        return;
    }
  }

  /** Binds a PostId to its content durably: from here on the post will be delivered. */
  async bind(conv: string, content: Content): Promise<IntentRow> {
    const intent: IntentRow = {
      postId: mintId("post"),
      conv,
      content: encodeCanonical(content),
      createdAt: this.now(),
    };
    try {
      await this.deps.store.db.transaction().execute((trx) => bindIntent(trx, intent));
    } catch (cause) {
      throw new SendError("persistence-failed", "the intent could not be stored; nothing was sent", { cause });
    }
    return intent;
  }

  /** Proposes a bound intent until certified; one conversation's proposals run one at a time. */
  deliver(intent: IntentRow): Promise<PostReceipt> {
    this.inFlight.add(intent.postId);
    const previous = this.convQueues.get(intent.conv) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(() => this.propose(intent))
      .catch((error: unknown) => {
        if (error instanceof SendError && error.reason === "delivery-pending") this.wait(intent.conv);
        throw error;
      });
    const tail = run.catch(() => undefined);
    this.convQueues.set(intent.conv, tail);
    void tail.then(() => {
      if (this.convQueues.get(intent.conv) === tail) this.convQueues.delete(intent.conv);
    });
    return run;
  }

  private async propose(intent: IntentRow): Promise<PostReceipt> {
    try {
      const decoded = decodeCanonical(intent.content);
      if (!decoded.ok) throw new Error(`bound content of ${intent.postId} is corrupt`);
      const content = decoded.value as Content;
      let prev = (await findHead(this.deps.store.db, intent.conv))?.hash ?? null;
      for (let attempt = 0; attempt < MAX_HEAD_RETRIES; attempt++) {
        const bytes = encodeRecord({
          kind: "post",
          conv: intent.conv,
          prev,
          author: this.deps.self,
          postId: intent.postId,
          at: intent.createdAt,
          content,
        });
        const signature = this.deps.key.sign(actionMessage(bytes));
        let answer: ProposalAnswer;
        try {
          answer = await this.deps.link.propose(bytes, signature);
        } catch (error) {
          if (error instanceof LinkUnavailable || error instanceof LinkLost) {
            throw new SendError("delivery-pending", "the post is bound and will be delivered when the router answers", {
              cause: error,
            });
          }
          throw error;
        }
        switch (answer.t) {
          case "head-moved":
            prev = answer.head;
            continue;
          case "refused":
            if (answer.reason === "internal") {
              throw new SendError("delivery-pending", "the router failed; the bound post will be proposed again");
            }
            await settleIntent(
              this.deps.store.db,
              intent.postId,
              "refused",
              { detail: `${answer.reason}: ${answer.detail}` },
              this.now(),
            );
            throw new SendError(refusalReason(answer), answer.detail);
          case "certified":
            return await this.store(
              intent,
              answer,
              answer.stored?.record ?? bytes,
              answer.stored?.signatures ?? [{ signer: this.deps.self, signature }],
            );
        }
      }
      throw new SendError("delivery-pending", "the conversation head kept moving; the post will be proposed again");
    } finally {
      this.inFlight.delete(intent.postId);
    }
  }

  private async store(
    intent: IntentRow,
    answer: Extract<ProposalAnswer, { t: "certified" }>,
    bytes: Uint8Array,
    signatures: { signer: string; signature: Uint8Array }[],
  ): Promise<PostReceipt> {
    const read = readRecord(bytes);
    if (!read.ok || read.hash !== answer.record) {
      throw new SendError("outcome-unknown", "the router certified a record this daemon cannot read back");
    }
    try {
      // The intent is durably bound; if power fails before this commit reaches the disk, the
      // restart re-proposes it and the router answers with this same record.
      await relaxedTransaction(this.deps.store.db, async (trx) => {
        await this.deps.history.storeOwn(trx, {
          conv: answer.conv,
          seq: answer.seq,
          hash: answer.record,
          bytes,
          record: read.record,
          signatures,
          certificate: answer.certificate,
        });
        await settleIntent(trx, intent.postId, "certified", { recordHash: answer.record }, this.now());
      });
    } catch (cause) {
      throw new SendError("outcome-unknown", "the post was certified but could not be stored locally", { cause });
    }
    this.retryDelays.delete(answer.conv);
    this.deps.history.ownStored(read.record, answer.record);
    return { conv: answer.conv, postId: intent.postId, hash: answer.record, seq: answer.seq };
  }

  /** Proposes every bound intent again (after a restart or when the link comes back). */
  async resume(): Promise<void> {
    for (const intent of await boundIntents(this.deps.store.db)) this.retry(intent);
  }

  /** A record was stored in `conv`: its head moved, so its waiting intents go again. */
  private resumeConversation(conv: string): void {
    if (!this.waiting.delete(conv)) return;
    void boundIntents(this.deps.store.db, conv).then(
      (intents) => intents.forEach((intent) => this.retry(intent)),
      (error: unknown) => this.deps.log.error({ err: error }, "could not read bound intents"),
    );
  }

  private retry(intent: IntentRow): void {
    if (this.inFlight.has(intent.postId)) return;
    this.deliver(intent).then(
      (receipt) => this.deps.log.info({ postId: receipt.postId, conv: receipt.conv }, "delivered a bound post"),
      (error: unknown) => {
        const reason = error instanceof SendError ? error.reason : "internal";
        this.deps.log.warn({ err: error, postId: intent.postId, reason }, "a bound post is still pending");
      },
    );
  }

  /**
   * Notes a conversation whose bound intent is still waiting, and proposes it again after a pause
   * that doubles up to 30 s, unless a record stored in the conversation (its head moved) or the
   * link's return resumes it first. The router's answer may have been lost while the post was
   * certified; proposing again is how the daemon learns it.
   */
  private wait(conv: string): void {
    this.waiting.add(conv);
    if (this.retryTimers.has(conv)) return;
    const delay = Math.min((this.retryDelays.get(conv) ?? 500) * 2, 30_000);
    this.retryDelays.set(conv, delay);
    const timer = setTimeout(() => {
      this.retryTimers.delete(conv);
      this.resumeConversation(conv);
    }, delay);
    timer.unref();
    this.retryTimers.set(conv, timer);
  }

  /** Stops the retry timers (daemon shutdown). */
  stop(): void {
    for (const timer of this.retryTimers.values()) clearTimeout(timer);
    this.retryTimers.clear();
  }
}
