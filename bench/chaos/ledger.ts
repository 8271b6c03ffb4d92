/**
 * What a trial saw, written down as it happened: every send and how the host saw it end, every
 * (token, payload) any host was ever offered, every acknowledgment that returned, and every fault
 * window of every process. The promises are checked over this record alone, after the fact.
 */

/** How a send ended, as the host that made it saw the call end. */
export type SendOutcome = "returned" | "delivery-pending" | "outcome-unknown" | "refused";

export interface Message {
  /** Unique in the trial; the text carries it, so a delivery names its message. */
  readonly id: string;
  readonly traffic: string;
  readonly from: string;
  readonly to: string;
  readonly text: string;
  outcome?: SendOutcome;
  /** The refusal reason or the transport error, when the send did not return. */
  detail?: string;
  /** The structured result of a returned send (`{operationId}` for a gather), or a refusal's data. */
  result?: Record<string, unknown>;
}

/** One recipient's view of one message: the key its deliveries are counted under. */
export interface Pair {
  readonly recipient: string;
  readonly key: string;
}

export interface Sighting {
  readonly recipient: string;
  readonly via: "mcp" | "webhook";
  readonly token: string;
  /** Canonical JSON of `{item, guidance}`: what the token is bound to. */
  readonly payload: string;
  /** What the item is (e.g. `msg:m17`), when a traffic kind recognises it. */
  readonly key: string | undefined;
  /** When the read was sent (MCP) or the delivery arrived (webhook). */
  readonly at: number;
  /** False for a webhook delivery the receiver answered with an error (it must come again). */
  readonly accepted: boolean;
}

export interface Ack {
  readonly recipient: string;
  readonly via: "mcp" | "webhook";
  readonly token: string;
  /** When `acknowledge_delivery` returned `{}`, or the receiver answered 2xx. */
  readonly at: number;
}

/** A stretch of time in which a process was dead or its disk full: state may be lost in it. */
export interface FaultWindow {
  readonly process: string;
  readonly what: "killed" | "disk-full" | "power-cut";
  readonly from: number;
  to: number;
}

/** Something that broke a promise, or the harness's own view of a defect (a crash on its own). */
export interface Violation {
  readonly kind: string;
  readonly detail: string;
}

/** Canonical JSON (object keys sorted), so equal payloads compare equal as strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

export class Ledger {
  readonly messages: Message[] = [];
  readonly sightings: Sighting[] = [];
  readonly acks: Ack[] = [];
  readonly faults: FaultWindow[] = [];
  /** Findings outside the checks over sightings (an unexpected exit, a bad signature). */
  readonly incidents: Violation[] = [];
  /** Every event in order, for the trial's log when something broke. */
  readonly journal: string[] = [];
  private readonly started = Date.now();
  private lastSightingAt = 0;
  private readonly seenKeys = new Set<string>();
  private readonly offeredKeys = new Set<string>();

  note(line: string): void {
    this.journal.push(`${String(Date.now() - this.started).padStart(6)} ms  ${line}`);
  }

  add(message: Message): Message {
    this.messages.push(message);
    return message;
  }

  sight(sighting: Sighting): void {
    const pair = `${sighting.recipient}\0${sighting.key ?? ""}`;
    const known = this.seenKeys.has(`${pair}\0${sighting.token}`);
    if (!known) {
      this.seenKeys.add(`${pair}\0${sighting.token}`);
      this.lastSightingAt = Date.now();
      this.note(
        `${sighting.recipient} offered ${sighting.key ?? "?"} as ${sighting.token.slice(0, 12)} (${sighting.via})`,
      );
    }
    this.offeredKeys.add(pair);
    if (sighting.accepted) this.seenKeys.add(pair);
    this.sightings.push(sighting);
  }

  /** Whether `recipient` was offered (and, for webhooks, accepted) an item under `key`. */
  seen(recipient: string, key: string): boolean {
    return this.seenKeys.has(`${recipient}\0${key}`);
  }

  /** Whether `recipient` was offered an item under `key`, accepted or not. */
  offered(recipient: string, key: string): boolean {
    return this.offeredKeys.has(`${recipient}\0${key}`);
  }

  ack(ack: Ack): void {
    this.acks.push(ack);
  }

  /** When the last new (recipient, key, token) was offered; settling waits for quiet. */
  get quietSince(): number {
    return this.lastSightingAt;
  }

  openFault(process: string, what: FaultWindow["what"]): FaultWindow {
    const window: FaultWindow = { process, what, from: Date.now(), to: Number.POSITIVE_INFINITY };
    this.faults.push(window);
    this.note(`${process} ${what}`);
    return window;
  }

  closeFault(window: FaultWindow): void {
    window.to = Date.now();
    this.note(`${window.process} back after ${window.to - window.from} ms ${window.what}`);
  }

  /** Whether `process` was dead or out of disk at some moment in [from, to]. */
  faultedBetween(process: string, from: number, to: number): boolean {
    return this.faults.some((f) => f.process === process && f.from <= to && f.to >= from);
  }

  incident(kind: string, detail: string): void {
    this.incidents.push({ kind, detail });
    this.note(`INCIDENT ${kind}: ${detail}`);
  }
}
