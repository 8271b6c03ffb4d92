/**
 * The public values of HarnessEndpoint exactly as seed 003 "Service shape" and "Local guidance"
 * write them. Names, addresses, ids, content and forms are protocol's own identical types; the
 * type canaries in public-types.test-d.ts pin every shape here.
 */
import type { Effect, Stream } from "effect";
import type {
  AgentAddress,
  AnswerContent,
  CollectiveId,
  Content,
  GroupAddress,
  MessageAddressInput,
  PostId,
  RequestedSchema,
  SendInput,
} from "@social-harness/protocol";
import type { CollectiveError, DeliveryAcknowledgeError, FirewallSendError, ListenError, SendError } from "./errors.js";

export type {
  AgentAddress,
  AnswerContent,
  CollectiveId,
  CollectiveOperation,
  CollectiveResponse,
  SendInput,
  Content,
  ContentPart,
  CollectivePart,
  DataPart,
  GroupAddress,
  HistoryExportRecord,
  JsonValue,
  MessageAddressInput,
  PostId,
  RequestedSchema,
  TextPart,
} from "@social-harness/protocol";

export interface SendResult {
  readonly operationId?: CollectiveId;
  /** The local firewall's advice on the admitted send. */
  readonly guidance?: CheckedGuidance;
}

export interface DirectMessage {
  readonly kind: "direct";
  readonly postId: PostId;
  readonly address: AgentAddress;
  readonly sender: AgentAddress;
  readonly content: Content;
}

export interface GroupMessage {
  readonly kind: "group";
  readonly postId: PostId;
  readonly address: GroupAddress;
  readonly sender: AgentAddress;
  readonly members: readonly [AgentAddress, AgentAddress, AgentAddress, ...AgentAddress[]];
  readonly content: Content;
}

export type InboundMessage = DirectMessage | GroupMessage;

/** Text the local firewall withheld from the runtime, never peer content. */
export interface Withheld {
  readonly kind: "withheld";
  readonly checkId: string;
  readonly reason: FirewallSendError["refusal"];
}

export type CollectiveMemberOutcome =
  | { readonly kind: "answered"; readonly content: AnswerContent }
  | { readonly kind: "declined" }
  | { readonly kind: "invalid"; readonly reason: string }
  | { readonly kind: "no-answer" }
  | Withheld;

export type InboundItem =
  | { readonly kind: "multicast"; readonly message: InboundMessage }
  | {
      readonly kind: "collectiveRequest";
      readonly op: "gather" | "all_gather";
      readonly id: CollectiveId;
      readonly postId: PostId;
      readonly from: AgentAddress;
      /** The conversation the request arrived in; answers go there. */
      readonly to: MessageAddressInput;
      readonly question: string;
      readonly requestedSchema: RequestedSchema;
      /** Epoch milliseconds. */
      readonly deadlineAt: number;
    }
  | {
      readonly kind: "collectiveResult";
      readonly op: "gather" | "all_gather";
      readonly id: CollectiveId;
      readonly to: MessageAddressInput;
      readonly question: string | Withheld;
      readonly outcomes: readonly [
        { readonly member: AgentAddress; readonly outcome: CollectiveMemberOutcome },
        ...{ readonly member: AgentAddress; readonly outcome: CollectiveMemberOutcome }[],
      ];
    }
  | {
      readonly kind: "operationFailed";
      readonly id: CollectiveId;
      readonly to: MessageAddressInput;
      readonly error: string;
    };

export interface InboundDelivery {
  readonly item: InboundItem;
  readonly guidance?: LocalGuidance;
  readonly acknowledge: Effect.Effect<void, DeliveryAcknowledgeError>;
}

export interface HarnessEndpoint {
  readonly send: (
    input: SendInput,
    options?: {
      readonly failureDelivery?: "result" | "inbound";
    },
  ) => Effect.Effect<SendResult, SendError | CollectiveError | FirewallSendError>;
  readonly messages: Stream.Stream<InboundDelivery, ListenError>;
}

export interface CheckedGuidance {
  readonly checkId: string;
  readonly subjects: readonly {
    readonly id: string;
    readonly sender: string;
    readonly recipients: readonly string[];
    readonly text: string;
  }[];
  readonly instructions: readonly (
    | {
        readonly middlewareId: string;
        readonly ruleId: string;
        readonly expectation: "required" | "permitted" | "wait" | "none";
        readonly subjects: readonly string[];
        readonly instruction: string;
      }
    | {
        readonly middlewareId: string;
        readonly ruleId: string;
        readonly uncertain: {
          readonly choice: string;
          readonly probability: number;
        };
        readonly instruction: string;
      }
  )[];
}

export type LocalGuidance =
  | CheckedGuidance
  | {
      readonly question?: CheckedGuidance;
      readonly answers: readonly (CheckedGuidance & { readonly member: string })[];
    };
