/**
 * Webhook deliveries per second: a daemon whose inbox holds N items subscribes a local receiver
 * (plain HTTP on loopback, allowed by --unsafe-allow-local-callbacks) and delivers them one at a
 * time, in inbox order, each signed; the figure is items retired per second.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { performance } from "node:perf_hooks";
import * as z from "zod";
import { mcpClient, type BenchNetwork } from "./network.js";
import { fillInbox } from "./fill-inbox.js";

const ITEMS = 2_000;

export async function webhookThroughput(net: BenchNetwork): Promise<{ measure: string; value: string; note: string }> {
  let delivered = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { type?: string; challenge?: string };
      res.writeHead(200, { "content-type": "application/json" });
      if (body.type === "verification") return res.end(JSON.stringify({ challenge: body.challenge }));
      res.end("{}");
      if (++delivered === ITEMS) done();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as { port: number }).port;
  try {
    const first = await net.startDaemon("hooks", ["--unsafe-allow-local-callbacks"]);
    await net.stop(first.process);
    fillInbox(first.data, ITEMS);
    const hooks = await net.startDaemon("hooks", ["--unsafe-allow-local-callbacks"]);
    const client = await mcpClient(hooks);
    const start = performance.now();
    await client.request(
      {
        method: "events/subscribe",
        params: {
          name: "org.social-harness/inbox.item",
          arguments: {},
          delivery: {
            mode: "webhook",
            url: `http://127.0.0.1:${port}/hook`,
            secret: `whsec_${randomBytes(32).toString("base64")}`,
          },
        },
      },
      z.looseObject({}),
    );
    await finished;
    const seconds = (performance.now() - start) / 1000;
    await client.close();
    return {
      measure: "webhook deliveries per second",
      value: `${Math.round(ITEMS / seconds)} /s`,
      note: `${ITEMS} items, one in flight, signed, each retired on 2xx (loopback HTTP receiver)`,
    };
  } finally {
    receiver.close();
  }
}
