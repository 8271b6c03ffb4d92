/**
 * The SQLite writer thread: one connection that runs each group commit it is sent, in order, and
 * answers with the outcomes after COMMIT returned (synchronous=FULL: the WAL is fsync'd). It signs
 * the certificates too, since their sequence numbers are assigned inside the transaction.
 */
import { parentPort, workerData } from "node:worker_threads";
import { enableAnatomy, hop, signingKeyFromSeed } from "@social-harness/protocol";
import { openSqliteConnection } from "../db/database.js";
import type { WriterData, WriterReply, WriterRequest } from "./append-writer.js";
import { sqliteCommitter } from "./sqlite-commit.js";

const { file, seed, anatomy } = workerData as WriterData;
if (anatomy !== undefined) enableAnatomy(anatomy);
const sqlite = openSqliteConnection(file);
const committer = sqliteCommitter(sqlite, signingKeyFromSeed(seed), () => Date.now());
const port = parentPort!;

// Batches run one after another, synchronously, and replies leave in the order the batches came.
port.on("message", (request: WriterRequest) => {
  if ("close" in request) {
    sqlite.close();
    port.close();
    return;
  }
  let reply: WriterReply;
  try {
    if (request.forget === true) committer.forget();
    reply = { id: request.id, outcomes: committer.commit(request.inputs) };
    hop("router.writer-committed");
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    reply = { id: request.id, error: { name: e.name, message: e.message, code: (e as { code?: unknown }).code } };
  }
  port.postMessage(reply);
});
