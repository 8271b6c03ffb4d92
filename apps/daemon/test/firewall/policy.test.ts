/**
 * The firewall policy through the owner API and the command line (SPEC §10 "Policy"): revisions
 * with time and author, a refused draft naming each field while the old policy stays, a policy file
 * applied at start as a new revision only when it differs, and an API key read from an owner-only
 * file, sent to the judge and never returned.
 */
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeJudge } from "../harness/fake-judge.js";
import { callTool } from "../harness/mcp.js";
import { Network } from "../harness/network.js";
import { ownerClient } from "../harness/owner.js";
import { tempDir, removeDirs } from "../harness/processes.js";
import { injectionRule, judgeMiddleware } from "./policies.js";

const HOLD_MALLORY = {
  mode: "enforce",
  middlewares: [
    {
      id: "house",
      kind: "rules",
      rules: [
        {
          id: "mallory",
          direction: "inbound",
          match: { from: ["agent:mallory"] },
          decision: "hold",
          instruction: "The owner reviews everything mallory sends.",
        },
      ],
    },
  ],
};

describe("the firewall policy", () => {
  let net: Network;
  let judge: FakeJudge;
  const dir = tempDir("policy-files");
  const policyFile = path.join(dir, "policy.json");

  beforeAll(async () => {
    judge = await FakeJudge.start();
    writeFileSync(policyFile, JSON.stringify(HOLD_MALLORY));
    net = await Network.start(["alice"]);
    await net.add("bob", { extraArgs: ["--firewall-policy", policyFile] });
  });
  afterAll(async () => {
    await net?.close();
    await judge?.close();
    removeDirs(dir);
  });

  const owner = () => ownerClient(net.agent("bob").daemon);

  it("applies a policy file at start as a new revision, and only when it differs", async () => {
    expect(await owner().firewall.get.query()).toEqual({ revision: 1, policy: HOLD_MALLORY });
    await net.restart("bob");
    expect((await owner().firewall.get.query()).revision).toBe(1);
    const [first] = (await owner().firewall.revisions.query()).revisions;
    expect(first).toEqual({
      revision: 1,
      author: `file:${policyFile}`,
      createdAt: expect.any(Number),
      mode: "enforce",
    });
    expect(net.agent("bob").daemon.stderr()).toContain("the firewall policy file matches the current revision");
  });

  it("refuses an invalid draft naming each field, and keeps the old policy", async () => {
    const draft = {
      mode: "enforce",
      middlewares: [
        {
          id: "house",
          kind: "rules",
          rules: [{ id: "r", direction: "inbound", decision: "refuse", instruction: "x", match: { from: ["bob"] } }],
        },
      ],
    };
    const error = await owner()
      .firewall.set.mutate({ policy: draft })
      .then(
        () => undefined,
        (e: unknown) =>
          e as { message: string; data?: { code?: string; issues?: { path: string; message: string }[] } },
      );
    expect(error?.data?.code).toBe("BAD_REQUEST");
    expect(error?.data?.issues?.map((i) => i.path).sort()).toEqual([
      "middlewares.0.rules.0.decision",
      "middlewares.0.rules.0.match.from.0",
    ]);
    expect(error?.message).toContain("middlewares.0.rules.0.decision: refuse applies to outbound rules only");
    expect(await owner().firewall.get.query()).toEqual({ revision: 1, policy: HOLD_MALLORY });
  });

  it("stores each set as a new revision with its author and time, and a restart keeps the newest", async () => {
    const { revision } = await owner().firewall.set.mutate({ policy: { ...HOLD_MALLORY, mode: "guidance" } });
    expect(revision).toBe(2);
    await net.restart("bob", { extraArgs: [] });
    expect(await owner().firewall.get.query()).toMatchObject({ revision: 2, policy: { mode: "guidance" } });
    expect((await owner().firewall.revisions.query()).revisions.map((r) => [r.revision, r.author, r.mode])).toEqual([
      [2, "owner", "guidance"],
      [1, `file:${policyFile}`, "enforce"],
    ]);
    const status = await owner().status.query();
    expect(status.firewall).toEqual({ mode: "guidance", revision: 2 });
  });

  it("reads the judge's API key from an owner-only file, sends it, and never returns or logs it", async () => {
    const keyFile = path.join(net.agent("bob").daemon.dataDir, "judge.key");
    const KEY = "sk-judge-test-0123456789abcdef";
    writeFileSync(keyFile, `${KEY}\n`);
    chmodSync(keyFile, 0o644);
    const policy = {
      mode: "enforce",
      middlewares: [judgeMiddleware(judge.endpoint, [injectionRule("inbound")], { apiKeyFile: "judge.key" })],
    };
    await expect(owner().firewall.set.mutate({ policy })).rejects.toThrow(
      /middlewares\.0\.apiKeyFile: must be readable by its owner only/,
    );
    chmodSync(keyFile, 0o600);
    await owner().firewall.set.mutate({ policy });
    judge.on("is the key sent", { choice: "no", probability: 0.99 }, 1);
    expect(
      await callTool(net.agent("alice").mcp.client, "send_message", { to: "agent:bob", text: "is the key sent?" }),
    ).toMatchObject({
      ok: true,
    });
    await expect.poll(() => judge.calls.length).toBeGreaterThan(0);
    expect(judge.calls.at(-1)!.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(await owner().firewall.get.query())).not.toContain(KEY);
    expect(net.agent("bob").daemon.stderr()).not.toContain(KEY);
    expect(judge.unscripted).toEqual([]);
  });
});
