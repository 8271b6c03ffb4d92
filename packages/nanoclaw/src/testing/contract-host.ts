/**
 * NanoClaw's host side as src/contract.ts records it, for tests that cannot run NanoClaw itself
 * (its agents need a container engine): `setup` with an `onInbound` whose promise settles once the
 * message is routed, and the delivery loop that hands a `messages_out` row to `deliver`, marks it
 * delivered when `deliver` returns and retries it after a throw, up to 6 attempts, then marks it
 * failed. Delays are shortened for tests. Nothing here is shipped.
 */
import type { NanoClawChannelAdapter, NanoClawInboundMessage, NanoClawOutboundMessage } from "../contract.js";

export interface RoutedMessage {
  readonly platformId: string;
  readonly threadId: string | null;
  readonly message: NanoClawInboundMessage;
}

export type RowState = "delivered" | "failed";

export const MAX_DELIVERY_ATTEMPTS = 6;

export class ContractHost {
  /** Every onInbound call, failed ones included, in order. */
  readonly routed: RoutedMessage[] = [];
  /** How each onInbound call behaves; by default it routes at once. */
  onInbound: (routed: RoutedMessage) => Promise<void> = () => Promise.resolve();

  constructor(
    readonly adapter: NanoClawChannelAdapter,
    private readonly retryDelayMs = 50,
  ) {}

  setup(): Promise<void> {
    return this.adapter.setup({
      onInbound: (platformId, threadId, message) => {
        const routed = { platformId, threadId, message };
        this.routed.push(routed);
        return this.onInbound(routed);
      },
      onMetadata: () => undefined,
    });
  }

  /** Delivers one `messages_out` row as NanoClaw's delivery loop does; resolves with its end state. */
  async deliverRow(
    platformId: string,
    content: unknown,
  ): Promise<{ state: RowState; attempts: number; errors: unknown[] }> {
    const message: NanoClawOutboundMessage = { kind: "chat", content };
    const errors: unknown[] = [];
    for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
      try {
        await this.adapter.deliver(platformId, null, message);
        return { state: "delivered", attempts: attempt, errors };
      } catch (error) {
        errors.push(error);
        await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs));
      }
    }
    return { state: "failed", attempts: MAX_DELIVERY_ATTEMPTS, errors };
  }

  /** What the agent would read from Social Harness's notices in `platformId`. */
  notices(platformId: string): string[] {
    return this.routed
      .filter((routed) => routed.platformId === platformId && routed.message.content.sender === "Social Harness")
      .map((routed) => routed.message.content.text);
  }
}
