/**
 * The body of one inbox.item callback (seed 000, SPEC §9): an EventOccurrence whose eventId is
 * "evt_" + the delivery token's 43 characters and whose data is the classified item with its
 * guidance, or, when that full UTF-8 envelope would exceed 256 KiB, a reference that read_event
 * resolves. Built once per item and stored, so every retry sends the same bytes.
 */
import { eventIdOf, INBOX_ITEM_EVENT } from "@social-harness/protocol";
import { entryOf } from "../inbox/inbox.service.js";
import type { InboxRow } from "../inbox/inbox.store.js";
import { ENVELOPE_LIMIT_BYTES } from "./webhooks.schema.js";

/** The event id and exact body bytes for an inbox row. */
export function buildOccurrence(row: InboxRow): { eventId: string; body: Buffer } {
  const eventId = eventIdOf(row.token);
  const { item, guidance } = entryOf(row);
  const head = { eventId, name: INBOX_ITEM_EVENT, timestamp: new Date(row.createdAt).toISOString() };
  const data = guidance === undefined ? { kind: "item", item } : { kind: "item", item, guidance };
  const full = JSON.stringify({ ...head, data, cursor: null });
  const bytes = Buffer.byteLength(full, "utf8");
  if (bytes <= ENVELOPE_LIMIT_BYTES) return { eventId, body: Buffer.from(full, "utf8") };
  const reference = { kind: "reference", itemKind: item.kind, bytes };
  return { eventId, body: Buffer.from(JSON.stringify({ ...head, data: reference, cursor: null }), "utf8") };
}
