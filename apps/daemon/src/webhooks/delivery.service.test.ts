import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventIdOf, INBOX_ITEM_EVENT, type InboundItem } from "@social-harness/protocol";
import { pino } from "pino";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { openDaemonStore, type DaemonStore } from "../db/database.js";
import { Inbox } from "../inbox/inbox.service.js";
import { settleInboxRow } from "../inbox/inbox.store.js";
import type { CallbackOutcome, CallbackRequest, CallbackSender } from "./callback-client.js";
import { DEFAULT_SCHEDULE, retryDelayMs, scheduleOf, type Clock, type DeliverySchedule } from "./delivery-schedule.js";
import { WebhookDelivery } from "./delivery.service.js";
import { SecretVault } from "./secret-vault.js";
import { secretFingerprint } from "./signing.js";
import { LEASE_MAX_MS } from "./webhooks.schema.js";
import {
  findOccurrence,
  findSubscription,
  liftSuspension,
  refreshRegistration,
  revokeRegistration,
  writeRegistration,
} from "./webhooks.store.js";

// Whole seconds near the real time, so receivers' five-minute timestamp tolerance holds.
const START = Math.floor(Date.now() / 1000) * 1000;
const HOUR = 3_600_000;

/** Virtual time: sleeping advances the clock at once, so an hour of retries takes milliseconds. */
class FakeClock implements Clock {
  t = START;
  now = () => this.t;
  sleep = (ms: number, signal: AbortSignal) => {
    if (!signal.aborted) this.t += ms;
    return Promise.resolve();
  };
}

interface Attempt extends CallbackRequest {
  readonly at: number;
}

class ScriptedSender implements CallbackSender {
  readonly attempts: Attempt[] = [];
  reply: (attempt: Attempt) => CallbackOutcome | Promise<CallbackOutcome> = () => ({ kind: "response", status: 200 });
  constructor(private readonly clock: FakeClock) {}
  post(request: CallbackRequest): Promise<CallbackOutcome> {
    const attempt = { ...request, at: this.clock.now() };
    this.attempts.push(attempt);
    return Promise.resolve(this.reply(attempt));
  }
}

/** Holds the first attempt's 2xx until the release it resolves with is called; later attempts get 200 at once. */
function holdFirstAttempt(sender: ScriptedSender): () => Promise<() => void> {
  let release: (() => void) | undefined;
  sender.reply = () =>
    sender.attempts.length > 1
      ? { kind: "response", status: 200 }
      : new Promise((resolve) => (release = () => resolve({ kind: "response", status: 200 })));
  return () => until(() => release, "an attempt in flight");
}

/** The deliveries the Overview's attempt minutes count. */
async function deliveriesCounted(store: DaemonStore): Promise<number> {
  const minutes = await store.db.selectFrom("webhook_attempt_minutes").selectAll().execute();
  return minutes.reduce((sum, row) => sum + row.delivered, 0);
}

const item = (text: string): InboundItem => ({
  kind: "multicast",
  message: {
    kind: "direct",
    postId: `pst_${randomBytes(32).toString("base64url")}`,
    address: "agent:alice",
    sender: "agent:alice",
    content: [{ type: "text", text }],
  },
});

async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface Setup {
  store: DaemonStore;
  inbox: Inbox;
  clock: FakeClock;
  sender: ScriptedSender;
  delivery: WebhookDelivery;
  vault: SecretVault;
  secret: string;
  id: string;
}

describe("WebhookDelivery", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setup(schedule: Partial<DeliverySchedule> = {}, start = true): Promise<Setup> {
    const dir = mkdtempSync(path.join(tmpdir(), "sh-delivery-"));
    const store = await openDaemonStore(path.join(dir, "daemon.db"));
    const clock = new FakeClock();
    const inbox = new Inbox(store, clock.now);
    const vault = new SecretVault(path.join(dir, "webhook.key"));
    const sender = new ScriptedSender(clock);
    const delivery = new WebhookDelivery({
      store,
      inbox,
      vault,
      sender,
      log: pino({ level: "silent" }),
      schedule,
      clock,
      random: () => 0.5,
    });
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const id = `sub_${"a".repeat(64)}`;
    await writeRegistration(store.db, {
      id,
      principal: "runtime",
      url: "https://hooks.example.com/in",
      eventName: INBOX_ITEM_EVENT,
      arguments: "{}",
      sealedSecret: vault.seal(secret, id),
      secretFingerprint: secretFingerprint(secret),
      leaseExpiresAt: clock.now() + LEASE_MAX_MS,
      now: clock.now(),
    });
    if (start) delivery.start();
    cleanups.push(async () => {
      await delivery.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return { store, inbox, clock, sender, delivery, vault, secret, id };
  }

  it("offers items one at a time in inbox order and retires each on 2xx", async () => {
    const s = await setup({}, false);
    const tokens = [];
    for (const text of ["one", "two", "three"]) tokens.push(await s.inbox.admitNow({ item: item(text) }));
    let inFlight = 0;
    s.sender.reply = async () => {
      inFlight++;
      expect(inFlight).toBe(1);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return { kind: "response", status: 204 };
    };
    s.delivery.start();
    await until(async () => ((await s.inbox.pendingCount()) === 0 ? true : undefined), "an empty inbox");
    expect(s.sender.attempts.map((a) => a.headers["webhook-id"])).toEqual(tokens.map(eventIdOf));
    for (const [i, attempt] of s.sender.attempts.entries()) {
      const body = JSON.parse(attempt.body.toString("utf8"));
      expect(body).toEqual({
        eventId: eventIdOf(tokens[i]!),
        name: INBOX_ITEM_EVENT,
        timestamp: new Date(START).toISOString(),
        data: { kind: "item", item: expect.objectContaining({ kind: "multicast" }) },
        cursor: null,
      });
      expect(body.data.item.message.content[0].text).toBe(["one", "two", "three"][i]);
      expect(attempt.headers["x-mcp-subscription-id"]).toBe(s.id);
      expect(new Webhook(s.secret).verify(attempt.body.toString("utf8"), { ...attempt.headers })).toEqual(body);
    }
    const row = await s.inbox.find(tokens[0]!);
    expect(row?.state).toBe("acknowledged");
    const settledBy = await s.store.db
      .selectFrom("inbox")
      .select("settled_by")
      .where("token", "=", tokens[0]!)
      .executeTakeFirst();
    expect(settledBy?.settled_by).toBe(`webhook:${s.id}`);
    expect(await findOccurrence(s.store.db, s.id)).toBeUndefined();
    expect(await findSubscription(s.store.db, s.id)).toMatchObject({ delivered: 3, attempts: 0, lastError: null });
  });

  it("retries with the same id and body bytes, a fresh timestamp, and capped, jittered doubling delays", async () => {
    const s = await setup();
    s.sender.reply = () => ({ kind: "response", status: s.sender.attempts.length <= 12 ? 503 : 200 });
    const token = await s.inbox.admitNow({ item: item("retry me") });
    await until(async () => ((await s.inbox.pendingCount()) === 0 ? true : undefined), "the receipt");
    const attempts = s.sender.attempts;
    expect(attempts).toHaveLength(13);
    expect(new Set(attempts.map((a) => a.headers["webhook-id"]))).toEqual(new Set([eventIdOf(token)]));
    expect(new Set(attempts.map((a) => a.body.toString("hex"))).size).toBe(1);
    const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
    // random() = 0.5: three quarters of min(60 s, 1 s × 2^(n-1)).
    expect(gaps).toEqual([750, 1500, 3000, 6000, 12_000, 24_000, 45_000, 45_000, 45_000, 45_000, 45_000, 45_000]);
    const signer = new Webhook(s.secret);
    for (const attempt of attempts) {
      expect(attempt.headers["webhook-timestamp"]).toBe(String(Math.floor(attempt.at / 1000)));
      expect(attempt.headers["webhook-signature"]).toBe(
        signer.sign(eventIdOf(token), new Date(attempt.at), attempt.body.toString("utf8")),
      );
    }
    // A new second gives a new signature; attempts within one second share their timestamp.
    const seconds = new Set(attempts.map((a) => a.headers["webhook-timestamp"]));
    expect(seconds.size).toBeGreaterThanOrEqual(12);
    expect(new Set(attempts.map((a) => a.headers["webhook-signature"])).size).toBe(seconds.size);
    expect(await findSubscription(s.store.db, s.id)).toMatchObject({ attempts: 0, failingSince: null, delivered: 1 });
  });

  it("keeps the defaults for schedule options given as undefined", () => {
    expect(scheduleOf({ retryBaseMs: undefined, retryCapMs: 5_000, suspendWindowMs: undefined })).toEqual({
      ...DEFAULT_SCHEDULE,
      retryCapMs: 5_000,
    });
    expect(DEFAULT_SCHEDULE).toEqual({
      retryBaseMs: 1_000,
      retryCapMs: 60_000,
      suspendAttempts: 100,
      suspendWindowMs: 3_600_000,
      attemptTimeoutMs: 10_000,
    });
  });

  it("keeps every retry delay within [half, all] of the capped doubling", () => {
    for (let attempts = 1; attempts <= 120; attempts++) {
      const ceiling = Math.min(60_000, 1_000 * 2 ** (attempts - 1));
      for (const r of [0, 0.25, 0.999999]) {
        const delay = retryDelayMs(attempts, DEFAULT_SCHEDULE, () => r);
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(Math.min(ceiling, 60_000));
      }
    }
  });

  it("suspends after 100 failed attempts spanning an hour and stops attempting", async () => {
    const s = await setup();
    s.sender.reply = () => ({ kind: "failure", category: "connection_refused", detail: "ECONNREFUSED" });
    const token = await s.inbox.admitNow({ item: item("never lands") });
    const suspended = await until(async () => {
      const row = await findSubscription(s.store.db, s.id);
      return row?.state === "suspended" ? row : undefined;
    }, "suspension");
    expect(suspended).toMatchObject({
      attempts: 100,
      terminalStatus: null,
      lastError: "connection_refused",
      failingSince: START,
    });
    expect(s.sender.attempts).toHaveLength(100);
    expect(s.sender.attempts.at(-1)!.at - START).toBeGreaterThanOrEqual(HOUR);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.sender.attempts).toHaveLength(100);
    expect((await s.inbox.find(token))?.state).toBe("pending");
    expect(await findOccurrence(s.store.db, s.id)).toMatchObject({ token });

    // The owner's resume lifts it; the same occurrence is offered again and lands.
    s.sender.reply = () => ({ kind: "response", status: 200 });
    expect(await liftSuspension(s.store.db, s.id, s.clock.now())).toBe(true);
    s.delivery.wake();
    await until(async () => ((await s.inbox.find(token))?.state === "acknowledged" ? true : undefined), "the receipt");
    expect(s.sender.attempts.at(-1)!.headers["webhook-id"]).toBe(eventIdOf(token));
  });

  it("keeps retrying past 100 attempts until the failures span an hour", async () => {
    const s = await setup({ retryCapMs: 10_000 });
    s.sender.reply = () => ({ kind: "response", status: 500 });
    await s.inbox.admitNow({ item: item("fast failures") });
    const suspended = await until(async () => {
      const row = await findSubscription(s.store.db, s.id);
      return row?.state === "suspended" ? row : undefined;
    }, "suspension");
    const times = s.sender.attempts.map((a) => a.at);
    expect(times[99]! - START).toBeLessThan(HOUR);
    expect(times.at(-1)! - START).toBeGreaterThanOrEqual(HOUR);
    expect(times.at(-2)! - START).toBeLessThan(HOUR);
    expect(suspended.attempts).toBe(times.length);
    expect(suspended.lastError).toBe("http_5xx");
  });

  it.each([410, 413])("suspends terminally on HTTP %i, which resume and refresh cannot clear", async (status) => {
    const s = await setup();
    s.sender.reply = () => ({ kind: "response", status });
    const token = await s.inbox.admitNow({ item: item("rejected") });
    const row = await until(async () => {
      const r = await findSubscription(s.store.db, s.id);
      return r?.state === "suspended" ? r : undefined;
    }, "terminal suspension");
    expect(row).toMatchObject({ terminalStatus: status, attempts: 1, lastError: "http_4xx" });
    expect(await liftSuspension(s.store.db, s.id, s.clock.now())).toBe(false);
    await refreshRegistration(s.store.db, s.id, {
      sealedSecret: s.vault.seal(s.secret, s.id),
      secretFingerprint: secretFingerprint(s.secret),
      leaseExpiresAt: s.clock.now() + LEASE_MAX_MS,
      now: s.clock.now(),
    });
    s.delivery.wake();
    await new Promise((r) => setTimeout(r, 50));
    expect(await findSubscription(s.store.db, s.id)).toMatchObject({ state: "suspended", terminalStatus: status });
    expect(s.sender.attempts).toHaveLength(1);
    expect((await s.inbox.find(token))?.state).toBe("pending");
  });

  it("counts a redirect as a failure", async () => {
    const s = await setup();
    s.sender.reply = () => ({ kind: "response", status: s.sender.attempts.length === 1 ? 302 : 200 });
    await s.inbox.admitNow({ item: item("moved") });
    await until(async () => ((await s.inbox.pendingCount()) === 0 ? true : undefined), "the receipt");
    expect(s.sender.attempts).toHaveLength(2);
  });

  it("does not deliver on an expired lease, and a refresh resumes the same occurrence", async () => {
    const s = await setup({ retryBaseMs: 120_000, retryCapMs: 60_000 });
    s.sender.reply = () => ({ kind: "response", status: 503 });
    await refreshRegistration(s.store.db, s.id, {
      sealedSecret: s.vault.seal(s.secret, s.id),
      secretFingerprint: secretFingerprint(s.secret),
      leaseExpiresAt: START + 90_000,
      now: START,
    });
    const token = await s.inbox.admitNow({ item: item("expires") });
    // 503 at 0 s, then 30-60 s backoff twice: the lease (90 s) ends before a third attempt is due.
    await until(async () => (s.clock.now() >= START + 90_000 ? true : undefined), "expiry");
    await new Promise((r) => setTimeout(r, 50));
    const count = s.sender.attempts.length;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(s.sender.attempts.every((a) => a.at < START + 90_000)).toBe(true);
    const kept = await findSubscription(s.store.db, s.id);
    expect(kept).toMatchObject({ state: "active", attempts: count, lastError: "http_5xx" });
    const occurrence = await findOccurrence(s.store.db, s.id);
    expect(occurrence?.eventId).toBe(eventIdOf(token));

    s.sender.reply = () => ({ kind: "response", status: 200 });
    await refreshRegistration(s.store.db, s.id, {
      sealedSecret: s.vault.seal(s.secret, s.id),
      secretFingerprint: secretFingerprint(s.secret),
      leaseExpiresAt: s.clock.now() + LEASE_MAX_MS,
      now: s.clock.now(),
    });
    s.delivery.wake();
    await until(async () => ((await s.inbox.find(token))?.state === "acknowledged" ? true : undefined), "the receipt");
    expect(s.sender.attempts.at(-1)!.body.equals(occurrence!.body)).toBe(true);
  });

  it("stays asleep for new items while no registration can deliver, and delivers them once one changes", async () => {
    const s = await setup({}, false);
    const lease = (leaseExpiresAt: number) =>
      refreshRegistration(s.store.db, s.id, {
        sealedSecret: s.vault.seal(s.secret, s.id),
        secretFingerprint: secretFingerprint(s.secret),
        leaseExpiresAt,
        now: s.clock.now(),
      });
    await lease(START - 1);
    let steps = 0;
    const loop = s.delivery as unknown as { step(): Promise<unknown> };
    const step = loop.step.bind(s.delivery);
    loop.step = () => {
      steps++;
      return step();
    };
    s.delivery.start();
    await until(async () => (steps > 0 ? true : undefined), "the first look at the registrations");
    await new Promise((r) => setTimeout(r, 20));
    const looked = steps;
    const tokens = [];
    for (const text of ["one", "two", "three"]) tokens.push(await s.inbox.admitNow({ item: item(text) }));
    await new Promise((r) => setTimeout(r, 50));
    expect(steps).toBe(looked);
    expect(s.sender.attempts).toHaveLength(0);

    s.sender.reply = () => ({ kind: "response", status: 200 });
    await lease(s.clock.now() + LEASE_MAX_MS);
    s.delivery.wake();
    await until(async () => ((await s.inbox.pendingCount()) === 0 ? true : undefined), "an empty inbox");
    expect(s.sender.attempts.map((a) => a.headers["webhook-id"])).toEqual(tokens.map(eventIdOf));
  });

  it("discards a stored occurrence whose item is no longer pending, then offers the next", async () => {
    const s = await setup({}, false);
    const first = await s.inbox.admitNow({ item: item("retired at restart") });
    const second = await s.inbox.admitNow({ item: item("next") });
    // The first attempt is still in flight when the daemon stops.
    s.sender.reply = (attempt) =>
      new Promise((resolve) => attempt.signal?.addEventListener("abort", () => resolve({ kind: "cancelled" })));
    s.delivery.start();
    await until(async () => (s.sender.attempts.length > 0 ? true : undefined), "a first attempt");
    await s.delivery.stop();
    expect((await findOccurrence(s.store.db, s.id))?.token).toBe(first);
    await s.store.db.transaction().execute((trx) => settleInboxRow(trx, first, "retired", "restart", START));

    const restarted = new WebhookDelivery({
      store: s.store,
      inbox: s.inbox,
      vault: s.vault,
      sender: s.sender,
      log: pino({ level: "silent" }),
      clock: s.clock,
      random: () => 0.5,
    });
    expect(await restarted.recover()).toBe(1);
    expect(await findOccurrence(s.store.db, s.id)).toBeUndefined();
    s.sender.reply = () => ({ kind: "response", status: 200 });
    restarted.start();
    cleanups.push(() => restarted.stop());
    await until(
      async () => ((await s.inbox.find(second))?.state === "acknowledged" ? true : undefined),
      "the next item",
    );
    expect(s.sender.attempts.at(-1)!.headers["webhook-id"]).toBe(eventIdOf(second));
    expect((await s.inbox.find(first))?.state).toBe("retired");
  });

  it("drops an item acknowledged while its delivery waits for a retry, and offers the next", async () => {
    const s = await setup({}, false);
    const first = await s.inbox.admitNow({ item: item("acknowledged by the owner meanwhile") });
    const second = await s.inbox.admitNow({ item: item("next") });
    s.sender.reply = async () => {
      if (s.sender.attempts.length > 1) return { kind: "response", status: 200 };
      // The owner discards the item while the receiver answers 503.
      await s.inbox.acknowledge(first, "owner");
      return { kind: "response", status: 503 };
    };
    s.delivery.start();
    await until(
      async () => ((await s.inbox.find(second))?.state === "acknowledged" ? true : undefined),
      "the next item",
    );
    expect(s.sender.attempts.map((a) => a.headers["webhook-id"])).toEqual([eventIdOf(first), eventIdOf(second)]);
    expect((await s.inbox.find(first))?.state).toBe("acknowledged");
    expect(await findOccurrence(s.store.db, s.id)).toBeUndefined();
  });

  it("does not send the next item when the owner acknowledges it between its retiring commit and its attempt", async () => {
    const s = await setup({}, false);
    const first = await s.inbox.admitNow({ item: item("delivered") });
    const second = await s.inbox.admitNow({ item: item("discarded by the owner meanwhile") });
    const third = await s.inbox.admitNow({ item: item("next") });
    // The first item's retiring commit reads the second as the next item; while that commit is made
    // durable, the owner acknowledges the second.
    const durable = s.store.durable.bind(s.store);
    let discard = true;
    (s.store as { durable: () => Promise<void> }).durable = async () => {
      if (discard && s.sender.attempts.length === 1) {
        discard = false;
        expect((await findOccurrence(s.store.db, s.id))?.token).toBe(second);
        await s.inbox.acknowledge(second, "owner");
      }
      return durable();
    };
    s.delivery.start();
    await until(
      async () => ((await s.inbox.find(third))?.state === "acknowledged" ? true : undefined),
      "the third item",
    );
    expect(discard).toBe(false);
    expect(s.sender.attempts.map((a) => a.headers["webhook-id"])).toEqual([eventIdOf(first), eventIdOf(third)]);
    expect((await s.inbox.find(second))?.state).toBe("acknowledged");
  });

  it("signs the next item with a secret refreshed during the attempt before, even before the loop is woken", async () => {
    const s = await setup({}, false);
    await s.inbox.admitNow({ item: item("one") });
    await s.inbox.admitNow({ item: item("two") });
    const rotated = `whsec_${randomBytes(32).toString("base64")}`;
    s.sender.reply = async () => {
      if (s.sender.attempts.length === 1) {
        // The registration changes under the attempt in flight; the wake that follows a refresh comes later.
        await refreshRegistration(s.store.db, s.id, {
          sealedSecret: s.vault.seal(rotated, s.id),
          secretFingerprint: secretFingerprint(rotated),
          leaseExpiresAt: s.clock.now() + LEASE_MAX_MS,
          now: s.clock.now(),
        });
      }
      return { kind: "response", status: 200 };
    };
    s.delivery.start();
    await until(async () => (s.sender.attempts.length === 2 ? true : undefined), "the second attempt");
    const [first, second] = s.sender.attempts;
    expect(() => new Webhook(s.secret).verify(first!.body.toString("utf8"), { ...first!.headers })).not.toThrow();
    expect(() => new Webhook(rotated).verify(second!.body.toString("utf8"), { ...second!.headers })).not.toThrow();
  });

  it("sends a reference instead of an envelope above 256 KiB", async () => {
    const s = await setup();
    const token = await s.inbox.admitNow({ item: item("x".repeat(300 * 1024)) });
    await until(async () => ((await s.inbox.pendingCount()) === 0 ? true : undefined), "the receipt");
    const body = JSON.parse(s.sender.attempts[0]!.body.toString("utf8"));
    expect(body.data).toEqual({ kind: "reference", itemKind: "multicast", bytes: expect.any(Number) });
    expect(body.data.bytes).toBeGreaterThan(262_144);
    expect(body.eventId).toBe(eventIdOf(token));
    expect(s.sender.attempts[0]!.body.length).toBeLessThan(1024);
  });

  it("records no receipt for an attempt whose stored occurrence was cleared while it was in flight", async () => {
    const s = await setup();
    const inFlight = holdFirstAttempt(s.sender);
    const token = await s.inbox.admitNow({ item: item("cleared under the attempt") });
    const release = await inFlight();
    await s.store.db.deleteFrom("webhook_occurrences").where("subscription_id", "=", s.id).execute();
    release();
    // The retiring commit rolls back whole; the item is offered again and retired by the second 2xx.
    await until(async () => ((await s.inbox.find(token))?.state === "acknowledged" ? true : undefined), "a retire");
    expect(s.sender.attempts).toHaveLength(2);
    expect(await findSubscription(s.store.db, s.id)).toMatchObject({ delivered: 1, attempts: 0 });
    expect(await deliveriesCounted(s.store)).toBe(1);
  });

  it("settles nothing when the stored occurrence was replaced under the attempt, with items behind it", async () => {
    const s = await setup();
    const inFlight = holdFirstAttempt(s.sender);
    const first = await s.inbox.admitNow({ item: item("in flight") });
    const second = await s.inbox.admitNow({ item: item("behind it") });
    const release = await inFlight();
    // Another event id now holds the registration's occurrence row: the retiring commit, which
    // would put the second item's occurrence in its place, finds it is no longer the first's.
    await s.store.db
      .updateTable("webhook_occurrences")
      .set({ event_id: `evt_${"b".repeat(43)}` })
      .where("subscription_id", "=", s.id)
      .execute();
    release();
    await until(async () => ((await s.inbox.find(second))?.state === "acknowledged" ? true : undefined), "a retire");
    // The first 2xx settled nothing (the commit rolled back whole); the replaced occurrence's item
    // went next, then the second.
    expect(s.sender.attempts.map((a) => a.headers["webhook-id"])).toEqual([
      eventIdOf(first),
      `evt_${"b".repeat(43)}`,
      eventIdOf(second),
    ]);
    expect(await findSubscription(s.store.db, s.id)).toMatchObject({ delivered: 2 });
    expect(await deliveriesCounted(s.store)).toBe(2);
  });

  it("leaves the item pending when the registration is revoked during an attempt", async () => {
    const s = await setup();
    let release: (() => void) | undefined;
    s.sender.reply = (attempt) =>
      new Promise((resolve) => {
        attempt.signal?.addEventListener("abort", () => resolve({ kind: "cancelled" }));
        release = () => resolve({ kind: "response", status: 200 });
      });
    const token = await s.inbox.admitNow({ item: item("in flight") });
    await until(() => release, "an attempt in flight");
    await revokeRegistration(s.store.db, s.id, "owner", s.clock.now());
    s.delivery.cancel(s.id);
    await new Promise((r) => setTimeout(r, 20));
    release!();
    await new Promise((r) => setTimeout(r, 20));
    expect((await s.inbox.find(token))?.state).toBe("pending");
    expect(await findOccurrence(s.store.db, s.id)).toBeUndefined();
    expect(s.sender.attempts).toHaveLength(1);
  });
});
