/**
 * The promises, checked over a trial's ledger after the fact:
 * - lost: a send that returned or was delivery-pending never reached a recipient it was meant for;
 * - duplicated: one recipient was offered one message (or one gather ending) under two tokens;
 * - rebound: one token was offered with two different payloads;
 * - resurrected: an item was offered again after its acknowledgment returned (a webhook receipt may
 *   be lost only if the daemon crashed or its disk was full in between);
 * - phantom: a refused send arrived anyway, or a sender was offered its own post.
 * Outcome-unknown sends are only counted: each may arrive or not, but at most once.
 */
import type { Ledger, Message, Pair, Sighting, Violation } from "./ledger.js";
import { defaultExpectations, type TrafficKind } from "./traffic.js";

export interface Counts {
  messages: number;
  returned: number;
  deliveryPending: number;
  outcomeUnknown: number;
  refused: number;
  /** Messages that reached every recipient they were meant for. */
  delivered: number;
  lost: number;
  duplicated: number;
  rebound: number;
  resurrected: number;
  phantom: number;
  /** Everything else that broke: a process that died on its own, a bad signature, a kind's own check. */
  other: number;
}

export const PROMISES = ["lost", "duplicated", "rebound", "resurrected", "phantom"] as const;

export function emptyCounts(): Counts {
  return {
    messages: 0,
    returned: 0,
    deliveryPending: 0,
    outcomeUnknown: 0,
    refused: 0,
    delivered: 0,
    lost: 0,
    duplicated: 0,
    rebound: 0,
    resurrected: 0,
    phantom: 0,
    other: 0,
  };
}

export function addCounts(into: Counts, from: Counts): void {
  for (const key of Object.keys(into) as (keyof Counts)[]) into[key] += from[key];
}

const pairKey = (pair: Pair) => `${pair.recipient}\0${pair.key}`;

function expectationsOf(kinds: readonly TrafficKind[], message: Message) {
  const kind = kinds.find((k) => k.name === message.traffic);
  if (kind === undefined) throw new Error(`message ${message.id} is of no known kind (${message.traffic})`);
  return { kind, ...(kind.expectations?.(message) ?? defaultExpectations(kind, message)) };
}

/** The pairs that must be seen and are not yet (settling waits for none). */
export function unmet(ledger: Ledger, kinds: readonly TrafficKind[]): Pair[] {
  return ledger.messages.flatMap((m) =>
    expectationsOf(kinds, m).mustSee.filter((pair) => !ledger.seen(pair.recipient, pair.key)),
  );
}

function group<T>(items: readonly T[], keyOf: (item: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const list = groups.get(key) ?? [];
    list.push(item);
    groups.set(key, list);
  }
  return groups;
}

function resurrections(ledger: Ledger): Violation[] {
  const violations: Violation[] = [];
  const byToken = group(ledger.sightings, (s) => s.token);
  const firstAck = new Map<string, Ledger["acks"][number]>();
  for (const ack of ledger.acks) if (!firstAck.has(ack.token)) firstAck.set(ack.token, ack);
  for (const [token, ack] of firstAck) {
    const again = (byToken.get(token) ?? []).find((s: Sighting) => {
      if (s.at <= ack.at) return false;
      // acknowledge_delivery returned {}: committed, so nothing may bring it back.
      if (ack.via === "mcp") return true;
      // A 2xx the daemon had no chance to record (it died, or its disk was full) comes again by design.
      return s.via === "webhook" && !ledger.faultedBetween(ack.recipient, ack.at, s.at);
    });
    if (again !== undefined) {
      violations.push({
        kind: "resurrected",
        detail: `${ack.recipient} was offered ${again.key ?? token} (${token}) via ${again.via} ${again.at - ack.at} ms after its ${ack.via} acknowledgment`,
      });
    }
  }
  return violations;
}

/** Checks every promise; the counts and each violation with what broke. */
export function checkPromises(
  ledger: Ledger,
  kinds: readonly TrafficKind[],
  extra: readonly Violation[] = [],
): { counts: Counts; violations: Violation[] } {
  const counts = emptyCounts();
  const violations: Violation[] = [];
  const offered = new Set(ledger.sightings.map((s) => pairKey({ recipient: s.recipient, key: s.key ?? "" })));
  for (const message of ledger.messages) {
    counts.messages++;
    switch (message.outcome) {
      case "returned":
        counts.returned++;
        break;
      case "delivery-pending":
        counts.deliveryPending++;
        break;
      case "outcome-unknown":
      case undefined:
        counts.outcomeUnknown++;
        break;
      case "refused":
        counts.refused++;
        break;
    }
    const { kind, mustSee, mustNotSee } = expectationsOf(kinds, message);
    const intended = kind.intended(message);
    if (intended.length > 0 && intended.every((p) => ledger.seen(p.recipient, p.key))) counts.delivered++;
    const missing = mustSee.filter((p) => !ledger.seen(p.recipient, p.key));
    if (missing.length > 0) {
      violations.push({
        kind: "lost",
        detail: `${message.id} (${message.traffic} to ${message.to}, ${message.outcome}) never reached ${missing.map((p) => p.recipient).join(", ")}`,
      });
    }
    const phantoms = mustNotSee.filter((p) => offered.has(pairKey(p)));
    if (phantoms.length > 0) {
      violations.push({
        kind: "phantom",
        detail: `${message.id} (${message.traffic}, ${message.outcome} ${message.detail ?? ""}) reached ${phantoms.map((p) => p.recipient).join(", ")}`,
      });
    }
  }
  for (const [pair, sightings] of group(ledger.sightings, (s) =>
    s.key === undefined ? undefined : pairKey({ recipient: s.recipient, key: s.key }),
  )) {
    const tokens = new Set(sightings.map((s) => s.token));
    if (tokens.size > 1) {
      const [recipient, key] = pair.split("\0");
      violations.push({
        kind: "duplicated",
        detail: `${recipient} was offered ${key} under ${tokens.size} tokens: ${[...tokens].join(", ")}`,
      });
    }
  }
  for (const [token, sightings] of group(ledger.sightings, (s) => s.token)) {
    const payloads = new Set(sightings.map((s) => s.payload));
    if (payloads.size > 1) {
      violations.push({
        kind: "rebound",
        detail: `${token} at ${sightings[0]!.recipient} named ${payloads.size} payloads: ${[...payloads].map((p) => p.slice(0, 200)).join(" / ")}`,
      });
    }
  }
  violations.push(...resurrections(ledger), ...ledger.incidents, ...extra);
  for (const violation of violations) {
    if ((PROMISES as readonly string[]).includes(violation.kind)) counts[violation.kind as (typeof PROMISES)[number]]++;
    else counts.other++;
  }
  return { counts, violations };
}
