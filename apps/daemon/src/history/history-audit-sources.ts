/**
 * Where an offline audit reads a history from: a daemon's data directory (its database opened
 * read-only, its pinned keys, the router key it pinned and its own identity; safe while it runs)
 * or a `history export` file with the key file `history export --keys` wrote. Both become the
 * same AuditRecords; a line that cannot become one is reported, never skipped.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import {
  decodeBase64url,
  decodeSignatureList,
  encodeBase64url,
  HistoryExportRecordSchema,
  HistoryKeysSchema,
  signingKeyFromSeed,
  type HistoryKeys,
} from "@social-harness/protocol";
import * as z from "zod";
import type { RecordsTable } from "./history.table.js";
import type { AuditKeys, AuditRecord, ConversationState } from "./history-audit.js";

/** A line of an export that is not a HistoryExportRecord. */
export interface UnreadableLine {
  readonly line: number;
  readonly problem: string;
}

/** The columns of a records row (db/database.ts) an audit reads. */
type RecordRow = Pick<
  RecordsTable,
  | "conv"
  | "seq"
  | "hash"
  | "kind"
  | "author"
  | "post_id"
  | "at"
  | "bytes"
  | "signatures"
  | "certificate"
  | "disposition"
>;

/** A daemon's history, read-only: one conversation at a time, so memory holds one conversation. */
export interface DataDirHistory {
  readonly keys: AuditKeys;
  readonly states: ReadonlyMap<string, ConversationState>;
  conversations(): Generator<{ conv: string; records: AuditRecord[] }>;
  close(): void;
}

function openDatabase(dataDir: string): Database.Database {
  return new Database(path.join(path.resolve(dataDir), "daemon.db"), { readonly: true, fileMustExist: true });
}

/** The daemon's own public key from identity.key, without creating one. */
function ownKey(dataDir: string): Uint8Array | undefined {
  const file = path.join(dataDir, "identity.key");
  if (!existsSync(file)) return undefined;
  const seed = decodeBase64url(readFileSync(file, "utf8").trim());
  return seed?.length === 32 ? signingKeyFromSeed(seed).publicKey : undefined;
}

/** The keys a daemon verifies with: the pinned router key, pinned agent keys and its own. */
function keysOf(db: Database.Database, dataDir: string): AuditKeys {
  const router = db.prepare("SELECT public_key FROM router_identity WHERE id = 1").get() as
    { public_key: Buffer } | undefined;
  const agents = new Map<string, Uint8Array>();
  for (const row of db.prepare("SELECT name, public_key FROM pinned_keys").all() as {
    name: string;
    public_key: Buffer;
  }[])
    agents.set(row.name, new Uint8Array(row.public_key));
  // The daemon's own name is the author of its own posts; its key is the identity it signs with.
  const self = db.prepare("SELECT author FROM records WHERE disposition = 'own' LIMIT 1").get() as
    { author: string } | undefined;
  const own = ownKey(dataDir);
  if (self !== undefined && own !== undefined && !agents.has(self.author)) agents.set(self.author, own);
  return { router: router === undefined ? new Uint8Array(32) : new Uint8Array(router.public_key), agents };
}

function toAuditRecord(row: RecordRow): AuditRecord {
  return {
    conv: row.conv,
    seq: row.seq,
    hash: row.hash,
    bytes: new Uint8Array(row.bytes),
    signatures: decodeSignatureList(new Uint8Array(row.signatures)),
    certificate: new Uint8Array(row.certificate),
    // The columns the daemon indexes by must say what the bytes say.
    shown: { kind: row.kind, author: row.author, postId: row.post_id, at: row.at },
  };
}

/** Opens a daemon's data directory for an audit. */
export function openDataDirHistory(dataDir: string): DataDirHistory {
  const db = openDatabase(dataDir);
  const states = new Map<string, ConversationState>();
  for (const row of db.prepare("SELECT conv, members, contiguous_seq FROM conversations").all() as {
    conv: string;
    members: string;
    contiguous_seq: number;
  }[]) {
    states.set(row.conv, { contiguousSeq: row.contiguous_seq, members: JSON.parse(row.members) as string[] });
  }
  return {
    keys: keysOf(db, dataDir),
    states,
    *conversations() {
      const convs = db
        .prepare("SELECT conv FROM conversations UNION SELECT DISTINCT conv FROM records ORDER BY conv")
        .pluck()
        .all() as string[];
      const page = db.prepare("SELECT * FROM records WHERE conv = ? ORDER BY seq");
      for (const conv of convs) yield { conv, records: (page.all(conv) as RecordRow[]).map(toAuditRecord) };
    },
    close: () => db.close(),
  };
}

/** The key file `history export --keys` writes: what a reader needs to verify the export. */
export function readHistoryKeys(dataDir: string): HistoryKeys {
  const db = openDatabase(dataDir);
  try {
    const keys = keysOf(db, dataDir);
    return {
      router: encodeBase64url(keys.router),
      agents: Object.fromEntries(
        [...keys.agents].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, k]) => [n, encodeBase64url(k)]),
      ),
    };
  } finally {
    db.close();
  }
}

const stripAgent = (address: string) => (address.startsWith("agent:") ? address.slice("agent:".length) : address);

/** Reads a key file; throws naming what is wrong with it. */
export function readKeysFile(file: string): AuditKeys {
  const parsed = HistoryKeysSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} is not a history key file: ${z.prettifyError(parsed.error)}`);
  const key = (what: string, text: string) => {
    const bytes = decodeBase64url(text);
    if (bytes?.length !== 32) throw new Error(`${file}: the key of ${what} is not 32 bytes of base64url`);
    return bytes;
  };
  return {
    router: key("the router", parsed.data.router),
    agents: new Map(Object.entries(parsed.data.agents).map(([name, text]) => [name, key(name, text)])),
  };
}

/** Reads an export file into AuditRecords, with every line that is not a HistoryExportRecord. */
export function readExportFile(file: string): { records: AuditRecord[]; unreadable: UnreadableLine[] } {
  const records: AuditRecord[] = [];
  const unreadable: UnreadableLine[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((text, index) => {
      if (text.trim() === "") return;
      const line = index + 1;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        unreadable.push({ line, problem: "not JSON" });
        return;
      }
      const parsed = HistoryExportRecordSchema.safeParse(json);
      const bytes = parsed.success ? decodeBase64url(parsed.data.record) : undefined;
      const certificate = parsed.success ? decodeBase64url(parsed.data.certificate) : undefined;
      const signatures = parsed.success
        ? parsed.data.signatures.map((s) => ({ signer: s.signer, signature: decodeBase64url(s.signature) }))
        : [];
      if (!parsed.success || bytes === undefined || certificate === undefined) {
        unreadable.push({ line, problem: parsed.success ? "a field is not base64url" : z.prettifyError(parsed.error) });
        return;
      }
      if (signatures.some((s) => s.signature === undefined)) {
        unreadable.push({ line, problem: "a signature is not base64url" });
        return;
      }
      const shown = parsed.data;
      records.push({
        conv: shown.conversation,
        seq: shown.seq,
        hash: shown.recordHash,
        bytes,
        signatures: signatures as { signer: string; signature: Uint8Array }[],
        certificate,
        shown: {
          kind: shown.kind,
          author: stripAgent(shown.author),
          postId: shown.postId,
          at: shown.at,
          prev: shown.prev,
          content: shown.content,
          members: shown.members?.map(stripAgent),
        },
      });
    });
  return { records, unreadable };
}
