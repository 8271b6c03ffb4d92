/** The token rows' updates: a use and a revocation each take only an unused, unrevoked token. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRouterStore, type RouterStore } from "../db/database.js";
import { dropTestSchemas, TEST_POSTGRES } from "../testing/postgres.js";
import {
  findRegistrationToken,
  findRegistrationTokensByPrefix,
  insertRegistrationToken,
  revokeRegistrationTokenRow,
  useRegistrationToken,
} from "./tokens.store.js";

describe.each(["sqlite", "postgres"] as const)("registration token rows on %s", (dialect) => {
  const schema = `tokens_store_${process.pid}_${Date.now()}`;
  const dir = mkdtempSync(path.join(tmpdir(), "sh-tokens-"));
  let store: RouterStore;
  const token = (digest: string) =>
    insertRegistrationToken(store.db, { digest, name: undefined, createdAt: 1, expiresAt: Date.now() + 60_000 });

  beforeAll(async () => {
    store = await openRouterStore({
      sqliteFile: path.join(dir, "router.db"),
      ...(dialect === "postgres" ? { database: `${TEST_POSTGRES}?schema=${schema}` } : {}),
    });
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    if (dialect === "postgres") await dropTestSchemas(schema);
  });

  it("never uses a revoked token, and never revokes a used one", async () => {
    await token("revoked-first");
    expect(await revokeRegistrationTokenRow(store.db, "revoked-first", 10)).toBe(true);
    expect(await useRegistrationToken(store.db, "revoked-first", "alice", 11)).toBe(false);
    expect(await revokeRegistrationTokenRow(store.db, "revoked-first", 12)).toBe(false);
    expect(await findRegistrationToken(store.db, "revoked-first")).toMatchObject({ revokedAt: 10, usedAt: undefined });

    await token("used-first");
    expect(await useRegistrationToken(store.db, "used-first", "bob", 20)).toBe(true);
    expect(await revokeRegistrationTokenRow(store.db, "used-first", 21)).toBe(false);
    expect(await findRegistrationToken(store.db, "used-first")).toMatchObject({
      usedAt: 20,
      usedBy: "bob",
      revokedAt: undefined,
    });
  });

  it("finds tokens by the start of their digest, with _ and - as plain characters", async () => {
    await token("a_b-cdefghijklmn");
    await token("axbxcdefghijklmn");
    expect((await findRegistrationTokensByPrefix(store.db, "a_b-")).map((t) => t.digest)).toEqual(["a_b-cdefghijklmn"]);
    expect(await findRegistrationTokensByPrefix(store.db, "a%")).toEqual([]);
  });
});
