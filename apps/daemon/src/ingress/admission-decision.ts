/**
 * The admission decision (SPEC §7, §10), pure: from trust, the firewall's verdict and the
 * collective state of one subject it says whether the subject is queued for its check, held,
 * admitted into the inbox, or consumed. Trust decides first and never holds answers; then the
 * firewall; an all_gather close is derived before either judges its result.
 */
import type { CheckedGuidance, InboundItem, LocalGuidance, Withheld } from "@social-harness/protocol";
import type { CloseInput, CloseOutcome } from "../collectives/close.js";
import type { Assessment } from "../firewall/engine.js";
import { withheldReason } from "../firewall/local-verdict.js";
import type { ArrivedAnswer } from "./classification.js";

export type AdmissionSubject =
  | { readonly kind: "item"; readonly item: InboundItem }
  | { readonly kind: "answer"; readonly answer: ArrivedAnswer }
  /** `outcome` is undefined until the close's turn comes (it waits behind its answers' checks). */
  | { readonly kind: "close"; readonly close: CloseInput; readonly outcome: CloseOutcome | undefined };

/** Off: the policy checks no inbound subject. Pending: it does, and this one is not checked yet. */
export type FirewallFact =
  | { readonly state: "off" }
  | { readonly state: "pending" }
  | { readonly state: "checked"; readonly assessment: Assessment };

export interface AdmissionFacts {
  readonly subject: AdmissionSubject;
  readonly trusted: boolean;
  readonly firewall: FirewallFact;
  /** Why trust holds this sender (trust/trust.service.ts). */
  readonly untrustedReason: string;
}

export type Decision =
  | { readonly kind: "queue" }
  | {
      readonly kind: "hold";
      readonly item: InboundItem;
      readonly reason: string;
      readonly source: "trust" | "firewall";
      readonly checkId?: string;
      readonly guidance?: CheckedGuidance;
    }
  | { readonly kind: "admit"; readonly item: InboundItem; readonly guidance?: LocalGuidance }
  | { readonly kind: "consume"; readonly reason: string }
  | { readonly kind: "answer"; readonly answer: ArrivedAnswer; readonly guidance?: CheckedGuidance }
  | { readonly kind: "withhold"; readonly answer: ArrivedAnswer; readonly withheld: Withheld };

/** True when the firewall's enforced verdict keeps the subject from the agent. */
export function holdsBack(assessment: Assessment): boolean {
  return assessment.mode === "enforce" && assessment.decision !== "allow";
}

export function decideAdmission(facts: AdmissionFacts): Decision {
  const { subject, firewall } = facts;
  if (subject.kind === "answer") {
    if (firewall.state === "pending") return { kind: "queue" };
    if (firewall.state === "off") return { kind: "answer", answer: subject.answer };
    const { assessment } = firewall;
    if (holdsBack(assessment)) {
      const reason = withheldReason({ middlewares: assessment.verdicts });
      return {
        kind: "withhold",
        answer: subject.answer,
        withheld: { kind: "withheld", checkId: assessment.checkId, reason },
      };
    }
    return { kind: "answer", answer: subject.answer, ...guidanceOf(assessment.guidance) };
  }
  let item: InboundItem;
  let closeGuidance: LocalGuidance | undefined;
  if (subject.kind === "close") {
    if (subject.outcome === undefined) return { kind: "queue" };
    if (subject.outcome.kind === "consume") return { kind: "consume", reason: subject.outcome.reason };
    item = subject.outcome.item;
    closeGuidance = subject.outcome.guidance;
  } else item = subject.item;
  if (!facts.trusted) return { kind: "hold", item, reason: facts.untrustedReason, source: "trust" };
  if (firewall.state === "pending") return { kind: "queue" };
  // A result carries the guidance of the checks that admitted its answers, not its own.
  const admitted = (guidance: LocalGuidance | undefined): Decision => ({
    kind: "admit",
    item,
    ...guidanceOf(subject.kind === "close" ? closeGuidance : guidance),
  });
  if (firewall.state === "off") return admitted(undefined);
  const { assessment } = firewall;
  if (!holdsBack(assessment)) return admitted(assessment.guidance);
  return {
    kind: "hold",
    item,
    reason: assessment.feedback === "" ? "the firewall held it" : assessment.feedback,
    source: "firewall",
    checkId: assessment.checkId,
    ...guidanceOf(assessment.guidance),
  };
}

function guidanceOf<G>(guidance: G | undefined): { guidance?: G } {
  return guidance === undefined ? {} : { guidance };
}
