/**
 * @social-harness/client: the HarnessEndpoint of seed 003 a host uses to send and receive through
 * its Social Harness daemon, as Effect values over the daemon's MCP endpoint, and parseMessageText
 * for adapters that read a send from a model's message text.
 */
export { acquireHarnessEndpoint, forEachDelivery, TOKEN_ENV, type HarnessEndpointOptions } from "./endpoint.js";
export {
  CollectiveError,
  ConnectError,
  DeliveryAcknowledgeError,
  FirewallSendError,
  ListenError,
  MessageTextError,
  SendError,
  type CollectiveFailure,
  type ConnectErrorReason,
  type DeliveryAcknowledgeErrorReason,
  type FirewallRefusal,
  type ListenErrorReason,
  type MessageTextField,
  type SendErrorReason,
} from "./errors.js";
export { parseMessageText } from "./message-text.js";
export type {
  AgentAddress,
  AnswerContent,
  CheckedGuidance,
  CollectiveId,
  CollectiveMemberOutcome,
  CollectiveOperation,
  CollectivePart,
  CollectiveResponse,
  Content,
  ContentPart,
  DataPart,
  DirectMessage,
  GroupAddress,
  GroupMessage,
  HarnessEndpoint,
  HistoryExportRecord,
  InboundDelivery,
  InboundItem,
  InboundMessage,
  JsonValue,
  LocalGuidance,
  MessageAddressInput,
  PostId,
  RequestedSchema,
  SendInput,
  SendResult,
  TextPart,
  Withheld,
} from "./types.js";
