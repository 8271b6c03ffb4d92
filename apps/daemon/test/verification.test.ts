import { encodeCanonical, encodeRecord, generateSigningKey, recordHashOf } from "@social-harness/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeRouter } from "./harness/fake-router.js";
import { connect, eventually, type Connected } from "./harness/mcp.js";
import { readAll } from "./harness/network.js";
import { DaemonProcess, removeDirs } from "./harness/processes.js";

describe("a daemon verifies every record it stores", () => {
  let router: FakeRouter;
  let bob: DaemonProcess;
  let bobMcp: Connected;
  const conv = "direct:alice,bob";

  beforeAll(async () => {
    router = await FakeRouter.start();
    router.agent("alice");
    bob = await DaemonProcess.start({ name: "bob", router: router.url });
    await router.authenticated();
    bobMcp = await connect(bob.mcpUrl, bob.runtimeToken);
  });

  afterAll(async () => {
    await bobMcp?.close();
    await bob?.stop();
    await router?.close();
    removeDirs(bob.dataDir);
  });

  const texts = async () =>
    (await readAll({ daemon: bob, mcp: bobMcp })).map((e) => e.item.message.content[0].text as string);
  const refusals = () =>
    bob
      .stderr()
      .split("\n")
      .filter((l) => l.includes("refused a record"));
  const waitForRefusals = (n: number) =>
    eventually(async () => (refusals().length >= n ? refusals() : undefined), 10_000, `${n} refusals`);

  let first: ReturnType<FakeRouter["post"]>;

  it("stores and delivers a well-signed, certified record", async () => {
    const good = router.post("alice", conv, 1, null, "genuine");
    first = good;
    router.push(good.frame);
    await eventually(async () => ((await texts()).includes("genuine") ? true : undefined));
    await eventually(async () => (router.acks().some((a) => a.seq === 1) ? true : undefined));
  });

  it("refuses a tampered record", async () => {
    const { frame } = router.post("alice", conv, 2, first.hash, "original words");
    const tampered = Buffer.from(frame.record);
    const at = tampered.indexOf(Buffer.from("original"));
    tampered.write("ORIGINAL", at);
    router.push({
      ...frame,
      record: new Uint8Array(tampered),
      certificate: router.frame("alice", conv, 2, tampered).certificate,
    });
    const lines = await waitForRefusals(1);
    expect(lines.at(-1)).toContain("signature of alice does not verify");
  });

  it("refuses a record signed by a key other than the pinned one", async () => {
    const bytes = encodeRecord(router.draft("alice", conv, first.hash, "forged"));
    router.push(router.frame("alice", conv, 2, bytes, generateSigningKey()));
    const lines = await waitForRefusals(2);
    expect(lines.at(-1)).toContain("signature of alice does not verify");
  });

  it("refuses a record certified by another router", async () => {
    const { frame } = router.post("alice", conv, 2, first.hash, "uncertified");
    const other = generateSigningKey();
    router.push({ ...frame, certificate: other.sign(frame.certificate) });
    const lines = await waitForRefusals(3);
    expect(lines.at(-1)).toContain("router certificate does not verify");
  });

  it("refuses a replay of a stored record at a new position", async () => {
    const { frame } = router.post("alice", conv, 1, null, "genuine again");
    const replay = router.frame("alice", conv, 2, frame.record);
    router.push(replay);
    const lines = await waitForRefusals(4);
    expect(lines.at(-1)).toContain("does not link to the previous record");
  });

  it("refuses a record that breaks the chain", async () => {
    const { frame } = router.post("alice", conv, 2, recordHashOf(new Uint8Array([9])), "unlinked");
    router.push(frame);
    const lines = await waitForRefusals(5);
    expect(lines.at(-1)).toContain("does not link to the previous record");
  });

  it("refuses non-canonical bytes even when they are signed and certified", async () => {
    const draft = router.draft("alice", conv, first.hash, "non-canonical");
    const canonical = Buffer.from(encodeRecord(draft));
    // Spell the integer `v: 1` in two bytes instead of one: same value, another encoding.
    const at = canonical.indexOf(Buffer.from([0x61, 0x76, 0x01]));
    const widened = Buffer.concat([
      canonical.subarray(0, at + 2),
      Buffer.from([0x18, 0x01]),
      canonical.subarray(at + 3),
    ]);
    router.push(router.frame("alice", conv, 2, widened));
    const lines = await waitForRefusals(6);
    expect(lines.at(-1)).toContain("not canonical CBOR");
  });

  it("refuses a record of a conversation it is not a member of", async () => {
    const { frame } = router.post("alice", "direct:alice,carol", 1, null, "not for bob");
    router.push(frame);
    const lines = await waitForRefusals(7);
    expect(lines.at(-1)).toContain("not a member");
  });

  it("accepts a signed field it does not know and drops it after the check", async () => {
    const draft = { ...router.draft("alice", conv, first.hash, "from the future"), v: 1, future: { hint: "ignored" } };
    const bytes = encodeCanonical(draft);
    router.push(router.frame("alice", conv, 2, bytes));
    await eventually(async () => ((await texts()).includes("from the future") ? true : undefined));
  });

  it("never classified any refused record", async () => {
    expect(await texts()).toEqual(["genuine", "from the future"]);
  });

  it("acknowledges an exact replay of a stored record as a duplicate without delivering it again", async () => {
    const acks = router.acks().length;
    const stored = (await readAll({ daemon: bob, mcp: bobMcp })).length;
    router.push(first.frame);
    await eventually(async () => (router.acks().length > acks ? true : undefined));
    expect((await readAll({ daemon: bob, mcp: bobMcp })).length).toBe(stored);
  });

  it("refuses a different record at a position already certified", async () => {
    router.push(router.post("alice", conv, 1, null, "rewritten history").frame);
    const lines = await waitForRefusals(8);
    expect(lines.at(-1)).toContain("conflicts with the certified record");
  });
});

describe("a daemon whose router speaks another protocol version", () => {
  it("refuses to send with version-mismatch", async () => {
    const router = await FakeRouter.start({ protocol: 2 });
    const carol = await DaemonProcess.start({ name: "carol", router: router.url });
    const mcp = await connect(carol.mcpUrl, carol.runtimeToken);
    try {
      await eventually(async () => (carol.stderr().includes("another link protocol") ? true : undefined));
      const { callTool } = await import("./harness/mcp.js");
      const outcome = await callTool(mcp.client, "send_message", { to: "agent:alice", text: "hi" });
      expect(outcome).toMatchObject({ ok: false, code: -32030, data: { reason: "version-mismatch" } });
    } finally {
      await mcp.close();
      await carol.stop();
      await router.close();
      removeDirs(carol.dataDir);
    }
  });
});
