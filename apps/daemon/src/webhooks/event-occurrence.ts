/**
 * The body of one inbox.item callback (seed 000, SPEC §9): an EventOccurrence whose eventId is
 * "evt_" + the delivery token's 43 characters and whose data is the classified item with its
 * guidance, or, when that full UTF-8 envelope would exceed 256 KiB, a reference that read_event
 * resolves. Built once per item and stored, so every retry sends the same bytes. The item and its
 * guidance are spliced in as stored: Inbox.admit wrote them as JSON.stringify of the item this
 * daemon built (inbox.store.ts entryJsonOf), so they are not parsed, checked and encoded again.
 */
import { eventIdOf, INBOX_ITEM_EVENT } from "@social-harness/protocol";
import type { InboxRow } from "../inbox/inbox.store.js";
import { ENVELOPE_LIMIT_BYTES } from "./webhooks.schema.js";

/** The event id and exact body bytes for an inbox row. */
export function buildOccurrence(row: InboxRow): { eventId: string; body: Buffer } {
  const eventId = eventIdOf(row.token);
  const timestamp = new Date(row.createdAt).toISOString();
  const head = `{"eventId":${JSON.stringify(eventId)},"name":${JSON.stringify(INBOX_ITEM_EVENT)},"timestamp":"${timestamp}"`;
  const guidance = row.guidance === null ? "" : `,"guidance":${row.guidance}`;
  const full = Buffer.from(`${head},"data":{"kind":"item","item":${row.item}${guidance}},"cursor":null}`, "utf8");
  if (full.length <= ENVELOPE_LIMIT_BYTES) return { eventId, body: full };
  const reference = { kind: "reference", itemKind: row.kind, bytes: full.length };
  return { eventId, body: Buffer.from(`${head},"data":${JSON.stringify(reference)},"cursor":null}`, "utf8") };
}
