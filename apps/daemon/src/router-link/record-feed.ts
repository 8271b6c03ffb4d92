/**
 * The link protocol for pushed records (SPEC §5): after authenticating, the daemon sends its
 * cursors; pushed records go to ingress in batches and each is acknowledged only once its batch's
 * local commit is on disk (the next batch commits meanwhile), skipped when it was refused, and a gap asks the router again for that conversation from the
 * daemon's cursor. Once the router has caught the daemon up, bound intents are proposed again.
 * Co-signing requests for a group's GENESIS are answered here too.
 */
import { hop, tracingOn, type RecordFrame, type SigningKey } from "@social-harness/protocol";
import type { Logger } from "pino";
import type { History } from "../history/history.service.js";
import type { Ingress } from "../ingress/ingress.service.js";
import { cosignGenesis } from "../posts/cosign.js";
import { ingressStored } from "./ingress-spans.js";
import type { LinkConsumer, RouterLink } from "./router-link.js";

export interface RecordFeedDeps {
  readonly self: string;
  readonly key: SigningKey;
  readonly link: RouterLink;
  readonly ingress: Ingress;
  readonly history: History;
  /** The router caught us up: bound intents go again. */
  readonly posts: { resume(): Promise<void> };
  /** Resolves once every durable commit so far is on disk (DaemonStore.durable). */
  readonly durable: () => Promise<void>;
  readonly log: Logger;
}

/** Pushed records committed together at most. */
const BATCH = 64;

export class RecordFeed implements LinkConsumer {
  private readonly waiting: RecordFrame[] = [];
  private receiving = false;
  private current: Promise<void> = Promise.resolve();
  /** Acknowledgments of committed batches, sent in batch order once their commit is on disk. */
  private acking: Promise<void> = Promise.resolve();

  constructor(private readonly deps: RecordFeedDeps) {}

  onReady(): void {
    const { link, history, log } = this.deps;
    history.cursors().then(
      (cursors) => link.send({ t: "sync", cursors }),
      (error: unknown) => log.error({ err: error }, "could not read cursors"),
    );
  }

  /**
   * Takes a pushed record and returns at once: records that arrive while a batch commits wait and
   * go in the next one (a group commit). Each is acknowledged after its batch committed.
   */
  onRecord(frame: RecordFrame): Promise<void> {
    this.waiting.push(frame);
    this.flush();
    return Promise.resolve();
  }

  private flush(): void {
    if (this.receiving || this.waiting.length === 0) return;
    this.receiving = true;
    const frames = this.waiting.splice(0, BATCH);
    this.current = this.receive(frames)
      .catch((error: unknown) =>
        this.deps.log.error(
          { err: error, records: frames.length },
          "storing pushed records failed; the router pushes them again",
        ),
      )
      .finally(() => {
        this.receiving = false;
        this.flush();
      });
  }

  private async receive(frames: RecordFrame[]): Promise<void> {
    const outcomes = await this.deps.ingress.receiveAll(frames);
    hop("ingress.stored");
    if (tracingOn()) ingressStored(frames);
    const durable = this.deps.durable();
    this.acking = this.acking
      .then(() => durable)
      .then(() => {
        hop("ingress.fsynced");
        return this.answer(frames, outcomes);
      })
      .catch((error: unknown) =>
        this.deps.log.error({ err: error, records: frames.length }, "acknowledging pushed records failed"),
      );
  }

  private async answer(frames: RecordFrame[], outcomes: Awaited<ReturnType<Ingress["receiveAll"]>>): Promise<void> {
    const { link, history } = this.deps;
    const gaps = new Set<string>();
    for (const [i, outcome] of outcomes.entries()) {
      const { conv, seq } = frames[i]!;
      switch (outcome.kind) {
        case "stored":
        case "duplicate":
          link.send({ t: "ack", conv, seq });
          break;
        case "refused":
          link.send({ t: "skip", conv, seq, reason: outcome.reason });
          break;
        case "gap":
          link.send({ t: "skip", conv, seq, reason: outcome.reason });
          gaps.add(conv);
          break;
      }
    }
    if (gaps.size === 0) return;
    // Ask again for each conversation with a hole, from what this daemon holds.
    const cursors = await history.cursors();
    for (const conv of gaps) link.send({ t: "sync", cursors: { [conv]: cursors[conv] ?? 0 } });
  }

  /** Resolves once no batch is being stored (shutdown: before the database closes). */
  async idle(): Promise<void> {
    while (this.receiving) await this.current;
    await this.acking;
  }

  onSynced(): void {
    this.deps.posts
      .resume()
      .catch((error: unknown) => this.deps.log.error({ err: error }, "resuming bound posts failed"));
  }

  onCosignRequest(request: string, record: Uint8Array): Promise<void> {
    const answer = cosignGenesis(this.deps.self, this.deps.key, record);
    this.deps.link.send(
      answer.ok
        ? { t: "cosign", request, signature: answer.signature }
        : { t: "cosign-refused", request, reason: answer.reason },
    );
    return Promise.resolve();
  }
}
