/**
 * The daemon's own outcome-unknown paths (seed 003 "Closed failures"), through real processes with
 * test-only fault points: a store failure after the intent's commit, a send that ends without a
 * typed failure, and a result that fails the tool's output schema. Each may have sent the message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool } from "./harness/mcp.js";
import { Network, waitFor } from "./harness/network.js";
import { DaemonProcess, removeDirs, tempDir } from "./harness/processes.js";

const TEST_ENV = { SOCIAL_HARNESS_TEST_FAULTS: "1" };
const unknown = { ok: false, code: -32030, data: { reason: "outcome-unknown" } };
const textOf = (entry: { item: Record<string, any> }) => entry.item.message?.content?.[0]?.text as string | undefined;

describe("outcome-unknown, provoked through real processes", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"]);
  });
  afterAll(() => net?.close());

  const faulty = (name: string, point: string) => net.add(name, { extraArgs: ["--test-fault", point], env: TEST_ENV });

  it("answers outcome-unknown when the store fails after the intent's commit, and the post still goes out", async () => {
    const dave = await faulty("dave", "intent-after-commit");
    expect(
      await callTool(dave.mcp.client, "send_message", { to: "agent:bob", text: "after the commit" }),
    ).toMatchObject(unknown);
    // The intent was bound: the daemon proposes it again and delivers it, exactly once.
    const delivered = await waitFor(net.agent("bob"), (e) => textOf(e) === "after the commit");
    expect(delivered).toHaveLength(1);
  });

  it("answers outcome-unknown for a send that ends without a typed failure", async () => {
    const erin = await faulty("erin", "send-untyped-error");
    expect(await callTool(erin.mcp.client, "send_message", { to: "agent:bob", text: "never typed" })).toMatchObject(
      unknown,
    );
  });

  it("answers outcome-unknown when the completed result fails the tool's output schema, though it was sent", async () => {
    const fran = await faulty("fran", "send-invalid-result");
    const outcome = await callTool(fran.mcp.client, "send_message", { to: "agent:bob", text: "sent, badly answered" });
    expect(outcome).toMatchObject(unknown);
    expect(!outcome.ok && (outcome.data as { detail: string }).detail).toMatch(/output schema/);
    await waitFor(net.agent("bob"), (e) => textOf(e) === "sent, badly answered");
  });

  it("refuses a fault point at a production start", async () => {
    const dataDir = tempDir("gina");
    try {
      const start = DaemonProcess.start({
        name: "gina",
        router: net.router.url,
        dataDir,
        extraArgs: ["--test-fault", "send-untyped-error"],
      });
      await expect(start).rejects.toThrow(/--test-fault is for tests only/);
    } finally {
      removeDirs(dataDir);
    }
  });
});
