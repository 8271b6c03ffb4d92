/**
 * Pipelined proposals, one lane per conversation. Bound intents of a conversation are proposed in
 * their binding order without waiting for each certificate: each names the record before it as
 * `prev`, so the router certifies the chain in one group commit. When the chain breaks (the head
 * moved, a proposal was refused, an answer was lost), the lane drains what is in flight and starts
 * again from the head, with the intents that were not certified in their original order.
 */
import { activeTrace, recordHashOf, withinTrace, type RecordFields, type TraceContext } from "@social-harness/protocol";
import type { IntentRow } from "./intents.store.js";
import type { ProposalAnswer, RouterAnswer } from "./router-port.js";

/** Proposals in flight per conversation. */
const WINDOW = 16;
/** How often one intent may meet a moved head before it waits for the next retry. */
const MAX_HEAD_RETRIES = 64;

export interface Signed {
  readonly bytes: Uint8Array;
  readonly signature: Uint8Array;
  /** The record's hash, computed once when it was encoded. */
  readonly hash?: string;
  /** The fields encoded, as readRecord would return them for `bytes`. */
  readonly fields?: RecordFields;
}

export interface LaneDeps<R> {
  /** The stored head of a conversation: where a lane starts (again). */
  head(conv: string): Promise<string | null>;
  sign(intent: IntentRow, prev: string | null): Signed;
  propose(signed: Signed): Promise<RouterAnswer<ProposalAnswer>>;
  /**
   * Settles one answer; rejects with the intent's failure. Runs for one lane's answers in their
   * order, and queues the answer's writes before it returns: the lane goes on to the next answer
   * without waiting for their commit, so the answers of one turn share it (db/turn-writes.ts).
   */
  settle(intent: IntentRow, signed: Signed, answer: Exclude<ProposalAnswer, { t: "head-moved" }>): Promise<R>;
  /** The failure of an intent whose answer was lost or that kept meeting a moved head. */
  pending(reason: "lost" | "moving"): Error;
}

interface Waiting<R> {
  readonly order: number;
  readonly intent: IntentRow;
  attempts: number;
  /** The send's trace, when tracing: its proposal is a child of the send, not of the pump's caller. */
  readonly trace: TraceContext | undefined;
  resolve(result: R): void;
  reject(error: unknown): void;
}

interface Lane<R> {
  readonly queue: Waiting<R>[];
  inFlight: number;
  /** The head after every proposal in flight; undefined: read the stored head first. */
  tail: string | null | undefined;
  /** A broken chain: no new proposals until what is in flight has answered. */
  draining: boolean;
  /** Answers settle one after another, in the order the proposals were sent. */
  settling: Promise<void>;
  /** The commit of the newest settled answer's writes (writes commit in the order they were queued). */
  stored: Promise<void>;
  /** Settled answers whose writes are not committed yet: the lane is kept until they are. */
  storing: number;
  starting: boolean;
  /** The newest head the router named during a drain (a moved head, or our certified record). */
  restartAt: string | null | undefined;
}

export class ProposalLanes<R> {
  private readonly lanes = new Map<string, Lane<R>>();
  private order = 0;

  constructor(private readonly deps: LaneDeps<R>) {}

  /** Proposes a bound intent until it is settled; resolves with what `settle` returned. */
  deliver(intent: IntentRow): Promise<R> {
    let lane = this.lanes.get(intent.conv);
    if (lane === undefined) {
      lane = {
        queue: [],
        inFlight: 0,
        tail: undefined,
        draining: false,
        settling: Promise.resolve(),
        stored: Promise.resolve(),
        storing: 0,
        starting: false,
        restartAt: undefined,
      };
      this.lanes.set(intent.conv, lane);
    }
    const result = new Promise<R>((resolve, reject) => {
      lane.queue.push({ order: this.order++, intent, attempts: 0, trace: activeTrace(), resolve, reject });
    });
    void this.pump(intent.conv, lane);
    return result;
  }

  /**
   * Resolves once every proposal of `conv` made so far is settled (its certified record stored),
   * or undefined when none is in flight.
   */
  settled(conv: string): Promise<void> | undefined {
    const lane = this.lanes.get(conv);
    return lane?.settling.then(() => lane.stored);
  }

  private async pump(conv: string, lane: Lane<R>): Promise<void> {
    if (lane.starting) return;
    while (!lane.draining && lane.queue.length > 0 && lane.inFlight < WINDOW) {
      if (lane.tail === undefined) {
        lane.starting = true;
        try {
          lane.tail = await this.deps.head(conv);
        } catch (error) {
          for (const waiting of lane.queue.splice(0)) waiting.reject(error);
          return;
        } finally {
          lane.starting = false;
        }
        continue;
      }
      const waiting = lane.queue.shift()!;
      let signed: Signed;
      try {
        signed = this.deps.sign(waiting.intent, lane.tail);
      } catch (error) {
        waiting.reject(error);
        continue;
      }
      lane.tail = signed.hash ?? recordHashOf(signed.bytes);
      lane.inFlight++;
      const answered =
        waiting.trace === undefined
          ? this.deps.propose(signed)
          : withinTrace(waiting.trace, () => this.deps.propose(signed));
      // Settle in send order: a certificate stored before the records it follows keeps the chain.
      lane.settling = lane.settling.then(() => this.answer(conv, lane, waiting, signed, answered));
    }
    this.release(conv, lane);
  }

  /** Forgets an idle lane: nothing queued, in flight or waiting for its commit. */
  private release(conv: string, lane: Lane<R>): void {
    if (lane.inFlight === 0 && lane.queue.length === 0 && lane.storing === 0 && this.lanes.get(conv) === lane)
      this.lanes.delete(conv);
  }

  private async answer(
    conv: string,
    lane: Lane<R>,
    waiting: Waiting<R>,
    signed: Signed,
    answered: Promise<RouterAnswer<ProposalAnswer>>,
  ): Promise<void> {
    try {
      const answer = await answered;
      if (!answer.ok) {
        lane.draining = true;
        waiting.reject(this.deps.pending("lost"));
      } else if (answer.value.t === "head-moved") {
        lane.draining = true;
        if (++waiting.attempts >= MAX_HEAD_RETRIES) waiting.reject(this.deps.pending("moving"));
        else this.requeue(lane, waiting, answer.value.head);
      } else {
        if (answer.value.t === "refused") lane.draining = true;
        else lane.restartAt = answer.value.record;
        const settled = this.deps.settle(waiting.intent, signed, answer.value);
        lane.storing++;
        lane.stored = settled
          .then(
            (result) => waiting.resolve(result),
            (error: unknown) => waiting.reject(error),
          )
          .finally(() => this.stored(conv, lane));
      }
    } catch (error) {
      lane.draining = true;
      waiting.reject(error);
    } finally {
      lane.inFlight--;
      if (lane.draining && lane.inFlight === 0) {
        // Start again from the newest head the router named; without one, from what is stored.
        lane.draining = false;
        lane.tail = lane.restartAt;
        lane.restartAt = undefined;
      }
      void this.pump(conv, lane);
    }
  }

  private stored(conv: string, lane: Lane<R>): void {
    lane.storing--;
    this.release(conv, lane);
  }

  private requeue(lane: Lane<R>, waiting: Waiting<R>, head: string | null): void {
    const at = lane.queue.findIndex((w) => w.order > waiting.order);
    lane.queue.splice(at === -1 ? lane.queue.length : at, 0, waiting);
    lane.restartAt = head;
  }
}
