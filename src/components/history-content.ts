/**
 * A history record's certified content as the owner reads it (SPEC §5): the text and data parts
 * in order, and the one collective part summarised in words ("gather request (col_…)",
 * "answer: accept", "close"). Content arrives as plain JSON, so every part is checked here.
 */
import type { HistoryRecord } from "@/trpc/owner-api";
import type { MessageParts } from "./message-content";

type Part = Readonly<Record<string, unknown>>;
type JsonValue = Extract<MessageParts[number], { type: "data" }>["value"];

/** Up to 12 characters of an identifier such as `col_…`, enough to tell operations apart. */
export function shortId(id: unknown): string {
  if (typeof id !== "string") return "unknown id";
  return id.length > 12 ? `${id.slice(0, 12)}…` : id;
}

function answerFields(content: unknown): string {
  if (typeof content !== "object" || content === null) return "";
  const fields = Object.entries(content).map(
    ([key, value]) => `${key}: ${Array.isArray(value) ? value.map(String).join(", ") : String(value)}`,
  );
  return fields.length === 0 ? "" : ` — ${fields.join("; ")}`;
}

function answerSummary(part: Part): string {
  const response = part.response;
  const action =
    typeof response === "object" && response !== null && "action" in response ? response.action : undefined;
  const id = shortId(part.id);
  if (action === "accept") {
    const content = (response as { content?: unknown }).content;
    return `answer: accept (${id})${answerFields(content)}`;
  }
  if (action === "decline") return `answer: decline (${id})`;
  return `answer (${id})`;
}

function closeSummary(part: Part): string {
  const answers = Array.isArray(part.answers) ? (part.answers as unknown[]) : [];
  const counted = answers.filter(
    (entry) => typeof entry === "object" && entry !== null && "answer" in entry && typeof entry.answer === "string",
  ).length;
  return `close (${shortId(part.id)}): ${counted} of ${answers.length} answers counted`;
}

/** The collective part of a record in words. */
export function summarizeCollectivePart(part: Part): string {
  switch (part.op) {
    case "multicast":
      return "multicast";
    case "gather":
    case "all_gather":
      return `${part.op} request (${shortId(part.id)})`;
    case "answer":
      return answerSummary(part);
    case "close":
      return closeSummary(part);
    default:
      return part.op === undefined ? "collective part" : `collective part (${JSON.stringify(part.op)})`;
  }
}

/** A record's content split into readable message parts and its collective part, summarised. */
export function readHistoryContent(content: HistoryRecord["content"]): {
  parts: MessageParts;
  collective: string | undefined;
} {
  const parts: MessageParts[number][] = [];
  let collective: string | undefined;
  for (const part of content) {
    if (part.type === "text" && typeof part.text === "string") parts.push({ type: "text", text: part.text });
    else if (part.type === "collective") collective = summarizeCollectivePart(part);
    // A data part's value is JSON (it came over JSON); anything unrecognised is shown whole.
    else if (part.type === "data") parts.push({ type: "data", value: part.value as JsonValue });
    else parts.push({ type: "data", value: part as JsonValue });
  }
  return { parts, collective };
}
