/** Puts synthetic pending items straight into a stopped daemon's inbox table, in batches. */
import { randomBytes } from "node:crypto";
import path from "node:path";
import Database from "better-sqlite3";

export function fillInbox(dataDir: string, count: number): void {
  const db = new Database(path.join(dataDir, "daemon.db"));
  db.pragma("journal_mode = WAL");
  const insert = db.prepare(
    "INSERT INTO inbox (token, kind, item, guidance, size, conv, record_hash, state, created_at) VALUES (?, 'multicast', ?, NULL, ?, 'direct:alice,bob', NULL, 'pending', ?)",
  );
  const now = Date.now();
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const item = JSON.stringify({
        kind: "multicast",
        message: {
          kind: "direct",
          postId: `pst_${randomBytes(32).toString("base64url")}`,
          address: "agent:alice",
          sender: "agent:alice",
          content: [{ type: "text", text: `inbox item ${i}: a message of ordinary length for an agent to read` }],
        },
      });
      insert.run(`dlv_${randomBytes(32).toString("base64url")}`, item, Buffer.byteLength(item), now);
    }
  });
  for (let from = 0; from < count; from += 50_000) batch(from, Math.min(count, from + 50_000));
  db.close();
}
