/**
 * The link protocol for pushed records (SPEC §5): after authenticating, the daemon sends its
 * cursors; pushed records go to ingress in batches and each is acknowledged only once its batch's
 * local commit is on disk (the next batch commits meanwhile), skipped when it was refused, and a gap asks the router again for that conversation from the
 * daemon's cursor. The router does not push our own posts back (`echoOwn: false`): the send path
 * stores each from its certificate, and a record pushed after one waits until it is stored, since
 * ingress checks each record against the one before it. Once the router has caught the daemon up,
 * bound intents are proposed again.
 * Co-signing requests for a group's GENESIS are answered here too.
 */
import { hop, tracingOn, type RecordFrame, type SigningKey } from "@social-harness/protocol";
import type { Logger } from "pino";
import type { History } from "../history/history.service.js";
import type { Ingress } from "../ingress/ingress.service.js";
import { cosignGenesis } from "../posts/cosign.js";
import { acknowledge, askAgain } from "./acknowledgments.js";
import { ingressStored } from "./ingress-spans.js";
import type { LinkConsumer, RouterLink } from "./router-link.js";

export interface RecordFeedDeps {
  readonly self: string;
  readonly key: SigningKey;
  readonly link: RouterLink;
  readonly ingress: Ingress;
  readonly history: History;
  /**
   * The router caught us up: bound intents go again. `ownSettled` resolves once our own proposals
   * in a conversation so far are stored (undefined when none is in flight).
   */
  readonly posts: { resume(): Promise<void>; ownSettled(conv: string): Promise<void> | undefined };
  /** Resolves once every durable commit so far is on disk (DaemonStore.durable). */
  readonly durable: () => Promise<void>;
  readonly log: Logger;
}

/** Pushed records committed together at most. */
const BATCH = 64;

export class RecordFeed implements LinkConsumer {
  private readonly waiting: RecordFrame[] = [];
  /** Per waiting record, our own posts it may follow (the router does not push those back). */
  private readonly before: (Promise<void> | undefined)[] = [];
  private receiving = false;
  /** A batch start is scheduled for the end of this turn. */
  private flushQueued = false;
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
   * go in the next one (a group commit), and a batch starts after the frames already read from
   * the socket were taken, so the records of one read commit together. Each is acknowledged after
   * its batch committed.
   */
  onRecord(frame: RecordFrame): Promise<void> {
    this.waiting.push(frame);
    this.before.push(this.deps.posts.ownSettled(frame.conv));
    if (!this.flushQueued) {
      this.flushQueued = true;
      setImmediate(() => {
        this.flushQueued = false;
        this.flush();
      });
    }
    return Promise.resolve();
  }

  private flush(): void {
    if (this.receiving || this.waiting.length === 0) return;
    this.receiving = true;
    const frames = this.waiting.splice(0, BATCH);
    const before = this.before.splice(0, BATCH).filter((p) => p !== undefined);
    this.current = (
      before.length === 0 ? this.receive(frames) : Promise.allSettled(before).then(() => this.receive(frames))
    )
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
        return acknowledge(this.deps, frames, outcomes);
      })
      .catch((error: unknown) =>
        this.deps.log.error({ err: error, records: frames.length }, "acknowledging pushed records failed"),
      );
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

  onUnclaimedCertificate(conv: string): void {
    askAgain(this.deps, [conv]).catch((error: unknown) =>
      this.deps.log.error({ err: error, conv }, "could not read cursors"),
    );
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
