/**
 * The platform floor of a webhook delivery: a process that does only what seed 000 asks of every
 * deliverer, and nothing of ours. Its inbox holds the items' exact callback bodies; the next
 * item's bytes are stored (its occurrence) before they are sent; each is signed (Standard Webhooks:
 * HMAC-SHA256 over id.timestamp.body), posted over HTTPS on a kept connection, one in flight, and on
 * a 2xx one transaction retires the item, clears its occurrence and stores the next one's, made
 * durable by an fdatasync of the WAL before the next item goes. No schema beyond that, no attempt
 * log, no registration, no deadline or cancellation, no logging.
 *
 * Run as a child: `node skeleton-webhook.js <port> <ca file> <dir> <body bytes> <warm-up> <items>`;
 * it prints `{deliveries, cpuPerDelivery}` as one JSON line.
 */
import Database from "better-sqlite3";
import { createHmac, randomBytes } from "node:crypto";
import { fdatasyncSync, openSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { loopbackPoster } from "./loopback-https.js";

const [port, caFile, dir, bodyBytes, warm, items] = process.argv.slice(2);
const total = Number(warm) + Number(items);

const file = path.join(dir!, "skeleton-webhook.db");
const db = new Database(file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.exec(`CREATE TABLE inbox (id INTEGER PRIMARY KEY, token TEXT NOT NULL UNIQUE, body BLOB NOT NULL, state TEXT NOT NULL);
         CREATE INDEX inbox_pending ON inbox (state, id);
         CREATE TABLE occurrences (token TEXT PRIMARY KEY, body BLOB NOT NULL)`);
const fill = db.prepare("INSERT INTO inbox (token, body, state) VALUES (?, ?, 'pending')");
db.transaction(() => {
  for (let i = 0; i < total; i++) {
    const token = randomBytes(32).toString("base64url");
    const body = JSON.stringify({ bare: true, token, pad: "x".repeat(Math.max(0, Number(bodyBytes) - 70)) });
    fill.run(token, Buffer.from(body));
  }
})();
const wal = openSync(`${file}-wal`, "r");
fdatasyncSync(wal);

interface Item {
  readonly id: number;
  readonly token: string;
  readonly body: Buffer;
}
const oldest = db.prepare<[], Item>("SELECT id, token, body FROM inbox WHERE state = 'pending' ORDER BY id LIMIT 1");
const settle = db.prepare("UPDATE inbox SET state = 'delivered' WHERE id = ?");
const clear = db.prepare("DELETE FROM occurrences WHERE token = ?");
const store = db.prepare("INSERT INTO occurrences (token, body) VALUES (?, ?)");
/** Retires `item`, stores the next item's occurrence, and returns the next item. */
const retire = db.transaction((item: Item): Item | undefined => {
  settle.run(item.id);
  clear.run(item.token);
  const next = oldest.get();
  if (next !== undefined) store.run(next.token, next.body);
  return next;
});

const key = randomBytes(32);
const receiver = loopbackPoster(Number(port), caFile!);
const post = (item: Item) => {
  const id = `evt_${item.token}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const mac = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(item.body).digest("base64");
  const headers = {
    "content-type": "application/json",
    "content-length": String(item.body.length),
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": `v1,${mac}`,
  };
  return receiver.post(headers, item.body);
};

let item = oldest.get();
store.run(item!.token, item!.body);
fdatasyncSync(wal);
let cpu = process.cpuUsage();
let started = performance.now();
for (let n = 0; item !== undefined; n++) {
  if (n === Number(warm)) {
    cpu = process.cpuUsage();
    started = performance.now();
  }
  const status = await post(item);
  if (status < 200 || status > 299) throw new Error(`the receiver answered ${status}`);
  item = retire(item);
  fdatasyncSync(wal);
}
const seconds = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
receiver.close();
db.close();
console.log(
  JSON.stringify({
    deliveries: Number(items) / seconds,
    cpuPerDelivery: (used.user + used.system) / 1000 / Number(items),
  }),
);
