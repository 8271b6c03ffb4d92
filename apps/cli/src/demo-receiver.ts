/**
 * The demo's webhook receiver: a plain-HTTP server on loopback (the daemon that delivers to it
 * runs with --unsafe-allow-local-callbacks, in the demo only). It answers the verification
 * challenge, checks each delivery's Standard Webhooks signature, and refuses every sixth delivery
 * with a 503, so the Overview shows retries beside successes. Items go to `onItem`.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";

export interface DemoReceiver {
  readonly url: string;
  readonly secret: string;
  close(): Promise<void>;
}

const REFUSE_EVERY = 6;

function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function signatureValid(key: Buffer, req: IncomingMessage, body: Buffer): boolean {
  const id = req.headers["webhook-id"];
  const timestamp = req.headers["webhook-timestamp"];
  const signatures = req.headers["webhook-signature"];
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string") return false;
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
  return signatures.split(" ").some((entry) => {
    const [version, mac] = entry.split(",");
    const given = Buffer.from(mac ?? "", "base64");
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Starts the receiver; `onItem` gets each verified, accepted item. */
export async function startDemoReceiver(onItem: (item: Record<string, unknown>) => void): Promise<DemoReceiver> {
  const key = randomBytes(32);
  const secret = `whsec_${key.toString("base64")}`;
  let deliveries = 0;
  const server: Server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      if (!signatureValid(key, req, body)) return void res.writeHead(401).end();
      const message = JSON.parse(body.toString("utf8")) as {
        type?: string;
        challenge?: string;
        data?: { kind?: string; item?: Record<string, unknown> };
      };
      if (message.type === "verification") {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ challenge: message.challenge }));
        return;
      }
      deliveries += 1;
      if (deliveries % REFUSE_EVERY === 0) return void res.writeHead(503).end();
      if (message.data?.kind === "item" && message.data.item !== undefined) onItem(message.data.item);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    secret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
