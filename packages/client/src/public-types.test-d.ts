/**
 * Type canaries (seed 003 "Acceptance"): the public service and values, restated here verbatim
 * from seed 003 "Service shape" and "Local guidance", must equal what the package exports.
 */
import type { Effect, Either, Scope, Stream } from "effect";
import { describe, expectTypeOf, it } from "vitest";
import {
  acquireHarnessEndpoint,
  parseMessageText,
  type AgentAddress,
  type AnswerContent,
  type CheckedGuidance,
  type CollectiveError,
  type CollectiveId,
  type CollectiveMemberOutcome,
  type CollectiveOperation,
  type CollectiveResponse,
  type ConnectError,
  type Content,
  type DeliveryAcknowledgeError,
  type DirectMessage,
  type FirewallSendError,
  type GroupAddress,
  type GroupMessage,
  type HarnessEndpoint,
  type InboundDelivery,
  type InboundItem,
  type InboundMessage,
  type JsonValue,
  type ListenError,
  type LocalGuidance,
  type MessageAddressInput,
  type MessageTextError,
  type PostId,
  type RequestedSchema,
  type SendError,
  type SendInput,
  type SendResult,
  type Withheld,
} from "./index.js";

interface SeedRequestedSchema {
  readonly $schema?: string;
  readonly type: "object";
  readonly properties: Readonly<Record<string, Readonly<Record<string, JsonValue>>>>;
  readonly required?: readonly string[];
}
type SeedAnswerContent = Readonly<Record<string, string | number | boolean | readonly string[]>>;
type SeedCollectiveOperation =
  | { readonly op?: "multicast" }
  | { readonly op: "gather" | "all_gather"; readonly deadline: number; readonly requestedSchema: RequestedSchema };
type SeedCollectiveResponse =
  { readonly action: "accept"; readonly content: AnswerContent } | { readonly action: "decline" };
type SeedSendInput =
  | { readonly to: MessageAddressInput; readonly text: string; readonly collective?: CollectiveOperation }
  | { readonly to: MessageAddressInput; readonly collectiveResponse: CollectiveResponse };
interface SeedSendResult {
  readonly operationId?: CollectiveId;
  readonly guidance?: CheckedGuidance;
}
interface SeedDirectMessage {
  readonly kind: "direct";
  readonly postId: PostId;
  readonly address: AgentAddress;
  readonly sender: AgentAddress;
  readonly content: Content;
}
interface SeedGroupMessage {
  readonly kind: "group";
  readonly postId: PostId;
  readonly address: GroupAddress;
  readonly sender: AgentAddress;
  readonly members: readonly [AgentAddress, AgentAddress, AgentAddress, ...AgentAddress[]];
  readonly content: Content;
}
interface SeedWithheld {
  readonly kind: "withheld";
  readonly checkId: string;
  readonly reason: FirewallSendError["refusal"];
}
type SeedCollectiveMemberOutcome =
  | { readonly kind: "answered"; readonly content: AnswerContent }
  | { readonly kind: "declined" }
  | { readonly kind: "invalid"; readonly reason: string }
  | { readonly kind: "no-answer" }
  | Withheld;
type SeedInboundItem =
  | { readonly kind: "multicast"; readonly message: InboundMessage }
  | {
      readonly kind: "collectiveRequest";
      readonly op: "gather" | "all_gather";
      readonly id: CollectiveId;
      readonly postId: PostId;
      readonly from: AgentAddress;
      readonly to: MessageAddressInput;
      readonly question: string;
      readonly requestedSchema: RequestedSchema;
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
interface SeedInboundDelivery {
  readonly item: InboundItem;
  readonly guidance?: LocalGuidance;
  readonly acknowledge: Effect.Effect<void, DeliveryAcknowledgeError>;
}
interface SeedHarnessEndpoint {
  readonly send: (
    input: SendInput,
    options?: { readonly failureDelivery?: "result" | "inbound" },
  ) => Effect.Effect<SendResult, SendError | CollectiveError | FirewallSendError>;
  readonly messages: Stream.Stream<InboundDelivery, ListenError>;
}
interface SeedCheckedGuidance {
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
        readonly uncertain: { readonly choice: string; readonly probability: number };
        readonly instruction: string;
      }
  )[];
}
type SeedLocalGuidance =
  | CheckedGuidance
  | {
      readonly question?: CheckedGuidance;
      readonly answers: readonly (CheckedGuidance & { readonly member: string })[];
    };

describe("public values of seed 003", () => {
  it("pins names, ids and forms", () => {
    expectTypeOf<AgentAddress>().toEqualTypeOf<string>();
    expectTypeOf<GroupAddress>().toEqualTypeOf<string>();
    expectTypeOf<MessageAddressInput>().toEqualTypeOf<string>();
    expectTypeOf<PostId>().toEqualTypeOf<string>();
    expectTypeOf<CollectiveId>().toEqualTypeOf<string>();
    expectTypeOf<RequestedSchema>().toEqualTypeOf<SeedRequestedSchema>();
    expectTypeOf<AnswerContent>().toEqualTypeOf<SeedAnswerContent>();
  });

  it("pins the send values", () => {
    expectTypeOf<CollectiveOperation>().toEqualTypeOf<SeedCollectiveOperation>();
    expectTypeOf<CollectiveResponse>().toEqualTypeOf<SeedCollectiveResponse>();
    expectTypeOf<SendInput>().toEqualTypeOf<SeedSendInput>();
    expectTypeOf<SendResult>().toEqualTypeOf<SeedSendResult>();
  });

  it("pins the inbound values", () => {
    expectTypeOf<DirectMessage>().toEqualTypeOf<SeedDirectMessage>();
    expectTypeOf<GroupMessage>().toEqualTypeOf<SeedGroupMessage>();
    expectTypeOf<GroupMessage["members"]>().not.toEqualTypeOf<readonly AgentAddress[]>();
    expectTypeOf<InboundMessage>().toEqualTypeOf<SeedDirectMessage | SeedGroupMessage>();
    expectTypeOf<Withheld>().toEqualTypeOf<SeedWithheld>();
    expectTypeOf<CollectiveMemberOutcome>().toEqualTypeOf<SeedCollectiveMemberOutcome>();
    expectTypeOf<InboundItem>().toEqualTypeOf<SeedInboundItem>();
    expectTypeOf<Extract<InboundItem, { kind: "collectiveResult" }>["outcomes"]>().not.toEqualTypeOf<
      readonly { readonly member: AgentAddress; readonly outcome: CollectiveMemberOutcome }[]
    >();
    expectTypeOf<InboundItem["kind"]>().toEqualTypeOf<
      "multicast" | "collectiveRequest" | "collectiveResult" | "operationFailed"
    >();
    expectTypeOf<InboundDelivery>().toEqualTypeOf<SeedInboundDelivery>();
  });

  it("pins the local guidance", () => {
    expectTypeOf<CheckedGuidance>().toEqualTypeOf<SeedCheckedGuidance>();
    expectTypeOf<LocalGuidance>().toEqualTypeOf<SeedLocalGuidance>();
  });
});

describe("service shape of seed 003", () => {
  it("pins HarnessEndpoint and its members", () => {
    expectTypeOf<HarnessEndpoint>().toEqualTypeOf<SeedHarnessEndpoint>();
    expectTypeOf<HarnessEndpoint["send"]>().toEqualTypeOf<
      (
        input: SendInput,
        options?: { readonly failureDelivery?: "result" | "inbound" },
      ) => Effect.Effect<SendResult, SendError | CollectiveError | FirewallSendError>
    >();
    expectTypeOf<HarnessEndpoint["messages"]>().toEqualTypeOf<Stream.Stream<InboundDelivery, ListenError>>();
  });

  it("pins acquireHarnessEndpoint for a URL-only call", () => {
    const acquire = (endpoint: URL) => acquireHarnessEndpoint(endpoint);
    expectTypeOf(acquire).toEqualTypeOf<(endpoint: URL) => Effect.Effect<HarnessEndpoint, ConnectError, Scope.Scope>>();
    expectTypeOf(acquireHarnessEndpoint).parameter(0).toEqualTypeOf<URL>();
  });

  it("pins parseMessageText", () => {
    expectTypeOf(parseMessageText).toEqualTypeOf<
      (to: MessageAddressInput, text: string) => Either.Either<SendInput, MessageTextError>
    >();
  });

  it("keeps the closed errors tagged", () => {
    expectTypeOf<SendError["_tag"]>().toEqualTypeOf<"SendError">();
    expectTypeOf<SendError["reason"]>().toEqualTypeOf<
      | "invalid-address"
      | "unknown-agent"
      | "membership-invalid"
      | "content-invalid"
      | "not-registered"
      | "version-mismatch"
      | "certification-unavailable"
      | "persistence-failed"
      | "network-unavailable"
      | "delivery-pending"
      | "outcome-unknown"
    >();
    expectTypeOf<CollectiveError["_tag"]>().toEqualTypeOf<"CollectiveError">();
    expectTypeOf<FirewallSendError["refusal"]>().toEqualTypeOf<"refused" | "held" | "unavailable">();
    expectTypeOf<ListenError["_tag"]>().toEqualTypeOf<"ListenError">();
    expectTypeOf<DeliveryAcknowledgeError["_tag"]>().toEqualTypeOf<"DeliveryAcknowledgeError">();
    expectTypeOf<ConnectError["_tag"]>().toEqualTypeOf<"ConnectError">();
    expectTypeOf<MessageTextError["_tag"]>().toEqualTypeOf<"MessageTextError">();
  });
});
