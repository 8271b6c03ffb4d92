/**
 * The link protocol for pushed records (SPEC §5): after authenticating, the daemon sends its
 * cursors; each pushed record goes to ingress and is acknowledged only after its local commit,
 * skipped when it was refused, and a gap asks the router again for that conversation from the
 * daemon's cursor. Once the router has caught the daemon up, bound intents are proposed again.
 * Co-signing requests for a group's GENESIS are answered here too.
 */
import type { RecordFrame, SigningKey } from "@social-harness/protocol";
import type { Logger } from "pino";
import type { History } from "../history/history.service.js";
import type { Ingress } from "../ingress/ingress.service.js";
import { cosignGenesis } from "../posts/cosign.js";
import type { LinkConsumer, RouterLink } from "./router-link.js";

export interface RecordFeedDeps {
  readonly self: string;
  readonly key: SigningKey;
  readonly link: RouterLink;
  readonly ingress: Ingress;
  readonly history: History;
  /** The router caught us up: bound intents go again. */
  readonly posts: { resume(): Promise<void> };
  readonly log: Logger;
}

export class RecordFeed implements LinkConsumer {
  constructor(private readonly deps: RecordFeedDeps) {}

  onReady(): void {
    const { link, history, log } = this.deps;
    history.cursors().then(
      (cursors) => link.send({ t: "sync", cursors }),
      (error: unknown) => log.error({ err: error }, "could not read cursors"),
    );
  }

  async onRecord(frame: RecordFrame): Promise<void> {
    const { link, ingress, history } = this.deps;
    const outcome = await ingress.receive(frame);
    switch (outcome.kind) {
      case "stored":
      case "duplicate":
        return link.send({ t: "ack", conv: frame.conv, seq: frame.seq });
      case "refused":
        return link.send({ t: "skip", conv: frame.conv, seq: frame.seq, reason: outcome.reason });
      case "gap": {
        link.send({ t: "skip", conv: frame.conv, seq: frame.seq, reason: outcome.reason });
        const cursors = await history.cursors();
        return link.send({ t: "sync", cursors: { [frame.conv]: cursors[frame.conv] ?? 0 } });
      }
    }
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
