/**
 * Semantic send (seed 001): one invocation of `send_message` reads its text with the message text
 * grammar and performs exactly one operation: a multicast, a gather, an all_gather or an answer.
 * Every invocation mints fresh PostIds, so identical calls make distinct posts.
 */
import {
  AMBIGUOUS_SEND_REASONS,
  readMessageText,
  type CheckedGuidance,
  type CollectiveOperation,
  type CollectiveResponse,
  type Content,
} from "@social-harness/protocol";
import type { Logger } from "pino";
import type { PostReceipt } from "./posts.service.js";
import { CollectiveError, FirewallSendError, SendError } from "./send-error.js";

export type FailureDelivery = "result" | "inbound";

export interface SendResult {
  readonly operationId?: string;
  readonly guidance?: CheckedGuidance;
}

/** The multicast side of a send (posts/posts.service.ts). */
export interface MulticastSender {
  send(to: string, content: Content): Promise<PostReceipt>;
}

/** What `send_message` calls (posts/posts.tools.ts). */
export interface TextSender {
  sendText(to: string, text: string, failureDelivery: FailureDelivery): Promise<SendResult>;
}

/** The collective engine's side of a send; provided by collectives/. */
export interface CollectiveSender {
  request(
    to: string,
    question: string,
    operation: Extract<CollectiveOperation, { deadline: number }>,
    failureDelivery: FailureDelivery,
  ): Promise<SendResult>;
  answer(to: string, response: CollectiveResponse, failureDelivery: FailureDelivery): Promise<SendResult>;
}

export function multicastContent(text: string): Content {
  return [
    { type: "text", text },
    { type: "collective", op: "multicast" },
  ];
}

export class SemanticSend implements TextSender {
  constructor(
    private readonly posts: MulticastSender,
    private readonly collectives: CollectiveSender,
    private readonly log: Logger,
  ) {}

  /**
   * Reads `text` and performs the operation it names. A send that ends without a typed failure
   * (a defect, an interruption) answers outcome-unknown: the message may have been sent.
   */
  async sendText(to: string, text: string, failureDelivery: FailureDelivery): Promise<SendResult> {
    try {
      return await this.perform(to, text, failureDelivery);
    } catch (error) {
      if (error instanceof SendError || error instanceof CollectiveError || error instanceof FirewallSendError)
        throw error;
      this.log.error({ err: error }, "a send ended without a typed failure");
      throw new SendError("outcome-unknown", "the send ended without a typed failure; the message may have been sent", {
        cause: error,
      });
    }
  }

  private async perform(to: string, text: string, failureDelivery: FailureDelivery): Promise<SendResult> {
    const read = readMessageText(to, text);
    if (!read.ok) throw new SendError("content-invalid", read.message);
    const input = read.input;
    if ("collectiveResponse" in input)
      return this.collectives.answer(input.to, input.collectiveResponse, failureDelivery);
    const operation = input.collective;
    if (operation !== undefined && "deadline" in operation) {
      return this.collectives.request(input.to, input.text, operation, failureDelivery);
    }
    if (input.text.length === 0) throw new SendError("content-invalid", "the message text is empty");
    const receipt = await this.posts.send(input.to, multicastContent(input.text));
    return receipt.guidance === undefined ? {} : { guidance: receipt.guidance };
  }
}

/** True for failures that never reach the inbox, even with failureDelivery "inbound". */
export function isAmbiguousFailure(error: unknown): boolean {
  return error instanceof SendError && AMBIGUOUS_SEND_REASONS.includes(error.reason);
}
