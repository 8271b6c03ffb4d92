import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { heldTransaction, openDaemonStore, type DaemonStore } from "../db/database.js";
import { countAttempt, type AttemptRecord } from "../webhooks/webhooks.store.js";
import { countAttempts } from "./overview.store.js";

const MINUTE = 60_000;
// A whole two hours, so windows of one, fifteen and 120 minutes all start on it.
const T0 = Math.floor(Date.UTC(2026, 11, 5, 2) / (120 * MINUTE)) * 120 * MINUTE;

const attempt = (
  subscriptionId: string,
  at: number,
  outcome: AttemptRecord["outcome"],
  latencyMs: number,
  retry = false,
) => ({ subscriptionId, at, outcome, latencyMs, retry }) satisfies AttemptRecord;

describe("webhook attempts counted by the minute", () => {
  const dirs: string[] = [];
  const stores: DaemonStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function open(): Promise<DaemonStore> {
    const dir = mkdtempSync(path.join(tmpdir(), "sh-overview-"));
    dirs.push(dir);
    const store = await openDaemonStore(path.join(dir, "daemon.db"));
    stores.push(store);
    return store;
  }

  const attempts = [
    attempt("sub_a", T0 - 1, "delivered", 999), // before every window below
    attempt("sub_a", T0 + 10_000, "delivered", 100),
    attempt("sub_a", T0 + 50_000, "failed", 300, true),
    attempt("sub_a", T0 + MINUTE + 5_000, "delivered", 50, true),
    attempt("sub_b", T0 + 20 * MINUTE, "suspended", 40, true),
  ];

  it("gives each bucket of a window its deliveries, failures, retries and mean latency", async () => {
    const store = await open();
    await heldTransaction(store.db, "durable", (held) => attempts.forEach((a) => countAttempt(held, a)));
    const byMinute = await countAttempts(store.db, { from: T0, intervalMs: MINUTE });
    expect(byMinute).toEqual(
      expect.arrayContaining([
        { subscriptionId: "sub_a", bucket: 0, delivered: 1, failed: 1, retries: 1, meanMs: 200 },
        { subscriptionId: "sub_a", bucket: 1, delivered: 1, failed: 0, retries: 1, meanMs: 50 },
        { subscriptionId: "sub_b", bucket: 20, delivered: 0, failed: 1, retries: 1, meanMs: 40 },
      ]),
    );
    expect(byMinute).toHaveLength(3);
    const byQuarter = await countAttempts(store.db, { from: T0, intervalMs: 15 * MINUTE });
    expect(byQuarter).toEqual(
      expect.arrayContaining([
        { subscriptionId: "sub_a", bucket: 0, delivered: 2, failed: 1, retries: 2, meanMs: 150 },
        { subscriptionId: "sub_b", bucket: 1, delivered: 0, failed: 1, retries: 1, meanMs: 40 },
      ]),
    );
    expect(byQuarter).toHaveLength(2);
  });
});
