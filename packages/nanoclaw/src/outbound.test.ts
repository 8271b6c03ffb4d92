/**
 * The NanoClaw adapter's outbound rules (seed 001 "Stock host projection") against the client's
 * fake daemon, for the failures real daemons cannot be made to answer on demand, and NanoClaw's
 * host side as the adapter's recorded contract (src/testing/contract-host.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { mintId, SEND_OPTIONS_META_KEY } from "@social-harness/protocol";
import { refuse, startFakeDaemon, type FakeDaemon } from "../../client/src/testing/fake-daemon.js";
import { createSocialHarnessAdapter } from "./adapter.js";
import { socialHarnessRegistration } from "./registration.js";
import { ContractHost } from "./testing/contract-host.js";

const GATHER = '{"gather": "eta?", "deadline": 60, "requestedSchema": {"type": "object", "properties": {}}}';

describe("NanoClaw rows against the client's fake daemon (the recorded NanoClaw host contract)", () => {
  let daemon: FakeDaemon;
  let host: ContractHost;

  beforeEach(async () => {
    daemon = await startFakeDaemon();
    host = new ContractHost(createSocialHarnessAdapter({ endpoint: daemon.url, token: daemon.token }), 1);
    await host.setup();
  });
  afterEach(async () => {
    await host.adapter.teardown();
    await daemon.stop();
  });

  const sendMetas = () =>
    daemon.calls.filter((call) => call.name === "send_message").map((call) => call.meta?.[SEND_OPTIONS_META_KEY]);

  it("sends gathers, all_gathers and answers with failureDelivery inbound, and plain messages without it", async () => {
    daemon.answerSend = (args) =>
      Promise.resolve(
        args.text.startsWith("{") && !args.text.includes("action") ? { operationId: `col_${"A".repeat(43)}` } : {},
      );
    await host.deliverRow("agent:alice", { text: "plain" });
    await host.deliverRow("agent:alice", { text: GATHER });
    await host.deliverRow("group:alice,carol", { text: GATHER.replace('"gather"', '"all_gather"') });
    await host.deliverRow("agent:alice", { text: '{"action": "decline"}' });
    expect(sendMetas()).toEqual([
      undefined,
      { failureDelivery: "inbound" },
      { failureDelivery: "inbound" },
      { failureDelivery: "inbound" },
    ]);
  });

  it("completes an outcome-unknown send with a notice that it may have been sent", async () => {
    daemon.answerSend = () => {
      throw refuse({ reason: "outcome-unknown", detail: "the store failed after the commit" });
    };
    expect(await host.deliverRow("agent:alice", { text: "did it go?" })).toMatchObject({
      state: "delivered",
      attempts: 1,
    });
    expect(host.notices("agent:alice")).toEqual([expect.stringContaining("may have been sent")]);
  });

  it("completes a delivery-pending answer too, since a retry would answer twice", async () => {
    daemon.answerSend = () => {
      throw refuse({ reason: "delivery-pending" });
    };
    expect(await host.deliverRow("agent:alice", { text: '{"action": "decline"}' })).toMatchObject({
      state: "delivered",
      attempts: 1,
    });
    expect(host.notices("agent:alice")).toEqual([expect.stringContaining("will still be delivered")]);
  });

  it("completes a pending or possibly sent row even when telling the model fails", async () => {
    daemon.answerSend = () => {
      throw refuse({ reason: "outcome-unknown" });
    };
    host.onInbound = () => Promise.reject(new Error("the session database is locked"));
    expect(await host.deliverRow("agent:alice", { text: "did it go?" })).toMatchObject({
      state: "delivered",
      attempts: 1,
    });
  });

  it("leaves a row refused for a retryable reason to NanoClaw's retry, which ends failed", async () => {
    daemon.answerSend = () => {
      throw refuse({ reason: "certification-unavailable", detail: "agent:carol is offline" });
    };
    const row = await host.deliverRow("group:alice,carol", { text: "hello" });
    expect(row).toMatchObject({ state: "failed", attempts: 6 });
    expect(String(row.errors[0])).toContain("certification-unavailable");
    expect(host.notices("group:alice,bob,carol")).toEqual([]);
  });

  it("completes a row the local firewall refused and hands the model its feedback", async () => {
    daemon.answerSend = () => {
      throw refuse({
        reason: "firewall-refused",
        checkId: mintId("check"),
        refusal: "refused",
        feedback: "No credentials.",
      });
    };
    expect(await host.deliverRow("agent:alice", { text: "password: hunter2" })).toMatchObject({
      state: "delivered",
      attempts: 1,
    });
    expect(host.notices("agent:alice")).toEqual([expect.stringContaining("No credentials.")]);
  });

  for (const refusal of ["unavailable", "held"] as const) {
    it(`leaves a row the local firewall answered ${refusal} to NanoClaw's retry, which a later attempt can pass`, async () => {
      let attempts = 0;
      daemon.answerSend = () => {
        attempts += 1;
        if (attempts < 3) {
          throw refuse({ reason: "firewall-refused", checkId: mintId("check"), refusal, feedback: "try later" });
        }
        return Promise.resolve({});
      };
      expect(await host.deliverRow("agent:alice", { text: "status update" })).toMatchObject({
        state: "delivered",
        attempts: 3,
      });
      expect(host.notices("agent:alice")).toEqual([]);
    });
  }

  it("routes an inbound item with the local firewall's guidance set apart as the owner's", async () => {
    daemon.deliver(
      {
        kind: "multicast",
        message: {
          kind: "direct",
          postId: mintId("post"),
          address: "agent:alice",
          sender: "agent:alice",
          content: [{ type: "text", text: "launch friday?" }],
        },
      },
      {
        checkId: mintId("check"),
        subjects: [],
        instructions: [
          {
            middlewareId: "house",
            ruleId: "r",
            expectation: "required",
            subjects: [],
            instruction: "Answer politely.",
          },
        ],
      },
    );
    await expect.poll(() => daemon.pending(), { timeout: 10_000 }).toEqual([]);
    const [routed] = host.routed;
    expect(routed!.platformId).toBe("agent:alice");
    expect(routed!.message.content).toMatchObject({ sender: "agent:alice", senderId: "social-harness:agent:alice" });
    expect(routed!.message.content.text).toMatch(
      /^launch friday\?\n\n\(Your owner's local message firewall adds.*\n- Answer politely\.\)$/s,
    );
  });

  it("completes a row without text and says that Social Harness carries text only", async () => {
    expect(await host.deliverRow("agent:alice", { type: "ask_question", title: "Pick one" })).toMatchObject({
      state: "delivered",
    });
    expect(host.notices("agent:alice")).toEqual([expect.stringContaining("text only")]);
    expect(daemon.calls.filter((call) => call.name === "send_message")).toEqual([]);
  });
});

describe("socialHarnessRegistration (NanoClaw's registerChannelAdapter entry)", () => {
  it("returns no adapter, which NanoClaw skips, until SOCIAL_HARNESS_ENDPOINT is set", () => {
    expect(socialHarnessRegistration({}).factory()).toBeNull();
  });

  it("builds the adapter from the endpoint and the token file, with defaults that admit every sender", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sh-nanoclaw-"));
    try {
      writeFileSync(path.join(dir, "runtime.token"), "secret\n");
      const registration = socialHarnessRegistration({
        SOCIAL_HARNESS_ENDPOINT: "http://127.0.0.1:1/mcp",
        SOCIAL_HARNESS_TOKEN_FILE: path.join(dir, "runtime.token"),
      });
      const adapter = registration.factory();
      expect(adapter).toMatchObject({ name: "social-harness", channelType: "social-harness", supportsThreads: false });
      expect(registration.defaults?.dm.unknownSenderPolicy).toBe("public");
      expect(registration.defaults?.group.unknownSenderPolicy).toBe("public");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
