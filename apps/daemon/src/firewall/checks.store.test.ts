/**
 * The firewall's audit read back by record hash (an all_gather close reads every answer's verdict
 * at once): the newest inbound check of each record, none for a record never checked inbound.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDaemonStore, type DaemonStore } from "../db/database.js";
import { inboundChecksOf, insertCheck, type CheckRecord } from "./checks.store.js";
import { localVerdictsOf } from "./local-verdict.js";

describe("inbound checks by record hash", () => {
  let dir: string;
  let store: DaemonStore;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-checks-"));
    store = await openDaemonStore(path.join(dir, "daemon.db"));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let next = 0;
  const check = (recordHash: string, fields: Partial<Omit<CheckRecord, "id">> = {}) =>
    insertCheck(store.db, {
      checkId: `chk_${next++}`,
      direction: "inbound",
      conv: "g:test",
      recordHash,
      postId: null,
      subjects: [],
      revision: 1,
      mode: "enforce",
      decision: "allow",
      outcome: "admitted",
      middlewares: [],
      guidance: null,
      stale: 0,
      latencyUs: 1,
      createdAt: 1,
      ...fields,
    });

  it("reads the newest check of each record, past one query's 500 hashes, and no outbound check", async () => {
    for (let i = 0; i < 520; i++) await check(`r${i}`);
    await check("r3", { outcome: "held", decision: "hold" });
    await check("r519", { direction: "outbound", outcome: "refused" });
    const found = await inboundChecksOf(store.db, [...Array.from({ length: 520 }, (_, i) => `r${i}`), "never"]);
    expect(found.size).toBe(520);
    expect(found.get("r3")?.outcome).toBe("held");
    expect(found.get("r519")?.outcome).toBe("admitted");
    expect(found.has("never")).toBe(false);
  });

  it("makes a held check a withheld verdict, keeps admitted guidance, and leaves a plain admission out", async () => {
    const guidance = { checkId: "chk_g", note: "be brief", matched: [] } as unknown as CheckRecord["guidance"];
    await check("held", { outcome: "held", decision: "hold", middlewares: [] });
    await check("guided", { guidance });
    await check("plain");
    const verdicts = await localVerdictsOf(store.db, ["held", "guided", "plain", "never"]);
    expect(verdicts.get("held")?.withheld).toMatchObject({ kind: "withheld", reason: "held" });
    expect(verdicts.get("guided")).toEqual({ guidance });
    expect([...verdicts.keys()].sort()).toEqual(["guided", "held"]);
  });
});
