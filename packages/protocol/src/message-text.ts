/**
 * Reads a send from a message's text (seed 003 "Message text"). Plain text, and JSON that names no
 * operation, is a multicast. A JSON object naming `gather`, `all_gather` or `action` is an
 * operation and must be well-formed; otherwise it is refused naming each failing field.
 */
import { checkRequestedSchema, type AnswerContent, type RequestedSchema } from "./form.js";
import { MAX_DEADLINE_SECONDS } from "./content.js";
import type { MessageAddressInput } from "./names.js";

export type CollectiveOperation =
  | { readonly op?: "multicast" }
  | {
      readonly op: "gather" | "all_gather";
      /** Whole seconds from now, 1 to 2,592,000 (30 days). */
      readonly deadline: number;
      readonly requestedSchema: RequestedSchema;
    };

export type CollectiveResponse =
  { readonly action: "accept"; readonly content: AnswerContent } | { readonly action: "decline" };

export type SendInput =
  | {
      readonly to: MessageAddressInput;
      readonly text: string;
      readonly collective?: CollectiveOperation;
    }
  | {
      readonly to: MessageAddressInput;
      readonly collectiveResponse: CollectiveResponse;
    };

export interface MessageTextField {
  readonly field: string;
  readonly problem: string;
}

export type MessageTextRead =
  | { readonly ok: true; readonly input: SendInput }
  | { readonly ok: false; readonly message: string; readonly fields: readonly MessageTextField[] };

const OPERATION_KEYS = ["gather", "all_gather", "action"] as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refusal(fields: MessageTextField[]): MessageTextRead {
  const message = `the message text is a malformed operation: ${fields.map((f) => `${f.field} ${f.problem}`).join("; ")}`;
  return { ok: false, message, fields };
}

function unknownKeys(value: Record<string, unknown>, allowed: readonly string[]): MessageTextField[] {
  return Object.keys(value)
    .filter((key) => !allowed.includes(key))
    .map((field) => ({ field, problem: "is not a field of this operation" }));
}

function readRequest(to: string, op: "gather" | "all_gather", value: Record<string, unknown>): MessageTextRead {
  const fields = unknownKeys(value, [op, "deadline", "requestedSchema"]);
  const question = value[op];
  if (typeof question !== "string" || question.trim() === "") {
    fields.push({ field: op, problem: "must be the question, a non-empty string" });
  }
  const deadline = value.deadline;
  if (!(
    typeof deadline === "number" &&
    Number.isInteger(deadline) &&
    deadline >= 1 &&
    deadline <= MAX_DEADLINE_SECONDS
  )) {
    fields.push({ field: "deadline", problem: `must be whole seconds from 1 to ${MAX_DEADLINE_SECONDS}` });
  }
  const schema = checkRequestedSchema(value.requestedSchema);
  if (!schema.ok) fields.push({ field: schema.field, problem: schema.problem });
  if (fields.length > 0) return refusal(fields);
  return {
    ok: true,
    input: {
      to,
      text: question as string,
      collective: { op, deadline: deadline as number, requestedSchema: value.requestedSchema as RequestedSchema },
    },
  };
}

function readAnswer(to: string, value: Record<string, unknown>): MessageTextRead {
  switch (value.action) {
    case "decline": {
      const fields = unknownKeys(value, ["action"]);
      return fields.length > 0
        ? refusal(fields)
        : { ok: true, input: { to, collectiveResponse: { action: "decline" } } };
    }
    case "accept": {
      const fields = unknownKeys(value, ["action", "content"]);
      const content = value.content;
      if (!isPlainObject(content)) {
        fields.push({ field: "content", problem: "must be an object of answer fields" });
      } else {
        for (const [key, field] of Object.entries(content)) {
          const valid =
            typeof field === "string" ||
            typeof field === "boolean" ||
            (typeof field === "number" && Number.isFinite(field)) ||
            (Array.isArray(field) && field.every((v) => typeof v === "string"));
          if (!valid)
            fields.push({ field: `content.${key}`, problem: "must be a string, number, boolean or list of strings" });
        }
      }
      if (fields.length > 0) return refusal(fields);
      return { ok: true, input: { to, collectiveResponse: { action: "accept", content: content as AnswerContent } } };
    }
    default:
      return refusal([{ field: "action", problem: 'must be "accept" or "decline"' }]);
  }
}

/**
 * Reads `text` sent to `to`. The result is a value: a SendInput, or a refusal naming each field
 * that keeps an operation from being well-formed.
 */
export function readMessageText(to: MessageAddressInput, text: string): MessageTextRead {
  const multicast: MessageTextRead = { ok: true, input: { to, text } };
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) return multicast;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return multicast;
  }
  if (!isPlainObject(value)) return multicast;
  const named = OPERATION_KEYS.filter((key) => Object.hasOwn(value, key));
  if (named.length === 0) return multicast;
  if (named.length > 1) {
    return refusal(
      named.map((field) => ({
        field,
        problem: `cannot be combined with ${named.filter((n) => n !== field).join(" or ")}`,
      })),
    );
  }
  const [op] = named;
  return op === "action" ? readAnswer(to, value) : readRequest(to, op === "gather" ? "gather" : "all_gather", value);
}

/**
 * Writes a SendInput as the message text that reads back as the same input. A multicast whose
 * text would read as an operation has no such text; it returns undefined.
 */
export function writeMessageText(input: SendInput): string | undefined {
  if ("collectiveResponse" in input) return JSON.stringify(input.collectiveResponse);
  const collective = input.collective;
  if (collective === undefined || !("deadline" in collective)) {
    const read = readMessageText(input.to, input.text);
    return read.ok && "text" in read.input && read.input.collective === undefined ? input.text : undefined;
  }
  return JSON.stringify({
    [collective.op]: input.text,
    deadline: collective.deadline,
    requestedSchema: collective.requestedSchema,
  });
}
