/**
 * The platform floor of a direct post: three processes that do only what any Node implementation
 * of this design must do for one post, and nothing of ours. The sender serves a JSON POST (the MCP
 * call), binds the intent in SQLite and makes it durable, signs, proposes over a WebSocket and,
 * on the certificate, verifies it, stores the record and answers. The router verifies, stores the
 * record durably, signs a certificate, answers the author and pushes to the recipient. The
 * recipient verifies author and certificate, stores the record and the inbox item (keyed by its
 * delivery token, 32 random bytes as seed 000 requires) durably and
 * acknowledges. Commits are grouped per event-loop turn and made durable by one fdatasync on the
 * loop at the turn's end, as ours are while the disk is fast (the cheaper placement on this VM);
 * no schema, no CBOR, no logging, no MCP envelope beyond JSON.parse. Its CPU per post, per process, is the nearest any
 * code on this stack could come to; the bench prints ours beside it.
 *
 * Run as a child: `node skeleton.js router <dir>` | `sender <dir> <routerPort>` |
 * `recipient <dir> <routerPort>`; each prints its port (or "ready") on stdout.
 *
 * `node skeleton.js certifier <dir>` is the platform floor of the router's own load (the bench's
 * router section: links proposing chained posts, one in flight each, and a sink that receives them):
 * per proposal it verifies the author's signature, hashes the record, checks its previous hash
 * against the conversation's head (kept in memory: it is derivable from the records), stores it
 * under its position and its author's unique PostId, makes the turn's commit durable, signs the
 * certificate, answers the author and pushes the record to the sink (while the router would: the
 * sink never acknowledges, and the router stops at its window of 512 unacknowledged pushes).
 */
import Database from "better-sqlite3";
import { createHash, randomBytes } from "node:crypto";
import { openSync, fdatasyncSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { WebSocket, WebSocketServer } from "ws";
import { ed25519 } from "@social-harness/protocol";
import {
  ACK,
  CERTIFIED,
  frame,
  keyPair,
  linkKey,
  PROPOSE,
  RECORD,
  RECORD_POST_ID_BYTES,
  RECORD_PREV_BYTES,
} from "./skeleton-wire.js";

const [role, dir, routerPort] = process.argv.slice(2);

/**
 * A WAL database at synchronous=NORMAL whose writes are grouped: each turn of the event loop's
 * writes run in one transaction, made durable by one fdatasync of the WAL on the loop, then their
 * callbacks run.
 */
function database(file: string, schema: string) {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(schema);
  const wal = openSync(`${file}-wal`, "r");
  let writes: (() => void)[] = [];
  let thens: (() => void)[] = [];
  const commitAll = db.transaction((batch: (() => void)[]) => {
    for (const write of batch) write();
  });
  const commit = (write: () => void, then: () => void) => {
    writes.push(write);
    thens.push(then);
    if (writes.length > 1) return;
    setImmediate(() => {
      const batch = writes;
      const done = thens;
      writes = [];
      thens = [];
      commitAll(batch);
      fdatasyncSync(wal);
      for (const next of done) next();
    });
  };
  return { db, commit };
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest();

const SENDER = keyPair(1);
const ROUTER = keyPair(2);

function runRouter(): void {
  const { db, commit } = database(
    path.join(dir!, "router.db"),
    "CREATE TABLE IF NOT EXISTS records (conv TEXT, seq INTEGER, hash BLOB, bytes BLOB, certificate BLOB, PRIMARY KEY (conv, seq))",
  );
  const insert = db.prepare("INSERT INTO records (conv, seq, hash, bytes, certificate) VALUES (?, ?, ?, ?, ?)");
  let seq = 0;
  let recipient: WebSocket | undefined;
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  wss.on("connection", (socket, request) => {
    if (request.url === "/recipient") recipient = socket;
    socket.on("message", (data: Buffer) => {
      if (data[0] !== PROPOSE) return;
      const id = data.readUInt32BE(1);
      const record = data.subarray(5, data.length - 64);
      const signature = data.subarray(data.length - 64);
      if (!ed25519.verify(SENDER.publicKey, record, signature)) return;
      const hash = sha256(record);
      const at = ++seq;
      const certificate = ROUTER.sign(Buffer.concat([hash, Buffer.from(String(at))]));
      commit(
        () => insert.run("direct:a,b", at, hash, record, certificate),
        () => {
          socket.send(frame(CERTIFIED, id, certificate));
          recipient?.send(frame(RECORD, at, record, signature, certificate));
        },
      );
    });
  });
  wss.once("listening", () => console.log((wss.address() as { port: number }).port));
}

function runSender(): void {
  const { db, commit } = database(
    path.join(dir!, "sender.db"),
    `CREATE TABLE IF NOT EXISTS intents (post_id TEXT PRIMARY KEY, content TEXT, state TEXT);
     CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, hash BLOB, bytes BLOB, certificate BLOB)`,
  );
  const bind = db.prepare("INSERT INTO intents (post_id, content, state) VALUES (?, ?, 'bound')");
  const store = db.prepare("INSERT INTO records (seq, hash, bytes, certificate) VALUES (?, ?, ?, ?)");
  const retire = db.prepare("DELETE FROM intents WHERE post_id = ?");
  const link = new WebSocket(`ws://127.0.0.1:${routerPort}/sender`, { perMessageDeflate: false });
  const waiting = new Map<number, (certificate: Buffer) => void>();
  let nextId = 0;
  let seq = 0;
  link.on("message", (data: Buffer) => {
    if (data[0] !== CERTIFIED) return;
    const id = data.readUInt32BE(1);
    waiting.get(id)?.(data.subarray(5));
    waiting.delete(id);
  });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const call = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number; params: { text: string } };
      const postId = `post_${process.hrtime.bigint()}`;
      const record = Buffer.from(JSON.stringify({ author: "agent:a", postId, text: call.params.text }));
      commit(
        () => bind.run(postId, call.params.text),
        () => {
          const signature = SENDER.sign(record);
          const id = nextId++;
          waiting.set(id, (certificate) => {
            const hash = sha256(record);
            const at = ++seq;
            if (!ed25519.verify(ROUTER.publicKey, Buffer.concat([hash, Buffer.from(String(at))]), certificate)) {
              res.writeHead(500).end();
              return;
            }
            // The answer need not wait for this commit's fsync: the intent is durable and the
            // router holds the record (ours answers the same way).
            commit(
              () => {
                store.run(at, hash, record, certificate);
                retire.run(postId);
              },
              () => undefined,
            );
            res
              .writeHead(200, { "content-type": "application/json" })
              .end(JSON.stringify({ jsonrpc: "2.0", id: call.id, result: { postId, seq: at } }));
          });
          link.send(frame(PROPOSE, id, record, signature));
        },
      );
    });
  });
  link.once("open", () =>
    server.listen(0, "127.0.0.1", () => console.log((server.address() as { port: number }).port)),
  );
}

function runRecipient(): void {
  const { db, commit } = database(
    path.join(dir!, "recipient.db"),
    `CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, hash BLOB, bytes BLOB, certificate BLOB);
     CREATE TABLE IF NOT EXISTS inbox (token TEXT PRIMARY KEY, seq INTEGER, state TEXT)`,
  );
  const store = db.prepare("INSERT INTO records (seq, hash, bytes, certificate) VALUES (?, ?, ?, ?)");
  const admit = db.prepare("INSERT INTO inbox (token, seq, state) VALUES (?, ?, 'pending')");
  const link = new WebSocket(`ws://127.0.0.1:${routerPort}/recipient`, { perMessageDeflate: false });
  link.on("message", (data: Buffer) => {
    if (data[0] !== RECORD) return;
    const seq = data.readUInt32BE(1);
    const record = data.subarray(5, data.length - 128);
    const signature = data.subarray(data.length - 128, data.length - 64);
    const certificate = data.subarray(data.length - 64);
    const hash = sha256(record);
    if (!ed25519.verify(SENDER.publicKey, record, signature)) return;
    if (!ed25519.verify(ROUTER.publicKey, Buffer.concat([hash, Buffer.from(String(seq))]), certificate)) return;
    commit(
      () => {
        store.run(seq, hash, record, certificate);
        // A delivery token is 32 random bytes (seed 000), so its key lands anywhere in the index.
        admit.run(`dlv_${randomBytes(32).toString("base64url")}`, seq);
      },
      () => link.send(frame(ACK, seq)),
    );
  });
  link.once("open", () => console.log("ready"));
}

const PUSH_WINDOW = 512;

function runCertifier(): void {
  const { db, commit } = database(
    path.join(dir!, "certifier.db"),
    `CREATE TABLE IF NOT EXISTS records (conv INTEGER, seq INTEGER, author INTEGER, post_id BLOB, hash BLOB,
       bytes BLOB, signature BLOB, certificate BLOB, PRIMARY KEY (conv, seq));
     CREATE UNIQUE INDEX IF NOT EXISTS records_by_author_post ON records (author, post_id)`,
  );
  const insert = db.prepare(
    "INSERT INTO records (conv, seq, author, post_id, hash, bytes, signature, certificate) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const heads = new Map<number, { seq: number; hash: Buffer }>();
  const zero = Buffer.alloc(RECORD_PREV_BYTES);
  let sink: WebSocket | undefined;
  // The bench's sink never acknowledges a push, so the router stops pushing to it once its window
  // of unacknowledged pushes is full (apps/router/src/link/session.ts, 512); this does the same.
  let unacknowledged = 0;
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  wss.on("connection", (socket, request) => {
    if (request.url === "/sink") {
      sink = socket;
      return;
    }
    // One link per author, each in its own conversation with the sink.
    const author = Number(request.url!.slice("/link/".length));
    const key = linkKey(author);
    socket.on("message", (data: Buffer) => {
      if (data[0] !== PROPOSE) return;
      const id = data.readUInt32BE(1);
      const record = data.subarray(5, data.length - 64);
      const signature = data.subarray(data.length - 64);
      if (!ed25519.verify(key.publicKey, record, signature)) return;
      const hash = sha256(record);
      const head = heads.get(author) ?? { seq: 0, hash: zero };
      if (!head.hash.equals(record.subarray(0, RECORD_PREV_BYTES))) return;
      const seq = head.seq + 1;
      heads.set(author, { seq, hash });
      const postId = record.subarray(RECORD_PREV_BYTES, RECORD_PREV_BYTES + RECORD_POST_ID_BYTES);
      const certificate = ROUTER.sign(Buffer.concat([hash, Buffer.from(`${author}:${seq}`)]));
      commit(
        () => insert.run(author, seq, author, postId, hash, record, signature, certificate),
        () => {
          socket.send(frame(CERTIFIED, id, certificate));
          if (sink !== undefined && unacknowledged < PUSH_WINDOW) {
            unacknowledged++;
            sink.send(frame(RECORD, seq, record, signature, certificate));
          }
        },
      );
    });
  });
  wss.once("listening", () => console.log((wss.address() as { port: number }).port));
}

if (role === "router") runRouter();
else if (role === "certifier") runCertifier();
else if (role === "sender") runSender();
else if (role === "recipient") runRecipient();
