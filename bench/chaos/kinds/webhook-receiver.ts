/**
 * The webhook consumer's host: a real HTTPS receiver on loopback (a leaf of the trial's test CA)
 * that answers the verification challenge, verifies every delivery with the independent
 * `standardwebhooks` package, writes down each (event id, item) it is offered, and answers 2xx
 * to most deliveries and 503 to a few, so retries of the same event id happen too (and 503 to all
 * while the trial holds items pending for its last crash).
 */
import { randomBytes } from "node:crypto";
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import * as z from "zod";
import { checkedItem } from "../inbox-host.js";
import { canonicalJson } from "../ledger.js";
import type { Random } from "../random.js";
import type { TestCa } from "../tls.js";
import type { TrafficContext } from "../traffic.js";

/** The share of deliveries the receiver refuses with 503 (the daemon retries them). */
const REFUSE = 0.05;

const ChallengeSchema = z.object({ type: z.literal("verification"), challenge: z.string() });
const OccurrenceSchema = z.object({
  eventId: z.string(),
  data: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("item"), item: z.unknown(), guidance: z.unknown().optional() }),
    z.object({ kind: z.literal("reference"), itemKind: z.string(), bytes: z.number() }),
  ]),
});
const ReadEventSchema = z.object({ item: z.unknown(), guidance: z.unknown().optional() });

export class WebhookReceiver {
  readonly secret = `whsec_${randomBytes(32).toString("base64")}`;
  private readonly hook = new Webhook(this.secret);

  private constructor(
    private readonly server: https.Server,
    readonly port: number,
    private readonly recipient: string,
    private readonly ctx: TrafficContext,
    private readonly random: Random,
  ) {}

  static async start(ca: TestCa, recipient: string, ctx: TrafficContext): Promise<WebhookReceiver> {
    const holder: { receiver?: WebhookReceiver } = {};
    const server = https.createServer({ cert: ca.cert, key: ca.key }, (req, res) => {
      void holder.receiver!.handle(req, res).catch((error: unknown) => {
        ctx.ledger.incident("receiver-failed", String(error));
        res.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    holder.receiver = new WebhookReceiver(server, port, recipient, ctx, ctx.random.fork());
    return holder.receiver;
  }

  get url(): string {
    return `https://localhost:${this.port}/hook`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(res: ServerResponse, status: number, body = ""): void {
    res.writeHead(status, { "content-type": "application/json" }).end(body);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let event: unknown;
    try {
      event = this.hook.verify(raw, {
        "webhook-id": String(req.headers["webhook-id"] ?? ""),
        "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
        "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
      });
    } catch (error) {
      this.ctx.ledger.incident("unsigned", `a delivery failed verification: ${String(error)}`);
      return this.answer(res, 400);
    }
    const challenge = ChallengeSchema.safeParse(event);
    if (challenge.success) return this.answer(res, 200, JSON.stringify({ challenge: challenge.data.challenge }));
    const occurrence = OccurrenceSchema.safeParse(event);
    if (!occurrence.success) {
      this.ctx.ledger.incident("malformed-occurrence", raw.slice(0, 300));
      return this.answer(res, 400);
    }
    const { eventId, data } = occurrence.data;
    if (eventId !== req.headers["webhook-id"]) {
      this.ctx.ledger.incident(
        "mislabelled",
        `event ${eventId} came as webhook-id ${String(req.headers["webhook-id"])}`,
      );
    }
    let held: { item: unknown; guidance?: unknown };
    if (data.kind === "item") {
      held = data;
    } else {
      // Above 256 KiB of envelope the body only names the item; read_event fetches it.
      const read = await this.ctx.host(this.recipient).call("read_event", { eventId });
      const parsed = read.ok ? ReadEventSchema.safeParse(read.result) : undefined;
      if (parsed?.success !== true) return this.answer(res, 503);
      held = parsed.data;
    }
    const item = checkedItem(held.item, this.ctx.ledger, `webhook ${eventId}`);
    const accepted = !this.ctx.holding() && !this.random.chance(REFUSE);
    const token = `dlv_${eventId.slice(4)}`;
    this.ctx.ledger.sight({
      recipient: this.recipient,
      via: "webhook",
      token,
      payload: canonicalJson({ item: held.item, guidance: held.guidance ?? null }),
      key: item === undefined ? undefined : this.ctx.identify(this.recipient, item),
      at,
      accepted,
    });
    if (!accepted) return this.answer(res, 503);
    this.ctx.ledger.ack({ recipient: this.recipient, via: "webhook", token, at: Date.now() });
    this.answer(res, 204);
  }
}
