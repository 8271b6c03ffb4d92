/**
 * Link garbage and replays at a router process started through the command line (issue 13):
 * duplicate-key and non-canonical CBOR, frames out of turn, small-order and non-canonical keys,
 * 10 MB frames, 200 idle connections, replayed challenge answers and replayed proposals. Each is
 * refused with a typed link-error or refusal, nothing is certified that should not be, and the
 * router keeps serving. Forged and misattributed records are in router.test.ts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  actionMessage,
  decodeRouterFrame,
  encodeFrame,
  encodeRecord,
  generateSigningKey,
  LINK_PROTOCOL,
  linkAuthMessage,
  type RecordDraft,
  type RouterFrame,
} from "@social-harness/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { RawLink } from "./testing/raw-link.js";

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../apps/cli/bin/social-harness.js");

type Certified = Extract<RouterFrame, { t: "certified" }>;

/** CBOR written by hand, so a test can spell what our encoder never would. */
const cbor = {
  head(major: number, value: number, wide = false): Buffer {
    if (value < 24 && !wide) return Buffer.from([(major << 5) | value]);
    if (value < 256) return Buffer.from([(major << 5) | 24, value]);
    if (value <= 0xffffffff) {
      const out = Buffer.alloc(5);
      out[0] = (major << 5) | 26;
      out.writeUInt32BE(value, 1);
      return out;
    }
    const out = Buffer.alloc(9);
    out[0] = (major << 5) | 27;
    out.writeBigUInt64BE(BigInt(value), 1);
    return out;
  },
  text: (s: string) => Buffer.concat([cbor.head(3, Buffer.byteLength(s)), Buffer.from(s)]),
  bytes: (b: Uint8Array) => Buffer.concat([cbor.head(2, b.byteLength), Buffer.from(b)]),
  /** Any JSON-like value; `wide` spells small integers in two bytes, `reverse` writes keys backwards. */
  value(v: unknown, options: { wide?: boolean; reverse?: boolean } = {}): Buffer {
    if (v === null) return Buffer.from([0xf6]);
    if (typeof v === "boolean") return Buffer.from([v ? 0xf5 : 0xf4]);
    if (typeof v === "number") return cbor.head(0, v, options.wide === true && v < 24);
    if (typeof v === "string") return cbor.text(v);
    if (v instanceof Uint8Array) return cbor.bytes(v);
    if (Array.isArray(v)) return Buffer.concat([cbor.head(4, v.length), ...v.map((e) => cbor.value(e, options))]);
    const entries = Object.entries(v as Record<string, unknown>);
    if (options.reverse === true) entries.reverse();
    return Buffer.concat([
      cbor.head(5, entries.length),
      ...entries.flatMap(([k, e]) => [cbor.text(k), cbor.value(e, options)]),
    ]);
  },
};

/** The small-order points of edwards25519 and two non-canonical encodings (y >= p). */
const WEAK_KEYS = [
  "0100000000000000000000000000000000000000000000000000000000000000",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0000000000000000000000000000000000000000000000000000000000000080",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
  "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
];

interface RouterProc {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stderr: () => string;
  stop(): Promise<void>;
}

async function startRouterProcess(dataDir: string, listen = "127.0.0.1:0"): Promise<RouterProc> {
  const child = spawn(process.execPath, [CLI, "router", "--data", dataDir, "--listen", listen], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LOG_LEVEL: "info" },
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split("\n").find((l) => l.includes('"ready":true'));
      if (line !== undefined) resolve((JSON.parse(line) as { router: string }).router);
    });
    void exited.then(() => reject(new Error(`the router exited before it was ready:\n${stderr}`)));
  });
  return {
    child,
    url,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A raw socket that collects decoded frames and how it was closed. */
async function rawSocket(url: string) {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  const frames: RouterFrame[] = [];
  const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
  socket.on("message", (data: Buffer) => {
    const read = decodeRouterFrame(new Uint8Array(data));
    if (read.ok) frames.push(read.frame);
  });
  socket.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return { socket, frames, closed };
}

describe("a router process under link abuse", () => {
  let dir: string;
  let router: RouterProc;
  const links: RawLink[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sh-router-abuse-"));
    router = await startRouterProcess(dir);
  });
  afterAll(async () => {
    for (const link of links) link.close();
    await router?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const link = async (name: string) => {
    const l = await RawLink.authenticated(router.url, name);
    links.push(l);
    return l;
  };

  it("refuses frames with a duplicate key, a non-text key, indefinite lengths or wide integers, and closes", async () => {
    const garbage = {
      "a duplicate key": Buffer.concat([
        cbor.head(5, 2),
        cbor.text("t"),
        cbor.text("sync"),
        cbor.text("t"),
        cbor.text("ack"),
      ]),
      "a non-text key": Buffer.concat([cbor.head(5, 1), cbor.head(0, 1), cbor.text("sync")]),
      "an indefinite-length map": Buffer.from([0xbf, ...cbor.text("t"), ...cbor.text("sync"), 0xff]),
      "a non-shortest integer": cbor.value({ t: "ack", conv: "direct:aaa,bbb", seq: 1 }, { wide: true }),
      "a tag": Buffer.from([0xc1, 0x00]),
      "a truncated map": cbor.value({ t: "sync", cursors: {} }).subarray(0, 5),
      "trailing bytes": Buffer.concat([cbor.value({ t: "sync", cursors: {} }), Buffer.from([0x00])]),
    };
    for (const [what, bytes] of Object.entries(garbage)) {
      for (const authenticated of [false, true]) {
        const raw = authenticated ? (await link(`garbage-${Object.keys(garbage).indexOf(what)}`)).socket : undefined;
        const target = raw === undefined ? await rawSocket(router.url) : undefined;
        const socket = raw ?? target!.socket;
        const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
        const frames: RouterFrame[] = target?.frames ?? [];
        if (raw !== undefined) {
          socket.on("message", (data: Buffer) => {
            const read = decodeRouterFrame(new Uint8Array(data));
            if (read.ok) frames.push(read.frame);
          });
        }
        socket.send(bytes);
        expect([what, authenticated, await closed]).toEqual([what, authenticated, 4001]);
        expect(
          frames.find((f) => f.t === "link-error"),
          what,
        ).toMatchObject({ reason: "malformed" });
      }
    }
  });

  it("accepts a frame whose keys are out of order, since frames are not signed", async () => {
    const l = await RawLink.open(router.url, "order-a");
    links.push(l);
    const frame = {
      signature: l.key.sign(linkAuthMessage(l.challenge!.nonce, "order-a")),
      publicKey: l.key.publicKey,
      name: "order-a",
      protocol: LINK_PROTOCOL,
      t: "authenticate",
    };
    l.socket.send(cbor.value(frame));
    expect(await l.next((f) => f.t === "authenticated" || f.t === "link-error")).toEqual({
      t: "authenticated",
      name: "order-a",
    });
  });

  it("refuses a signed record that is not in canonical form, certifying nothing", async () => {
    const a = await link("canon-a");
    await link("canon-b");
    const draft: RecordDraft = a.draft("direct:canon-a,canon-b", null, "canonical or nothing");
    const canonical = Buffer.from(encodeRecord(draft));
    const fields = { ...draft, v: 1 } as unknown as Record<string, unknown>;
    const variants = {
      "keys out of order": cbor.value(fields, { reverse: true }),
      "a non-shortest integer": Buffer.concat([
        cbor.head(5, 8),
        ...Object.entries(fields).flatMap(([k, v]) => [
          cbor.text(k),
          k === "v" ? Buffer.from([0x18, 0x01]) : cbor.value(v),
        ]),
      ]),
      "a float for the time": Buffer.concat([
        canonical.subarray(0, canonical.indexOf(cbor.text("at")) + 3),
        Buffer.from([0xfb, ...new Uint8Array(new Float64Array([draft.at]).buffer).reverse()]),
        canonical.subarray(canonical.indexOf(cbor.text("at")) + 3 + 9),
      ]),
      "a duplicate key": Buffer.concat([cbor.head(5, 9), canonical.subarray(1), cbor.text("v"), cbor.value(1)]),
    };
    let id = 1000;
    for (const [what, bytes] of Object.entries(variants)) {
      expect(bytes.equals(canonical), what).toBe(false);
      a.send({ t: "propose", id: ++id, record: bytes, signature: a.key.sign(actionMessage(bytes)) });
      const answer = await a.next((f) => "id" in f && f.id === id);
      expect([what, answer]).toMatchObject([what, { t: "refused", reason: "malformed" }]);
    }
    // Nothing was appended: the canonical record still opens the conversation at seq 1.
    expect(await a.propose(draft)).toMatchObject({ t: "certified", seq: 1 });
  });

  it("refuses frames out of turn: before authenticating, a second authenticate, and text frames", async () => {
    const early = await rawSocket(router.url);
    early.socket.send(encodeFrame({ t: "sync", cursors: {} }));
    expect(await early.closed).toBe(4001);
    expect(early.frames.at(-1)).toMatchObject({ t: "link-error", reason: "not-authenticated" });

    const text = await rawSocket(router.url);
    text.socket.send(JSON.stringify({ t: "authenticate" }));
    expect(await text.closed).toBe(4001);
    expect(text.frames.at(-1)).toMatchObject({ t: "link-error", reason: "malformed" });

    const twice = await link("turn-a");
    twice.send({
      t: "authenticate",
      protocol: LINK_PROTOCOL,
      name: "turn-a",
      publicKey: twice.key.publicKey,
      signature: twice.key.sign(linkAuthMessage(twice.challenge!.nonce, "turn-a")),
    });
    expect(await twice.next((f) => f.t === "link-error")).toMatchObject({
      reason: "malformed",
      detail: "already authenticated",
    });
  });

  it.each(WEAK_KEYS)("refuses the weak public key %s", async (hex) => {
    const key = { ...generateSigningKey(), publicKey: new Uint8Array(Buffer.from(hex, "hex")) };
    const l = await RawLink.open(router.url, "weak-key", key);
    links.push(l);
    expect(await l.authenticate()).toMatchObject({ t: "link-error", reason: "invalid-key" });
  });

  it("closes a link that sends a 10 MB frame, before or after authenticating, and keeps serving", async () => {
    for (const binary of [true, false]) {
      const before = await rawSocket(router.url);
      before.socket.send(Buffer.alloc(10 * 1024 * 1024, 0x41), { binary });
      expect(await before.closed).toBe(1009);
    }
    const after = await link("big-a");
    const closed = new Promise<number>((resolve) => after.socket.once("close", (code) => resolve(code)));
    after.socket.send(Buffer.alloc(10 * 1024 * 1024, 0xa0));
    expect(await closed).toBe(1009);
    await link("big-b");
    expect(router.child.exitCode).toBeNull();
  });

  it("serves 200 idle connections at once, links a daemon meanwhile, and closes the idle ones itself", async () => {
    const idle = await Promise.all(Array.from({ length: 200 }, () => rawSocket(router.url)));
    await expect.poll(() => idle.every((s) => s.frames.some((f) => f.t === "challenge"))).toBe(true);
    const a = await link("busy-a");
    await link("busy-b");
    expect(await a.propose(a.draft("direct:busy-a,busy-b", null, "still here"))).toMatchObject({ t: "certified" });
    // Links that never authenticate are dropped at the handshake timeout (4000).
    const codes = await Promise.all(idle.map((s) => s.closed));
    expect(new Set(codes)).toEqual(new Set([4000]));
  }, 60_000);

  it("refuses a challenge answer replayed on another connection", async () => {
    const key = generateSigningKey();
    const first = await RawLink.open(router.url, "replay-auth", key);
    links.push(first);
    const answer = {
      t: "authenticate" as const,
      protocol: LINK_PROTOCOL,
      name: "replay-auth",
      publicKey: key.publicKey,
      signature: key.sign(linkAuthMessage(first.challenge!.nonce, "replay-auth")),
    };
    first.send(answer);
    expect(await first.next((f) => f.t === "authenticated" || f.t === "link-error")).toMatchObject({
      t: "authenticated",
    });
    const second = await RawLink.open(router.url, "replay-auth", key);
    links.push(second);
    second.send(answer);
    expect(await second.next((f) => f.t === "link-error")).toMatchObject({ reason: "bad-signature" });
  });

  it("answers a replayed proposal with the original certificate, also after a restart, and refuses it from anyone else", async () => {
    const a = await link("rep-a");
    const b = await link("rep-b");
    const draft = a.draft("direct:rep-a,rep-b", null, "once only");
    const first = (await a.propose(draft)) as Certified;
    const bytes = encodeRecord(draft);
    const signature = a.key.sign(actionMessage(bytes));
    // Bob replays alice's signed proposal on his own link: the author is not the linked agent.
    b.send({ t: "propose", id: 77, record: bytes, signature });
    expect(await b.next((f) => "id" in f && f.id === 77)).toMatchObject({ t: "refused", reason: "bad-signature" });

    for (const link of links) link.close();
    links.length = 0;
    const port = new URL(router.url).port;
    await router.stop();
    router = await startRouterProcess(dir, `127.0.0.1:${port}`);
    const again = await RawLink.authenticated(router.url, "rep-a", a.key);
    links.push(again);
    again.send({ t: "propose", id: 5, record: bytes, signature });
    expect(await again.next((f) => "id" in f && f.id === 5)).toEqual({ ...first, id: 5 });
    // The next post follows the replayed one: the replay took no position of its own.
    expect(await again.propose(again.draft("direct:rep-a,rep-b", first.record, "next"))).toMatchObject({ seq: 2 });
  });

  it("stays alive and logs no failure of its own after all of it", () => {
    expect(router.child.exitCode).toBeNull();
    expect(
      router
        .stderr()
        .split("\n")
        .filter((line) => /"level":(50|60)/.test(line)),
    ).toEqual([]);
  });
});
