/**
 * The router bus: how the routers sharing one database tell each other that a record was
 * committed and pass genesis co-signing traffic to whichever router holds a member's link.
 * A single router uses the in-process bus; routers on PostgreSQL use LISTEN/NOTIFY.
 */
import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import pg from "pg";
import type { Logger } from "pino";

export type CosignMessage =
  | { kind: "request"; request: string; member: string; record: string }
  | { kind: "delivered"; request: string; member: string }
  | { kind: "signature"; request: string; member: string; signature: string }
  | { kind: "refused"; request: string; member: string; reason: string };

export interface RecordCommitted {
  conv: string;
  seq: number;
}

type BusMessage = { type: "record"; body: RecordCommitted } | { type: "cosign"; body: CosignMessage };

export interface RouterBus {
  publish(message: BusMessage): void;
  onRecord(listener: (event: RecordCommitted) => void): void;
  onCosign(listener: (message: CosignMessage) => void): void;
  /** Called when the bus may have missed messages (a lost LISTEN connection came back). */
  onGap(listener: () => void): void;
  close(): Promise<void>;
}

class LocalBus implements RouterBus {
  protected readonly events = new EventEmitter();
  publish(message: BusMessage): void {
    this.events.emit(message.type, message.body);
  }
  onRecord(listener: (event: RecordCommitted) => void): void {
    this.events.on("record", listener);
  }
  onCosign(listener: (message: CosignMessage) => void): void {
    this.events.on("cosign", listener);
  }
  onGap(listener: () => void): void {
    this.events.on("gap", listener);
  }
  close(): Promise<void> {
    this.events.removeAllListeners();
    return Promise.resolve();
  }
}

export function createLocalBus(): RouterBus {
  return new LocalBus();
}

/**
 * LISTEN/NOTIFY bus. Messages are delivered locally at once and to the other routers through
 * NOTIFY (payloads stay far below PostgreSQL's 8000-byte limit: genesis records are small).
 */
class PostgresBus extends LocalBus {
  private readonly origin = randomUUID();
  private client: pg.Client | undefined;
  private closed = false;
  private readonly notifier: pg.Pool;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly log: Logger,
  ) {
    super();
    this.notifier = new pg.Pool({ ...config, max: 2 });
  }

  async start(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on("notification", (n) => {
      if (n.payload === undefined) return;
      const { origin, message } = JSON.parse(n.payload) as { origin: string; message: BusMessage };
      if (origin !== this.origin) super.publish(message);
    });
    client.on("error", (error) => {
      this.log.warn({ err: error }, "bus connection lost; reconnecting");
      this.reconnect(client);
    });
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    this.client = client;
  }

  private reconnect(old: pg.Client): void {
    if (this.closed || this.client !== old) return;
    this.client = undefined;
    old.end().catch(() => undefined);
    const retry = () => {
      if (this.closed) return;
      this.start().then(
        () => this.events.emit("gap"),
        (error: unknown) => {
          this.log.warn({ err: error }, "bus reconnect failed; retrying");
          setTimeout(retry, 1000).unref();
        },
      );
    };
    retry();
  }

  override publish(message: BusMessage): void {
    super.publish(message);
    const payload = JSON.stringify({ origin: this.origin, message });
    this.notifier.query("SELECT pg_notify($1, $2)", [this.channel, payload]).catch((error: unknown) => {
      this.log.error({ err: error }, "bus notify failed");
      this.events.emit("gap");
    });
  }

  override async close(): Promise<void> {
    this.closed = true;
    await super.close();
    await this.client?.end().catch(() => undefined);
    await this.notifier.end();
  }
}

export async function createPostgresBus(config: pg.ClientConfig, channel: string, log: Logger): Promise<RouterBus> {
  const bus = new PostgresBus(config, channel, log);
  await bus.start();
  return bus;
}
