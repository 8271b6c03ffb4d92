/**
 * The SQLite writer thread: one connection that runs each group commit it is sent, in order, and
 * answers with the outcomes after COMMIT returned (synchronous=FULL: the WAL is fsync'd). It signs
 * the certificates too, since their sequence numbers are assigned inside the transaction.
 */
import { parentPort, workerData } from "node:worker_threads";
import { enableAnatomy, hop, signingKeyFromSeed } from "@social-harness/protocol";
import { openSqlite } from "../db/database.js";
import type { WriterData, WriterReply } from "./append-writer.js";
import type { HeadCommit } from "./append.service.js";
import { commitBatch, type BatchEnv } from "./commit-batch.js";

const { file, seed, anatomy } = workerData as WriterData;
if (anatomy !== undefined) enableAnatomy(anatomy);
const db = openSqlite(file);
const env: BatchEnv = { dialect: "sqlite", routerKey: signingKeyFromSeed(seed), now: () => Date.now() };
const port = parentPort!;

type Request = { readonly id: number; readonly inputs: HeadCommit[] } | { readonly close: true };

// Batches run one after another: each waits for the previous transaction (Kysely holds the one
// connection), and replies leave in the order the batches came.
let last: Promise<void> = Promise.resolve();
port.on("message", (request: Request) => {
  last = last.then(async () => {
    if ("close" in request) {
      await db.destroy();
      port.close();
      return;
    }
    let reply: WriterReply;
    try {
      reply = {
        id: request.id,
        outcomes: await db.transaction().execute((trx) => commitBatch(trx, env, request.inputs)),
      };
      hop("router.writer-committed");
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      reply = { id: request.id, error: { name: e.name, message: e.message, code: (e as { code?: unknown }).code } };
    }
    port.postMessage(reply);
  });
});
