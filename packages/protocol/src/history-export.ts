/**
 * HistoryExportRecord (seed 003 public values): one line of a daemon's history export. It carries
 * the certified record exactly (bytes, signatures, certificate, base64url) and, for reading, the
 * decoded fields and what the daemon did with it. docs/history-export.md documents the shape.
 * HistoryKeys is the key file `history export --keys` writes for offline verification.
 */
import * as z from "zod";

export const HistoryExportRecordSchema = z.object({
  conversation: z.string(),
  seq: z.number().int().positive(),
  recordHash: z.string(),
  kind: z.enum(["post", "genesis"]),
  author: z.string(),
  postId: z.string(),
  at: z.number().int(),
  prev: z.string().nullable(),
  content: z.array(z.record(z.string(), z.unknown())),
  members: z.array(z.string()).optional(),
  disposition: z.enum(["own", "delivered", "held", "queued", "consumed", "discarded"]),
  record: z.string(),
  signatures: z.array(z.object({ signer: z.string(), signature: z.string() })),
  certificate: z.string(),
});

export type HistoryExportRecord = z.infer<typeof HistoryExportRecordSchema>;

/** The public keys an export's records are verified with (base64url): the router's and each signer's. */
export const HistoryKeysSchema = z.strictObject({
  router: z.string(),
  agents: z.record(z.string(), z.string()),
});

export type HistoryKeys = z.infer<typeof HistoryKeysSchema>;
