/**
 * NanoClaw's channel adapter contract as this adapter relies on it, recorded in our own types from
 * NanoClaw's `src/channels/adapter.ts` and `src/delivery.ts` (nanocoai/nanoclaw, read 2026-12-01;
 * research/nanoclaw.md). NanoClaw is not on the npm registry, so nothing here is imported from it.
 *
 * - The host calls `setup(host)` once and routes inbound messages through `host.onInbound`, whose
 *   promise (when it returns one) settles once the message is routed into the session.
 * - `send_message {to, text}` and final `<message to>` blocks become `messages_out` rows whose
 *   content is `{text}` (or a bare string); the host hands each to `deliver(platformId, threadId,
 *   {kind, content})`. Returning marks the row delivered; throwing counts an attempt and the host
 *   retries it with backoff (6 attempts in the current release), then marks it failed. The agent
 *   is never told that a delivery failed.
 */

/** A message an adapter routes into NanoClaw. */
export interface NanoClawInboundMessage {
  readonly id: string;
  readonly kind: "chat";
  /** Chat content: `{text, sender, senderId}`; the host stores it as JSON. */
  readonly content: { readonly text: string; readonly sender: string; readonly senderId: string };
  /** ISO 8601. */
  readonly timestamp: string;
  readonly isMention?: boolean;
  readonly isGroup?: boolean;
}

/** What NanoClaw passes `setup`. */
export interface NanoClawChannelSetup {
  onInbound(platformId: string, threadId: string | null, message: NanoClawInboundMessage): void | Promise<void>;
  onMetadata(platformId: string, name?: string, isGroup?: boolean): void;
}

/** One `messages_out` row as the host hands it to `deliver`. */
export interface NanoClawOutboundMessage {
  readonly kind: string;
  /** The row's parsed JSON content: `{text}` for chat, or a bare string. */
  readonly content: unknown;
}

export interface NanoClawContextDefaults {
  readonly engageMode: "pattern" | "mention" | "mention-sticky";
  readonly engagePattern?: string;
  readonly threads: boolean;
  readonly unknownSenderPolicy: "strict" | "request_approval" | "decline_notify" | "public";
}

export interface NanoClawChannelDefaults {
  readonly dm: NanoClawContextDefaults;
  readonly group: NanoClawContextDefaults;
  readonly mentions: "platform" | "dm-only" | "never";
}

/** The v2 channel adapter NanoClaw runs. */
export interface NanoClawChannelAdapter {
  readonly name: string;
  readonly channelType: string;
  readonly supportsThreads: boolean;
  readonly defaults?: NanoClawChannelDefaults;
  setup(host: NanoClawChannelSetup): Promise<void>;
  teardown(): Promise<void>;
  isConnected(): boolean;
  /** Resolves to the platform message id when there is one; throwing asks the host to retry. */
  deliver(platformId: string, threadId: string | null, message: NanoClawOutboundMessage): Promise<string | undefined>;
}

/** What `registerChannelAdapter(name, registration)` takes; a factory returning null is skipped. */
export interface NanoClawChannelRegistration {
  readonly factory: () => NanoClawChannelAdapter | null;
  readonly defaults?: NanoClawChannelDefaults;
}
