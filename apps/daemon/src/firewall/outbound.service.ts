/**
 * The firewall on the way out (seed 001 "Stock host projection"): a send is checked after exact
 * membership resolution and before its intent is bound. The capture keeps the evidence the check
 * saw (each conversation's head and the policy revision); binding compares it inside the intent's
 * transaction and records the assessment there, so the assessment and the intent commit together.
 * A refused or held send in `enforce` fails with FirewallSendError and leaves its audit row. No
 * transaction or lock is held while a judge thinks.
 */
import { agentAddress } from "@social-harness/protocol";
import type { Logger } from "pino";
import type { DaemonStore, Trx } from "../db/database.js";
import type { History } from "../history/history.service.js";
import type { Capture, OutboundSubject, SendCheck } from "../posts/send-check.js";
import { FirewallSendError } from "../posts/send-error.js";
import { insertCheck } from "./checks.store.js";
import { refusalOf, type Assessment } from "./engine.js";
import type { FirewallPolicies } from "./policy.service.js";
import type { Subject } from "./subjects.js";
import { isUncertain } from "./verdicts.js";

interface CaptureState extends Capture {
  readonly assessment: Assessment;
  readonly heads: ReadonlyMap<string, string | null>;
  /** Stale captures of this send before this one. */
  readonly stale: number;
}

export interface OutboundFirewallDeps {
  readonly store: DaemonStore;
  readonly self: string;
  readonly policies: FirewallPolicies;
  readonly history: History;
  readonly log: Logger;
  readonly now?: () => number;
}

const STALE_FEEDBACK =
  "The conversation changed twice while this send was being checked, so it was held; send it again if it still fits.";

export class OutboundFirewall implements SendCheck {
  private readonly now: () => number;

  constructor(private readonly deps: OutboundFirewallDeps) {
    this.now = deps.now ?? Date.now;
  }

  private async heads(convs: readonly string[], db = this.deps.store.db): Promise<Map<string, string | null>> {
    const heads = new Map<string, string | null>();
    for (const conv of convs) {
      const head = await this.deps.history.head(conv, db);
      // A group's GENESIS carries no content: a check taken before the group opened still holds.
      heads.set(conv, head === undefined || (head.seq === 1 && conv.startsWith("group:")) ? null : head.hash);
    }
    return heads;
  }

  async capture(outbound: OutboundSubject, convs: readonly string[], after?: Capture): Promise<Capture | undefined> {
    const compiled = this.deps.policies.current;
    if (!compiled.active("outbound")) return undefined;
    const heads = await this.heads(convs);
    const subject: Subject = { ...outbound, sender: agentAddress(this.deps.self) };
    const assessment = await compiled.assess("outbound", subject);
    const state: CaptureState = {
      checkId: assessment.checkId,
      guidance: isUncertain(assessment.guidance) ? assessment.guidance : undefined,
      assessment,
      heads,
      stale: after === undefined ? 0 : (after as CaptureState).stale + 1,
    };
    if (assessment.mode === "enforce" && assessment.decision !== "allow") {
      await this.record(this.deps.store.db, state, { outcome: "refused", postId: null, stale: state.stale });
      throw new FirewallSendError(
        assessment.checkId,
        refusalOf(assessment),
        assessment.feedback || "the firewall refused this send",
      );
    }
    return state;
  }

  async confirm(trx: Trx, capture: Capture, postIds: readonly string[], force: boolean): Promise<boolean> {
    const state = capture as CaptureState;
    const now = await this.heads([...state.heads.keys()], trx);
    const fresh =
      this.deps.policies.current.revision === state.assessment.revision &&
      [...state.heads].every(([conv, head]) => now.get(conv) === head);
    if (!fresh && !force) return false;
    await this.record(trx, state, {
      outcome: "sent",
      postId: postIds[0] ?? null,
      stale: state.stale + (fresh ? 0 : 1),
      // A send allowed past a second stale capture carries no advice from the stale check.
      dropGuidance: !fresh,
    });
    return true;
  }

  async refuseStale(capture: Capture): Promise<never> {
    const state = capture as CaptureState;
    await this.record(this.deps.store.db, state, { outcome: "refused", postId: null, stale: state.stale + 1 });
    throw new FirewallSendError(state.checkId, "held", STALE_FEEDBACK);
  }

  allowsStale(capture: Capture): boolean {
    return (capture as CaptureState).assessment.mode === "guidance";
  }

  private async record(
    db: Parameters<typeof insertCheck>[0],
    state: CaptureState,
    what: { outcome: "sent" | "refused"; postId: string | null; stale: number; dropGuidance?: boolean },
  ): Promise<void> {
    const { assessment } = state;
    await insertCheck(db, {
      checkId: assessment.checkId,
      direction: "outbound",
      conv: assessment.subject.conversation,
      recordHash: null,
      postId: what.postId,
      subjects: [assessment.subject],
      revision: assessment.revision,
      mode: assessment.mode,
      decision: assessment.decision,
      outcome: what.outcome,
      middlewares: assessment.verdicts,
      guidance: what.dropGuidance === true ? null : (assessment.guidance ?? null),
      stale: what.stale,
      latencyUs: assessment.latencyUs,
      createdAt: this.now(),
    });
  }
}
