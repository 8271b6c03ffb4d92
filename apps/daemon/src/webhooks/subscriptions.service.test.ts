import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { openDaemonStore } from "../db/database.js";
import { InboxConsumers } from "../events/consumers.js";
import { Inbox } from "../inbox/inbox.service.js";
import type { CallbackOutcome, CallbackRequest, CallbackSender } from "./callback-client.js";
import { WebhookDelivery } from "./delivery.service.js";
import { SecretVault } from "./secret-vault.js";
import { Subscriptions } from "./subscriptions.service.js";
import { LEASE_MIN_MS, SubscriptionOwnerError, WebhookError } from "./webhooks.schema.js";

const ITEM = "org.social-harness/inbox.item";
const secret = () => `whsec_${randomBytes(32).toString("base64")}`;
const params = (url: string, key: string, extra: Record<string, unknown> = {}) => ({
  name: ITEM,
  arguments: {},
  delivery: { mode: "webhook", url, secret: key },
  ...extra,
});

/** Answers every challenge correctly unless told otherwise, and records what was sent. */
class ChallengeAnswerer implements CallbackSender {
  readonly challenges: CallbackRequest[] = [];
  answer: "echo" | "wrong" = "echo";
  post(request: CallbackRequest): Promise<CallbackOutcome> {
    this.challenges.push(request);
    const { challenge } = JSON.parse(request.body.toString("utf8")) as { challenge: string };
    const body = Buffer.from(JSON.stringify({ challenge: this.answer === "echo" ? challenge : "nope" }));
    return Promise.resolve({ kind: "response", status: 200, body });
  }
}

describe("Subscriptions", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function setup() {
    const dir = mkdtempSync(path.join(tmpdir(), "sh-subs-"));
    const store = await openDaemonStore(path.join(dir, "daemon.db"));
    let now = Date.now();
    const clock = { now: () => now, advance: (ms: number) => (now += ms) };
    const log = pino({ level: "silent" });
    const vault = new SecretVault(path.join(dir, "webhook.key"));
    const sender = new ChallengeAnswerer();
    const consumers = new InboxConsumers();
    // The engine is never started here: these tests are about registrations, not callbacks.
    const delivery = new WebhookDelivery({ store, inbox: new Inbox(store), vault, sender, log });
    const build = () =>
      new Subscriptions({
        store,
        vault,
        consumers,
        delivery,
        sender,
        log,
        allowLocal: false,
        challengeTimeoutMs: 1_000,
        now: clock.now,
      });
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return { store, clock, sender, consumers, subscriptions: build(), build };
  }

  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WebhookError);
    return (error as WebhookError).failure;
  };

  it("caches a verification for ten minutes per principal, URL and secret", async () => {
    const { subscriptions, sender, clock } = await setup();
    const key = secret();
    const url = "https://hooks.example.com/a";
    await subscriptions.subscribe("runtime", params(url, key));
    clock.advance(9 * 60 * 1000);
    await subscriptions.subscribe("runtime", params(url, key));
    expect(sender.challenges).toHaveLength(1);
    clock.advance(61 * 1000);
    await subscriptions.subscribe("runtime", params(url, key));
    expect(sender.challenges).toHaveLength(2);
    await subscriptions.subscribe("runtime", params(url, secret()));
    expect(sender.challenges).toHaveLength(3);
  });

  it("keeps a failed challenge from registering or claiming anything", async () => {
    const { subscriptions, sender, consumers } = await setup();
    sender.answer = "wrong";
    expect(await refusal(subscriptions.subscribe("runtime", params("https://hooks.example.com/a", secret())))).toEqual({
      kind: "callback-endpoint",
      reason: "challenge_failed",
    });
    expect(consumers.current()).toBeUndefined();
    expect(await subscriptions.list()).toEqual([]);
  });

  it("retains an expired registration: it still owns the inbox, and a refresh makes it active again", async () => {
    const { subscriptions, consumers, clock } = await setup();
    const key = secret();
    const { id } = await subscriptions.subscribe("runtime", params("https://hooks.example.com/a", key, { ttlMs: 0 }));
    clock.advance(LEASE_MIN_MS);
    expect(await subscriptions.status(id)).toMatchObject({ state: "expired" });
    expect(consumers.claim({ kind: "push", key: "stream" })).toEqual({ ok: false, owner: "webhook" });
    expect(await refusal(subscriptions.subscribe("runtime", params("https://hooks.example.com/b", secret())))).toEqual({
      kind: "forbidden",
      owner: "webhook",
      reason: expect.stringContaining("revoked"),
    });
    const refreshed = await subscriptions.subscribe("runtime", params("https://hooks.example.com/a", key));
    expect(refreshed).toMatchObject({ id, deliveryStatus: { active: true } });
    expect(await subscriptions.status(id)).toMatchObject({ state: "active" });
  });

  it("restores ownership from the database after a restart", async () => {
    const { subscriptions, build, consumers } = await setup();
    const { id } = await subscriptions.subscribe("owner", params("https://hooks.example.com/a", secret()));
    consumers.release(consumers.current()!.lease);
    await build().restore();
    expect(consumers.current()).toMatchObject({ kind: "webhook", key: id });
  });

  it("refuses owner resume of a revoked or unknown subscription", async () => {
    const { subscriptions } = await setup();
    const { id } = await subscriptions.subscribe("runtime", params("https://hooks.example.com/a", secret()));
    expect(await subscriptions.resume(id)).toMatchObject({ state: "active" });
    expect(await subscriptions.revoke(id)).toMatchObject({ state: "revoked" });
    await expect(subscriptions.resume(id)).rejects.toMatchObject({ reason: "revoked" });
    await expect(subscriptions.status(`sub_${"0".repeat(64)}`)).rejects.toBeInstanceOf(SubscriptionOwnerError);
  });
});
