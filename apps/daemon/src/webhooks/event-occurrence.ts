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

const NAME_JSON = JSON.stringify(INBOX_ITEM_EVENT);

/** "00" to "99". */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, "0"));

/**
 * `new Date(ms).toISOString()` for the years 1000-9999, without a Date (V8 formats one through
 * its generic printf, about 7,000 instructions a timestamp under callgrind): the civil date of a
 * day count by Howard Hinnant's `civil_from_days`, in eras of 400 years that start on 1 March.
 */
export function isoTimestamp(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const z = days + 719_468; // days since 0000-03-01
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (!Number.isSafeInteger(ms) || year < 1000 || year > 9999) return new Date(ms).toISOString();
  const inDay = ms - days * 86_400_000;
  const seconds = Math.floor(inDay / 1000);
  const millis = inDay - seconds * 1000;
  const hh = TWO_DIGITS[Math.floor(seconds / 3600)]!;
  const mm = TWO_DIGITS[Math.floor(seconds / 60) % 60]!;
  const ss = TWO_DIGITS[seconds % 60]!;
  const fraction = millis < 10 ? `00${millis}` : millis < 100 ? `0${millis}` : String(millis);
  return `${year}-${TWO_DIGITS[month]!}-${TWO_DIGITS[day]!}T${hh}:${mm}:${ss}.${fraction}Z`;
}

/**
 * The event id and exact body bytes for an inbox row. (The event id is "evt_" and base64url, so
 * it is its own JSON string between quotes.)
 */
export function buildOccurrence(row: InboxRow): { eventId: string; body: Buffer } {
  const eventId = eventIdOf(row.token);
  const head = `{"eventId":"${eventId}","name":${NAME_JSON},"timestamp":"${isoTimestamp(row.createdAt)}"`;
  const guidance = row.guidance === null ? "" : `,"guidance":${row.guidance}`;
  const full = Buffer.from(`${head},"data":{"kind":"item","item":${row.item}${guidance}},"cursor":null}`, "utf8");
  if (full.length <= ENVELOPE_LIMIT_BYTES) return { eventId, body: full };
  const reference = { kind: "reference", itemKind: row.kind, bytes: full.length };
  return { eventId, body: Buffer.from(`${head},"data":${JSON.stringify(reference)},"cursor":null}`, "utf8") };
}
