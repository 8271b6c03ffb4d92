/**
 * The inbox tools (seed 000 "MCP Events and inbox", "Delivery handoff"): read_inbox pages and
 * acknowledge_delivery. Each page entry is decoded with protocol's closed item schema, read
 * additively, and projected onto the public InboundItem without re-resolving anything.
 */
import { Effect, Option } from "effect";
import { InboxEntrySchema, SEND_REFUSED_CODE, type InboxEntry } from "@social-harness/protocol";
import { acknowledgeErrorFromRefusal, DeliveryAcknowledgeError, ListenError } from "./errors.js";
import type { McpConnection } from "./mcp-connection.js";
import type { ToolCallError } from "./mcp-errors.js";
import type { InboundItem, LocalGuidance } from "./types.js";

/** One pending entry of the inbox, as the public values carry it. */
export interface PendingEntry {
  readonly deliveryToken: string;
  readonly item: InboundItem;
  readonly guidance?: LocalGuidance;
}

/** One read_inbox page; `nextCursor` continues the same read. */
export interface InboxPage {
  readonly entries: readonly PendingEntry[];
  readonly nextCursor?: string;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function atLeastThree<T>(values: readonly T[]): values is readonly [T, T, T, ...T[]] {
  return values.length >= 3;
}

function atLeastOne<T>(values: readonly T[]): values is readonly [T, ...T[]] {
  return values.length >= 1;
}

// The schema already requires three group members and one outcome; the guards carry that into
// the public tuple types.
function inboundItemOf(item: InboxEntry["item"]): Option.Option<InboundItem> {
  switch (item.kind) {
    case "multicast": {
      const message = item.message;
      if (message.kind === "direct") return Option.some({ kind: "multicast", message });
      const members = message.members;
      return atLeastThree(members)
        ? Option.some({ kind: "multicast", message: { ...message, members } })
        : Option.none();
    }
    case "collectiveResult": {
      const outcomes = item.outcomes;
      return atLeastOne(outcomes) ? Option.some({ ...item, outcomes }) : Option.none();
    }
    case "collectiveRequest":
    case "operationFailed":
      return Option.some(item);
  }
}

function pendingEntryOf(value: unknown): Option.Option<PendingEntry> {
  const parsed = InboxEntrySchema.safeParse(value);
  if (!parsed.success) return Option.none();
  const { deliveryToken, guidance } = parsed.data;
  return Option.map(inboundItemOf(parsed.data.item), (item) =>
    guidance === undefined ? { deliveryToken, item } : { deliveryToken, item, guidance },
  );
}

function listenErrorOf(error: ToolCallError): ListenError {
  switch (error.kind) {
    case "unauthorized":
      return new ListenError({ reason: "unauthorized", detail: error.detail, cause: error });
    case "unsent":
    case "ambiguous":
      return new ListenError({ reason: "unreachable", detail: error.detail, cause: error });
    case "refused":
    case "failed":
      return new ListenError({ reason: "invalid-response", detail: error.detail, cause: error });
  }
}

/** Reads one read_inbox page, the first when `cursor` is undefined. A read acknowledges nothing. */
export function readInboxPage(
  connection: McpConnection,
  cursor: string | undefined,
): Effect.Effect<InboxPage, ListenError> {
  return Effect.gen(function* () {
    const structured = yield* connection
      .callTool("read_inbox", cursor === undefined ? {} : { cursor })
      .pipe(Effect.mapError(listenErrorOf));
    const invalid = (problem: string) =>
      new ListenError({ reason: "invalid-response", detail: `read_inbox answered a page ${problem}` });
    if (!isRecord(structured) || !Array.isArray(structured.items)) {
      return yield* invalid("without an items list");
    }
    const { nextCursor } = structured;
    if (nextCursor !== undefined && typeof nextCursor !== "string") {
      return yield* invalid("whose nextCursor is not a string");
    }
    const entries: PendingEntry[] = [];
    for (const [index, value] of structured.items.entries()) {
      const entry = pendingEntryOf(value);
      if (Option.isNone(entry)) return yield* invalid(`whose item ${index} is not a valid inbox entry`);
      entries.push(entry.value);
    }
    return nextCursor === undefined ? { entries } : { entries, nextCursor };
  });
}

function acknowledgeErrorOf(error: ToolCallError): DeliveryAcknowledgeError {
  switch (error.kind) {
    case "refused":
      return error.code === SEND_REFUSED_CODE
        ? acknowledgeErrorFromRefusal(error.data)
        : new DeliveryAcknowledgeError({ reason: "invalid-response", detail: error.detail, cause: error });
    case "unauthorized":
      return new DeliveryAcknowledgeError({ reason: "unauthorized", detail: error.detail, cause: error });
    case "unsent":
    case "ambiguous":
      return new DeliveryAcknowledgeError({ reason: "unreachable", detail: error.detail, cause: error });
    case "failed":
      return new DeliveryAcknowledgeError({ reason: "invalid-response", detail: error.detail, cause: error });
  }
}

/** Retires the delivery `deliveryToken` names; acknowledging a retired token again succeeds. */
export function acknowledgeDelivery(
  connection: McpConnection,
  deliveryToken: string,
): Effect.Effect<void, DeliveryAcknowledgeError> {
  return Effect.gen(function* () {
    const structured = yield* connection
      .callTool("acknowledge_delivery", { deliveryToken })
      .pipe(Effect.mapError(acknowledgeErrorOf));
    if (structured !== undefined && !isRecord(structured)) {
      return yield* new DeliveryAcknowledgeError({
        reason: "invalid-response",
        detail: `acknowledge_delivery answered ${JSON.stringify(structured)}`,
      });
    }
  });
}
