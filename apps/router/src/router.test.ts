import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  encodeRecord,
  generateSigningKey,
  readRecord,
  recordHashOf,
  verifyCertificate,
  type RouterFrame,
} from "@social-harness/protocol";
import pg from "pg";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRouter, type RunningRouter } from "./router.js";
import { RawLink } from "./testing/raw-link.js";

const POSTGRES = "postgres://postgres@127.0.0.1:5432/test";
const log = pino({ level: "silent" });

type Certified = Extract<RouterFrame, { t: "certified" }>;

describe.each(["sqlite", "postgres"] as const)("router on %s", (dialect) => {
  let router: RunningRouter;
  let dir: string;
  const schema = `router_test_${process.pid}_${Date.now()}`;
  const links: RawLink[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-router-"));
    router = await startRouter({
      dataDir: dir,
      host: "127.0.0.1",
      port: 0,
      log,
      cosignTimeoutMs: 1_500,
      database: dialect === "postgres" ? `${POSTGRES}?schema=${schema}` : undefined,
    });
  });

  afterAll(async () => {
    for (const link of links) link.close();
    // The router is undefined when it failed to start; the schema is dropped either way.
    await (router as RunningRouter | undefined)?.close();
    rmSync(dir, { recursive: true, force: true });
    if (dialect === "postgres") {
      const client = new pg.Client({ connectionString: POSTGRES });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  });

  const link = async (name: string) => {
    const l = await RawLink.authenticated(router.url, name);
    links.push(l);
    return l;
  };

  it("registers a name to its first key and refuses another key", async () => {
    await link("reg-a");
    const impostor = await RawLink.open(router.url, "reg-a", generateSigningKey());
    links.push(impostor);
    expect(await impostor.authenticate()).toMatchObject({ t: "link-error", reason: "name-taken" });
  });

  it("refuses a link speaking another protocol version", async () => {
    const l = await RawLink.open(router.url, "ver-a");
    links.push(l);
    expect(await l.authenticate(2)).toMatchObject({ t: "link-error", reason: "version-mismatch" });
  });

  it("refuses a challenge signed by another key", async () => {
    const l = await RawLink.open(router.url, "sig-a");
    links.push(l);
    expect(await l.authenticate(undefined, generateSigningKey())).toMatchObject({
      t: "link-error",
      reason: "bad-signature",
    });
  });

  it("refuses a small-order public key", async () => {
    const weak = { ...generateSigningKey(), publicKey: new Uint8Array(32) };
    weak.publicKey[0] = 1;
    const l = await RawLink.open(router.url, "weak-a", weak);
    links.push(l);
    expect(await l.authenticate()).toMatchObject({ t: "link-error", reason: "invalid-key" });
  });

  it("resolves registered names and reports unknown and invalid ones", async () => {
    const a = await link("res-a");
    await link("res-b");
    const resolved = await a.resolve(["res-b", "res-zz", "Not A Name"]);
    expect(resolved.agents[0]).toMatchObject({ name: "res-b" });
    expect(resolved.agents[1]).toEqual({ name: "res-zz", error: "unknown-agent" });
    expect(resolved.agents[2]).toEqual({ name: "Not A Name", error: "invalid-name" });
  });

  it("certifies a direct post, pushes it to the recipient and checks the chain", async () => {
    const a = await link("dir-a");
    const b = await link("dir-b");
    b.send({ t: "sync", cursors: {} });
    await b.next((f) => f.t === "synced");
    const certified = (await a.propose(a.draft("direct:dir-a,dir-b", null, "one"))) as Certified;
    expect(certified).toMatchObject({ t: "certified", conv: "direct:dir-a,dir-b", seq: 1 });
    expect(
      verifyCertificate(
        router.publicKey,
        { conv: certified.conv, seq: 1, record: certified.record },
        certified.certificate,
      ),
    ).toBe(true);
    const pushed = await b.next((f) => f.t === "record");
    expect(pushed).toMatchObject({ conv: "direct:dir-a,dir-b", seq: 1 });
    expect(pushed.t === "record" && recordHashOf(pushed.record)).toBe(certified.record);
    b.send({ t: "ack", conv: "direct:dir-a,dir-b", seq: 1 });

    // A stale prev is answered with the current head.
    const stale = await b.propose(b.draft("direct:dir-a,dir-b", null, "two"));
    expect(stale).toEqual({
      t: "head-moved",
      id: expect.any(Number),
      conv: "direct:dir-a,dir-b",
      head: certified.record,
    });
    const second = (await b.propose(b.draft("direct:dir-a,dir-b", certified.record, "two"))) as Certified;
    expect(second.seq).toBe(2);
  });

  it("pushes an author its own post only when its link asks for echoes (echoOwn)", async () => {
    const quiet = await RawLink.authenticated(router.url, "echo-a", undefined, undefined, false);
    links.push(quiet);
    const echoed = await link("echo-b");
    for (const l of [quiet, echoed]) {
      l.send({ t: "sync", cursors: {} });
      await l.next((f) => f.t === "synced");
    }
    const conv = "direct:echo-a,echo-b";
    const first = (await quiet.propose(quiet.draft(conv, null, "one"))) as Certified;
    const second = (await quiet.propose(quiet.draft(conv, first.record, "two"))) as Certified;
    expect([first.seq, second.seq]).toEqual([1, 2]);
    for (const seq of [1, 2]) {
      expect(await echoed.next((f) => f.t === "record" && f.seq === seq)).toMatchObject({ conv, seq });
      echoed.send({ t: "ack", conv, seq });
    }
    const third = (await echoed.propose(echoed.draft(conv, second.record, "three"))) as Certified;
    expect(third.seq).toBe(3);
    // The author that asked for no echoes is pushed the other member's post, and nothing before it.
    expect(await quiet.next((f) => f.t === "record")).toMatchObject({ conv, seq: 3 });
    // A link that did not ask is pushed its own post as before.
    expect(await echoed.next((f) => f.t === "record")).toMatchObject({ conv, seq: 3 });
  });

  it("returns the existing certificate for a PostId already certified", async () => {
    const a = await link("idem-a");
    await link("idem-b");
    const draft = a.draft("direct:idem-a,idem-b", null, "once");
    const first = (await a.propose(draft)) as Certified;
    const again = (await a.propose(draft)) as Certified;
    expect(again).toMatchObject({ t: "certified", seq: first.seq, record: first.record });
    expect(again.stored).toBeUndefined();
    // Re-proposed with another prev (after a lost answer), it still names the first record.
    const moved = (await a.propose({ ...draft, prev: first.record })) as Certified;
    expect(moved).toMatchObject({ t: "certified", seq: first.seq, record: first.record });
    expect(moved.stored && recordHashOf(moved.stored.record)).toBe(first.record);
  });

  it("answers proposals that share a group commit as if each had its own", async () => {
    const a = await link("batch-a");
    const b = await link("batch-b");
    const c = await link("batch-c");
    const first = a.draft("direct:batch-a,batch-b", null, "first");
    // Sent together, so they reach the router in one read and share one transaction.
    const answers = await Promise.all([
      a.propose(first),
      a.propose(first),
      a.propose(a.draft("direct:batch-a,batch-b", null, "same head")),
      c.propose(c.draft("direct:batch-b,batch-c", null, "other conversation")),
      b.propose(b.draft("direct:batch-b,batch-c", null, "loses the race")),
    ]);
    const [one, again, sameHead, other, lost] = answers as Certified[];
    expect(one).toMatchObject({ t: "certified", seq: 1 });
    expect(again).toMatchObject({ t: "certified", seq: 1, record: one!.record });
    expect(sameHead).toMatchObject({ t: "head-moved", head: one!.record });
    expect(other).toMatchObject({ t: "certified", conv: "direct:batch-b,batch-c", seq: 1 });
    expect(lost).toMatchObject({ t: "head-moved", head: other!.record });
  });

  it("certifies a chain of proposals sent together, each naming the one before as prev", async () => {
    const a = await link("chain-a");
    await link("chain-b");
    const conv = "direct:chain-a,chain-b";
    // A daemon may pipeline: the hash of a proposal is known before its certificate arrives.
    const drafts = [a.draft(conv, null, "one")];
    for (const text of ["two", "three", "four"]) {
      drafts.push(a.draft(conv, recordHashOf(encodeRecord(drafts.at(-1)!)), text));
    }
    const answers = (await Promise.all(drafts.map((d) => a.propose(d)))) as Certified[];
    expect(answers.map((c) => [c.t, c.seq])).toEqual([
      ["certified", 1],
      ["certified", 2],
      ["certified", 3],
      ["certified", 4],
    ]);
    expect(answers.map((c) => c.record)).toEqual(drafts.map((d) => recordHashOf(encodeRecord(d))));
  });

  it("refuses records that are forged, misattributed or to unknown agents", async () => {
    const a = await link("bad-a");
    await link("bad-b");
    expect(await a.propose(a.draft("direct:bad-a,nobody-here", null, "x"))).toMatchObject({
      t: "refused",
      reason: "unknown-agent",
    });
    expect(await a.propose({ ...a.draft("direct:bad-a,bad-b", null, "x"), author: "bad-b" })).toMatchObject({
      t: "refused",
      reason: "bad-signature",
    });
    a.send({ t: "propose", id: 999, record: new Uint8Array([0xa1, 0x01, 0x02]), signature: new Uint8Array(64) });
    expect(await a.next((f) => "id" in f && f.id === 999)).toMatchObject({ t: "refused", reason: "malformed" });
  });

  it("opens a group only with every member's co-signature", async () => {
    const a = await link("grp-a");
    const b = await link("grp-b");
    const c = await link("grp-c");
    for (const member of [b, c]) {
      void member
        .next((f) => f.t === "cosign-request")
        .then((request) => {
          if (request.t !== "cosign-request") return;
          member.send({
            t: "cosign",
            request: request.request,
            signature: member.key.sign(Buffer.concat([Buffer.from("social-harness/record/v1\0"), request.record])),
          });
        });
    }
    const conv = "group:grp-a,grp-b,grp-c";
    const genesis = {
      ...a.draft(conv, null, ""),
      kind: "genesis" as const,
      content: [],
      members: ["grp-a", "grp-b", "grp-c"],
    };
    const opened = (await a.propose(genesis, "open-group")) as Certified;
    expect(opened).toMatchObject({ t: "certified", seq: 1 });
    b.send({ t: "sync", cursors: {} });
    const pushed = await b.next((f) => f.t === "record");
    expect(pushed.t === "record" && pushed.signatures.map((s) => s.signer).sort()).toEqual(["grp-a", "grp-b", "grp-c"]);
    expect(pushed.t === "record" && readRecord(pushed.record).ok).toBe(true);
    const post = (await c.propose(c.draft(conv, opened.record, "hi group"))) as Certified;
    expect(post.seq).toBe(2);
  });

  it("refuses to open a group while a member is offline, naming it", async () => {
    const a = await link("cold-a");
    await link("cold-b");
    const offline = await link("cold-c");
    offline.close();
    await new Promise((r) => setTimeout(r, 100));
    const conv = "group:cold-a,cold-b,cold-c";
    const genesis = {
      ...a.draft(conv, null, ""),
      kind: "genesis" as const,
      content: [],
      members: ["cold-a", "cold-b", "cold-c"],
    };
    const refused = await a.propose(genesis, "open-group");
    expect(refused).toMatchObject({ t: "refused", reason: "certification-unavailable" });
    expect(refused.t === "refused" && refused.members?.map((m) => m.name)).toContain("cold-c");
  });

  it("catches a daemon up from its own cursor", async () => {
    const a = await link("cu-a");
    const b1 = await link("cu-b");
    let prev: string | null = null;
    for (const text of ["1", "2", "3"]) {
      const c = (await a.propose(a.draft("direct:cu-a,cu-b", prev, text))) as Certified;
      prev = c.record;
    }
    b1.close();
    const b2 = await RawLink.authenticated(router.url, "cu-b", b1.key);
    links.push(b2);
    b2.send({ t: "sync", cursors: { "direct:cu-a,cu-b": 1 } });
    const first = await b2.next((f) => f.t === "record");
    const second = await b2.next((f) => f.t === "record");
    await b2.next((f) => f.t === "synced");
    expect([first, second].map((f) => f.t === "record" && f.seq)).toEqual([2, 3]);
  });

  it("restarts a push from the cursor a daemon rewinds to, even while the push waits on the window", async () => {
    const a = await link("rw-a");
    const b1 = await link("rw-b");
    const conv = "direct:rw-a,rw-b";
    let prev: string | null = null;
    for (let i = 0; i < 520; i++) {
      const c = (await a.propose(a.draft(conv, prev, `m${i}`))) as Certified;
      prev = c.record;
    }
    b1.close();
    const b = await RawLink.authenticated(router.url, "rw-b", b1.key);
    links.push(b);
    // 512 records fill the window; the push then waits for acknowledgments that do not come.
    b.send({ t: "sync", cursors: {} });
    for (let seq = 1; seq <= 512; seq++) await b.next((f) => f.t === "record" && f.seq === seq);
    b.send({ t: "sync", cursors: { [conv]: 0 } });
    // Give the router time to apply the rewind while the push still waits on the window, so the
    // push resumes with its cursor moved under it (the order this test is about).
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let seq = 1; seq <= 512; seq++) b.send({ t: "ack", conv, seq });
    // Records already on their way may come first; then the push starts over at the rewound cursor
    // and runs on in sequence (without the rewind it would stop after 520, never sending 1 again).
    const seen: number[] = [];
    while (!(seen.includes(1) && seen.at(-1) === 520)) {
      const frame = await b.next((f) => f.t === "record");
      if (frame.t !== "record") continue;
      seen.push(frame.seq);
      b.send({ t: "ack", conv, seq: frame.seq });
    }
    expect(seen.slice(seen.indexOf(1))).toEqual(Array.from({ length: 520 }, (_, i) => i + 1));
  });
});
