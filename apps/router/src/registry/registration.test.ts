import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { encodeBase64url, generateSigningKey, type RouterFrame } from "@social-harness/protocol";
import pg from "pg";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouter, type RunningRouter } from "../router.js";
import { RawLink } from "../testing/raw-link.js";
import { createRegistrationToken, listRegistrationTokens, revokeRegistrationToken } from "../tokens.js";
import { withdrawRegisteredName } from "../names.js";
import type { Admission } from "./admission.js";

const POSTGRES = "postgres://postgres@127.0.0.1:5432/test";
const HOUR = 3_600_000;

type LinkError = Extract<RouterFrame, { t: "link-error" }>;

/** A log that keeps its JSON lines, to check what the router said about a refusal. */
function capturedLog() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  return { log: pino({ level: "info" }, stream), lines };
}

describe.each(["sqlite", "postgres"] as const)("router admission on %s", (dialect) => {
  const schemaBase = `admission_test_${process.pid}_${Date.now()}`;
  const dirs: string[] = [];
  const schemas: string[] = [];
  const routers: RunningRouter[] = [];
  const links: RawLink[] = [];

  /** A data directory and database (a fresh PostgreSQL schema) for one router, or two sharing it. */
  const storage = (label: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), `sh-admission-${label}-`));
    dirs.push(dir);
    if (dialect === "sqlite") return { dataDir: dir, database: undefined };
    const schema = `${schemaBase}_${label}`;
    schemas.push(schema);
    return { dataDir: dir, database: `${POSTGRES}?schema=${schema}` };
  };

  const start = async (where: { dataDir: string; database?: string }, admission: Admission, log = capturedLog()) => {
    const router = await startRouter({ ...where, host: "127.0.0.1", port: 0, log: log.log, admission });
    routers.push(router);
    return router;
  };

  const open = async (router: RunningRouter, name: string, key = generateSigningKey()) => {
    const link = await RawLink.open(router.url, name, key);
    links.push(link);
    return link;
  };

  afterAll(async () => {
    for (const link of links) link.close();
    for (const router of routers) await router.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    if (schemas.length > 0) {
      const client = new pg.Client({ connectionString: POSTGRES });
      await client.connect();
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  });

  describe("by registration token", () => {
    let where: { dataDir: string; database?: string };
    let router: RunningRouter;
    let second: RunningRouter;
    const token = (options: { name?: string; ttlMs?: number; now?: number } = {}) =>
      createRegistrationToken({ ...where, ttlMs: HOUR, ...options }).then((issued) => issued.token);

    beforeAll(async () => {
      where = storage("token");
      router = await start(where, { mode: "token" });
      // On PostgreSQL a second router shares the database; on SQLite a second link to the same one.
      second =
        dialect === "postgres"
          ? await start({ ...where, dataDir: storage("token2").dataDir }, { mode: "token" })
          : router;
    });

    it("refuses a new name without a token, or with one it never issued, as not-admitted", async () => {
      expect(await (await open(router, "tok-none")).authenticate()).toMatchObject({
        t: "link-error",
        reason: "not-admitted",
        admission: "token-required",
      });
      const forged = `sh_reg_${encodeBase64url(generateSigningKey().publicKey).slice(0, 43)}`;
      for (const [presented, admission] of [
        [forged, "token-unknown"],
        ["not a token", "token-unknown"],
      ] as const) {
        const link = await open(router, "tok-none");
        expect(await link.authenticate(undefined, undefined, presented)).toMatchObject({
          reason: "not-admitted",
          admission,
        });
      }
      const asker = await RawLink.authenticated(router.url, "tok-asker", undefined, await token());
      links.push(asker);
      expect((await asker.resolve(["tok-none"])).agents).toEqual([{ name: "tok-none", error: "unknown-agent" }]);
    });

    it("registers a name with its token once; the same key links again without one", async () => {
      const key = generateSigningKey();
      const issued = await token({ name: "tok-alice" });
      const first = await open(router, "tok-alice", key);
      expect(await first.authenticate(undefined, undefined, issued)).toEqual({ t: "authenticated", name: "tok-alice" });
      first.close();
      for (const presented of [undefined, issued]) {
        const again = await open(second, "tok-alice", key);
        expect(await again.authenticate(undefined, undefined, presented)).toEqual({
          t: "authenticated",
          name: "tok-alice",
        });
        again.close();
      }
      // The token is spent: it registers nothing else, at either router.
      const other = await open(second, "tok-alice", generateSigningKey());
      expect(await other.authenticate(undefined, undefined, issued)).toMatchObject({ reason: "name-taken" });
      const unnamed = await token();
      const thief = await open(second, "tok-thief");
      expect(await thief.authenticate(undefined, undefined, issued)).toMatchObject({ admission: "token-used" });
      expect(await (await open(router, "tok-thief")).authenticate(undefined, undefined, unnamed)).toMatchObject({
        t: "authenticated",
      });
    });

    it("refuses an expired token and a token for another name, leaving both unused", async () => {
      const expired = await token({ name: "tok-late", now: Date.now() - 2 * HOUR });
      expect(await (await open(router, "tok-late")).authenticate(undefined, undefined, expired)).toMatchObject({
        reason: "not-admitted",
        admission: "token-expired",
        detail: expect.stringContaining("expired at"),
      });
      const forBob = await token({ name: "tok-bob" });
      expect(await (await open(router, "tok-mallory")).authenticate(undefined, undefined, forBob)).toMatchObject({
        reason: "not-admitted",
        admission: "token-for-another-name",
        detail: "the token registers tok-bob, not tok-mallory",
      });
      expect(await (await open(router, "tok-bob")).authenticate(undefined, undefined, forBob)).toMatchObject({
        t: "authenticated",
      });
    });

    it("leaves a token unused when the name it would register belongs to another key", async () => {
      await RawLink.authenticated(router.url, "tok-held", undefined, await token()).then((l) => links.push(l));
      const spare = await token();
      expect(await (await open(router, "tok-held")).authenticate(undefined, undefined, spare)).toMatchObject({
        reason: "name-taken",
      });
      expect(await (await open(router, "tok-fresh")).authenticate(undefined, undefined, spare)).toMatchObject({
        t: "authenticated",
      });
    });

    it("lets exactly one of twenty links racing with one token register", async () => {
      const contested = await token();
      const racers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => open(i % 2 === 0 ? router : second, `tok-race-${i}`)),
      );
      const answers = await Promise.all(racers.map((link) => link.authenticate(undefined, undefined, contested)));
      expect(answers.filter((a) => a.t === "authenticated")).toHaveLength(1);
      expect(answers.filter((a) => a.t !== "authenticated")).toEqual(
        Array.from({ length: 19 }, () => expect.objectContaining({ reason: "not-admitted", admission: "token-used" })),
      );
    });

    it("lists every token with what it can still do; a revoked token registers nothing, at either router", async () => {
      const issue = (options: { name?: string; now?: number } = {}) =>
        createRegistrationToken({ ...where, ttlMs: HOUR, ...options });
      const revoked = await issue({ name: "tok-revoked" });
      const spent = await issue();
      const late = await issue({ now: Date.now() - 2 * HOUR });
      const usable = await issue({ name: "tok-usable" });
      await RawLink.authenticated(router.url, "tok-spender", undefined, spent.token).then((l) => links.push(l));

      expect(await revokeRegistrationToken(where, revoked.id)).toMatchObject({
        kind: "revoked",
        token: { id: revoked.id, name: "tok-revoked", state: { kind: "usable" } },
      });
      for (const at of [router, second]) {
        expect(await (await open(at, "tok-revoked")).authenticate(undefined, undefined, revoked.token)).toMatchObject({
          reason: "not-admitted",
          admission: "token-expired",
          detail: expect.stringMatching(/^the router's operator revoked the token at \d{4}-/),
        });
      }
      const listed = new Map((await listRegistrationTokens(where)).map((t) => [t.id, t]));
      expect(listed.get(revoked.id)).toMatchObject({ name: "tok-revoked", state: { kind: "revoked" } });
      expect(listed.get(spent.id)).toMatchObject({ name: undefined, state: { kind: "used", by: "tok-spender" } });
      expect(listed.get(late.id)).toMatchObject({ state: { kind: "expired", at: late.expiresAt } });
      expect(listed.get(usable.id)).toMatchObject({
        name: "tok-usable",
        expiresAt: usable.expiresAt,
        state: { kind: "usable" },
      });
      // The list names tokens by id only: nothing in it registers a name.
      expect(JSON.stringify([...listed.values()])).not.toContain("sh_reg_");

      expect(await revokeRegistrationToken(where, revoked.id)).toMatchObject({ kind: "unchanged" });
      expect(await revokeRegistrationToken(where, spent.id)).toMatchObject({
        kind: "used",
        token: { state: { kind: "used", by: "tok-spender" } },
      });
      // By the token itself, as an operator holding the file would.
      expect(await revokeRegistrationToken(where, usable.token)).toMatchObject({ kind: "revoked" });
      expect(await (await open(second, "tok-usable")).authenticate(undefined, undefined, usable.token)).toMatchObject({
        admission: "token-expired",
      });
      expect(await revokeRegistrationToken(where, "AAAAAAAAAAAA")).toEqual({ kind: "unknown" });
      await expect(revokeRegistrationToken(where, "tok")).rejects.toThrow(/neither a token id/);
      if (dialect === "sqlite") {
        const missing = { dataDir: path.join(where.dataDir, "typo") };
        await expect(listRegistrationTokens(missing)).rejects.toThrow(/no router database at .*typo/);
        await expect(revokeRegistrationToken(missing, revoked.id)).rejects.toThrow(/no router database/);
        expect(existsSync(missing.dataDir)).toBe(false);
      }
    });

    it("lets a token racing its revocation register one name and answer used, or none and answer revoked", async () => {
      for (let round = 0; round < 4; round++) {
        const contested = await createRegistrationToken({ ...where, ttlMs: HOUR });
        const racers = await Promise.all(
          Array.from({ length: 6 }, (_, i) => open(i % 2 === 0 ? router : second, `tok-rr-${round}-${i}`)),
        );
        const [revocation, ...answers] = await Promise.all([
          revokeRegistrationToken(where, contested.id),
          ...racers.map((link) => link.authenticate(undefined, undefined, contested.token)),
        ]);
        const registered = answers.filter((a) => a.t === "authenticated");
        if (revocation.kind === "used") expect(registered).toHaveLength(1);
        else {
          expect(revocation.kind).toBe("revoked");
          expect(registered).toEqual([]);
        }
        for (const answer of answers.filter((a) => a.t !== "authenticated"))
          expect(answer).toMatchObject({
            reason: "not-admitted",
            admission: expect.stringMatching(/^token-(used|expired)$/),
          });
      }
    });
    it("withdraws a name at every router: its link closes, and no key registers it again", async () => {
      const oldKey = generateSigningKey();
      const held = await RawLink.authenticated(second.url, "tok-wd", oldKey, await token({ name: "tok-wd" }));
      links.push(held);
      const peer = await RawLink.authenticated(router.url, "tok-wd-peer", undefined, await token());
      links.push(peer);
      const conv = "direct:tok-wd,tok-wd-peer";
      expect(await peer.propose(peer.draft(conv, null, "before"))).toMatchObject({ t: "certified" });
      expect((await peer.resolve(["tok-wd"])).agents).toEqual([{ name: "tok-wd", publicKey: oldKey.publicKey }]);

      const fresh = await createRegistrationToken({ ...where, name: "tok-wd", ttlMs: HOUR });
      const withdrawn = await withdrawRegisteredName(where, "tok-wd");
      expect(withdrawn).toMatchObject({ name: "tok-wd", publicKey: encodeBase64url(oldKey.publicKey) });
      await expect(createRegistrationToken({ ...where, name: "tok-wd", ttlMs: HOUR })).rejects.toThrow(
        /^tok-wd was withdrawn at .+; no key registers it again$/,
      );
      // Every router reads it within its poll (a second): the link closes, the name resolves no more.
      expect(await held.closed).toEqual({ code: 4003, reason: "the router's operator withdrew this name" });
      await expect
        .poll(async () => (await peer.resolve(["tok-wd"])).agents, { timeout: 5_000 })
        .toEqual([{ name: "tok-wd", error: "unknown-agent" }]);
      expect(await peer.propose(peer.draft(conv, null, "after"))).toMatchObject({
        t: "refused",
        reason: "unknown-agent",
      });
      expect(await withdrawRegisteredName(where, "tok-wd")).toBeUndefined();
      expect(await withdrawRegisteredName(where, "tok-never")).toBeUndefined();

      // Neither the old key nor a new one registers it, with or without a token issued before the
      // withdrawal, at either router; the token stays unused.
      for (const [at, key, presented] of [
        [router, oldKey, undefined],
        [second, oldKey, fresh.token],
        [second, generateSigningKey(), fresh.token],
      ] as const) {
        const again = await open(at, "tok-wd", key);
        expect(await again.authenticate(undefined, undefined, presented)).toMatchObject({
          t: "link-error",
          reason: "not-admitted",
          admission: "key-not-allowed",
          detail: expect.stringMatching(/^the router's operator withdrew tok-wd at .+; no key registers it again$/),
        });
      }
      const tokens = await listRegistrationTokens(where);
      expect(tokens.find((t) => t.id === fresh.id)?.state).toEqual({ kind: "usable" });
    });
  });

  describe("by allowed keys", () => {
    let router: RunningRouter;
    let file: string;
    const log = capturedLog();
    const alice = generateSigningKey();
    const bob = generateSigningKey();

    beforeAll(async () => {
      const where = storage("keys");
      file = path.join(where.dataDir, "allowed-keys");
      writeFileSync(file, `# keys\nkey-alice ${encodeBase64url(alice.publicKey)}\n`);
      router = await start(where, { mode: "keys", allowedKeysFile: file }, log);
    });

    it("registers a listed name with its listed key and refuses any other, naming the line to add", async () => {
      expect(await (await open(router, "key-alice", alice)).authenticate()).toMatchObject({ t: "authenticated" });
      const impostor = generateSigningKey();
      expect(await (await open(router, "key-alice", impostor)).authenticate()).toMatchObject({ reason: "name-taken" });
      const unlisted = (await (await open(router, "key-bob", bob)).authenticate()) as LinkError;
      expect(unlisted).toMatchObject({ reason: "not-admitted", admission: "key-not-allowed" });
      expect(unlisted.detail).toContain(`key-bob ${encodeBase64url(bob.publicKey)}`);
    });

    it("reads the file again for each new name, so an added line admits at once", async () => {
      appendFileSync(file, `key-bob ${encodeBase64url(bob.publicKey)}\n`);
      expect(await (await open(router, "key-bob", bob)).authenticate()).toMatchObject({ t: "authenticated" });
    });

    it("refuses every new name while the file is broken, logs why, and keeps registered names linking", async () => {
      const carol = generateSigningKey();
      writeFileSync(file, `key-carol ${encodeBase64url(carol.publicKey)}\nkey-carol twice\n`);
      expect(await (await open(router, "key-carol", carol)).authenticate()).toMatchObject({
        reason: "not-admitted",
        admission: "key-not-allowed",
        detail: "the router cannot read its allowed keys",
      });
      expect(log.lines.some((line) => line.includes("the allowed-keys file cannot be read"))).toBe(true);
      expect(await (await open(router, "key-alice", alice)).authenticate()).toMatchObject({ t: "authenticated" });
    });

    it("refuses to start with an allowed-keys file that is missing or broken", async () => {
      const where = storage("keys_broken");
      const broken = path.join(where.dataDir, "allowed");
      writeFileSync(broken, "nobody\n");
      const log = capturedLog().log;
      await expect(
        startRouter({
          ...where,
          host: "127.0.0.1",
          port: 0,
          log,
          admission: { mode: "keys", allowedKeysFile: broken },
        }),
      ).rejects.toThrow(/line 1: expected/);
      await expect(
        startRouter({
          ...where,
          host: "127.0.0.1",
          port: 0,
          log,
          admission: { mode: "keys", allowedKeysFile: `${broken}.missing` },
        }),
      ).rejects.toThrow(/ENOENT/);
    });
  });

  it("refuses a withdrawn name to every key even under open admission; the key may take another name", async () => {
    const where = storage("openwd");
    const router = await start(where, { mode: "open" });
    const oldKey = generateSigningKey();
    const held = await RawLink.authenticated(router.url, "open-wd", oldKey);
    links.push(held);
    await withdrawRegisteredName(where, "open-wd");
    expect((await held.closed).code).toBe(4003);
    for (const key of [oldKey, generateSigningKey()])
      expect(await (await open(router, "open-wd", key)).authenticate()).toMatchObject({
        reason: "not-admitted",
        admission: "key-not-allowed",
      });
    expect(await (await open(router, "open-wd2", oldKey)).authenticate()).toMatchObject({ t: "authenticated" });
  });

  it("refuses to start on a non-loopback address without an admission choice, before touching its data", async () => {
    const dir = path.join(tmpdir(), `sh-admission-none-${process.pid}-${dialect}`);
    await expect(
      startRouter({ dataDir: dir, host: "0.0.0.0", port: 0, log: capturedLog().log, database: undefined }),
    ).rejects.toThrow(/0\.0\.0\.0, which is not loopback/);
    expect(existsSync(dir)).toBe(false);
  });
});
