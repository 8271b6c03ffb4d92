/**
 * parseMessageText (seed 003 "Message text"): how a native adapter reads a send from a model's
 * message text. Plain text and JSON-looking prose are a multicast; a JSON object naming an
 * operation must be well-formed, or the result is a MessageTextError naming each failing field.
 */
import { Either } from "effect";
import { readMessageText } from "@social-harness/protocol";
import { MessageTextError } from "./errors.js";
import type { MessageAddressInput, SendInput } from "./types.js";

/** Reads the send that `text`, written to `to`, asks for. */
export function parseMessageText(to: MessageAddressInput, text: string): Either.Either<SendInput, MessageTextError> {
  const read = readMessageText(to, text);
  return read.ok
    ? Either.right(read.input)
    : Either.left(new MessageTextError({ message: read.message, fields: read.fields }));
}
