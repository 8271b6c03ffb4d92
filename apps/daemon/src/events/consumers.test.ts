import { describe, expect, it } from "vitest";
import { InboxConsumers } from "./consumers.js";

describe("InboxConsumers", () => {
  it("lets a newer push stream replace an older one and ignores the older one's late release", () => {
    const consumers = new InboxConsumers();
    let replaced = false;
    const first = consumers.claim({ kind: "push", key: "a", onReplaced: () => (replaced = true) });
    const second = consumers.claim({ kind: "push", key: "b" });
    expect(first.ok && second.ok).toBe(true);
    expect(replaced).toBe(true);
    expect(first.ok && consumers.release(first.lease)).toBe(false);
    expect(consumers.current()?.key).toBe("b");
  });

  it("refuses a push stream while a webhook owns the inbox, and a webhook while a push stream does", () => {
    const consumers = new InboxConsumers();
    const hook = consumers.claim({ kind: "webhook", key: "sub_1" });
    expect(consumers.claim({ kind: "push", key: "p" })).toEqual({ ok: false, owner: "webhook" });
    expect(consumers.claim({ kind: "webhook", key: "sub_2" })).toEqual({ ok: false, owner: "webhook" });
    expect(consumers.claim({ kind: "webhook", key: "sub_1" })).toEqual(hook);
    if (hook.ok) consumers.release(hook.lease);
    expect(consumers.claim({ kind: "push", key: "p" }).ok).toBe(true);
    expect(consumers.claim({ kind: "webhook", key: "sub_1" })).toEqual({ ok: false, owner: "push" });
  });

  it("lets a webhook's claim lapse when its lease expires, telling its owner", () => {
    let now = 1_000;
    let expiresAt = 2_000;
    let lapsed = false;
    const consumers = new InboxConsumers(() => now);
    consumers.claim({ kind: "webhook", key: "sub_1", expiresAt: () => expiresAt, onLapsed: () => (lapsed = true) });
    expect(consumers.claim({ kind: "push", key: "p" }).ok).toBe(false);
    expiresAt = 3_000; // a refresh extends the lease
    now = 2_500;
    expect(consumers.current()?.key).toBe("sub_1");
    now = 3_000;
    expect(consumers.claim({ kind: "push", key: "p" }).ok).toBe(true);
    expect(lapsed).toBe(true);
  });
});
