/**
 * Opening a group (SPEC §5): the GENESIS record must carry the signature of every member. The
 * router asks each member's daemon, wherever its link is, to co-sign; a member without a live
 * link, a refusal, or silence past the timeout means certification-unavailable naming them.
 */
import { randomUUID } from "node:crypto";
import {
  actionMessage,
  decodeBase64url,
  encodeBase64url,
  verifySignature,
  type SignatureEntry,
} from "@social-harness/protocol";
import type { CosignMessage } from "../bus/bus.js";
import { findAgents } from "../registry/registry.store.js";
import { checkProposal, type AppendBatcher, type AppendContext, type AppendOutcome } from "./append.service.js";
import { lockHead } from "./conversations.store.js";

export interface GenesisOptions {
  /** How long other routers have to say they hold a member's link (0 with a single router). */
  readonly deliveryTimeoutMs: number;
  readonly cosignTimeoutMs: number;
}

interface PendingCosign {
  readonly record: Uint8Array;
  readonly keys: Map<string, Uint8Array>;
  readonly delivered: Set<string>;
  readonly signatures: Map<string, Uint8Array>;
  readonly refusals: Map<string, string>;
  wake(): void;
}

export class GenesisCoordinator {
  private readonly pending = new Map<string, PendingCosign>();

  constructor(
    private readonly ctx: AppendContext,
    private readonly appends: AppendBatcher,
    private readonly options: GenesisOptions,
  ) {
    ctx.bus.onCosign((message) => this.observe(message));
  }

  private observe(message: CosignMessage): void {
    const pending = this.pending.get(message.request);
    if (pending === undefined) return;
    switch (message.kind) {
      case "request":
        return;
      case "delivered":
        pending.delivered.add(message.member);
        break;
      case "signature": {
        const key = pending.keys.get(message.member);
        const signature = decodeBase64url(message.signature);
        if (
          key !== undefined &&
          signature !== undefined &&
          verifySignature(key, actionMessage(pending.record), signature)
        ) {
          pending.signatures.set(message.member, signature);
        } else {
          pending.refusals.set(message.member, "its co-signature does not verify");
        }
        break;
      }
      case "refused":
        pending.refusals.set(message.member, message.reason);
        break;
    }
    pending.wake();
  }

  /** Opens the group `author` proposes, collecting every other member's co-signature. */
  async open(
    author: { name: string; publicKey: Uint8Array },
    bytes: Uint8Array,
    signature: Uint8Array,
  ): Promise<AppendOutcome> {
    const checked = checkProposal(author, "genesis", bytes, signature);
    if (!checked.ok) return checked.refusal;
    const { record, hash } = checked;
    const members = record.members ?? [];
    const agents = await findAgents(this.ctx.store.db, members);
    const unknown = members.filter((m) => !agents.has(m));
    if (unknown.length > 0) {
      return {
        kind: "refused",
        reason: "unknown-agent",
        detail: `not registered: ${unknown.join(", ")}`,
        members: unknown.map((name) => ({ name, reason: "unknown-agent" })),
      };
    }
    const head = await lockHead(this.ctx.store.db, this.ctx.store.dialect, record.conv);
    if (head !== undefined) return { kind: "head-moved", conv: record.conv, head: head.hash };

    const others = members.filter((m) => m !== author.name);
    const signatures = await this.collect(bytes, others, new Map(others.map((m) => [m, agents.get(m)!.publicKey])));
    if (!signatures.ok) {
      return {
        kind: "refused",
        reason: "certification-unavailable",
        detail: `the group cannot start without every member: ${signatures.missing.map((m) => `${m.name} (${m.reason})`).join(", ")}`,
        members: signatures.missing,
      };
    }
    const all: SignatureEntry[] = members.map((m) => ({
      signer: m,
      signature: m === author.name ? signature : signatures.value.get(m)!,
    }));
    const outcome = await this.appends.commit({
      conv: record.conv,
      bytes,
      hash,
      prev: null,
      author: author.name,
      postId: record.postId,
      signatures: all,
      createMembers: members,
    });
    if (outcome.kind === "certified" && !outcome.existed) {
      this.ctx.bus.publish({ type: "record", body: { conv: outcome.record.conv, seq: outcome.record.seq } });
    }
    return outcome;
  }

  private async collect(
    record: Uint8Array,
    members: readonly string[],
    keys: Map<string, Uint8Array>,
  ): Promise<
    { ok: true; value: Map<string, Uint8Array> } | { ok: false; missing: { name: string; reason: string }[] }
  > {
    const request = randomUUID();
    let wake = () => {};
    const pending: PendingCosign = {
      record,
      keys,
      delivered: new Set(),
      signatures: new Map(),
      refusals: new Map(),
      wake: () => wake(),
    };
    this.pending.set(request, pending);
    try {
      const encoded = encodeBase64url(record);
      for (const member of members) {
        this.ctx.bus.publish({ type: "cosign", body: { kind: "request", request, member, record: encoded } });
      }
      const started = Date.now();
      const deliveredBy = started + this.options.deliveryTimeoutMs;
      const signedBy = started + this.options.cosignTimeoutMs;
      for (;;) {
        const now = Date.now();
        if (pending.refusals.size > 0) {
          return { ok: false, missing: [...pending.refusals].map(([name, reason]) => ({ name, reason })) };
        }
        if (pending.signatures.size === members.length) return { ok: true, value: pending.signatures };
        const undelivered = members.filter((m) => !pending.delivered.has(m) && !pending.signatures.has(m));
        if (undelivered.length > 0 && now >= deliveredBy) {
          return { ok: false, missing: undelivered.map((name) => ({ name, reason: "offline" })) };
        }
        if (now >= signedBy) {
          const unsigned = members.filter((m) => !pending.signatures.has(m));
          return { ok: false, missing: unsigned.map((name) => ({ name, reason: "did not co-sign in time" })) };
        }
        const until = undelivered.length > 0 ? deliveredBy : signedBy;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, until - now));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      this.pending.delete(request);
    }
  }
}
