/**
 * Signatures run in libsodium, and a process where the addon does not load runs Node's OpenSSL
 * instead (packages/protocol/src/signatures.ts). Both give the same RFC 8032 bytes, so one network
 * may mix them: here the router and bob run libsodium and alice OpenSSL
 * (SOCIAL_HARNESS_ED25519=openssl), posts go both ways, and each history verifies in either.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Network, waitForItems, type InboxItem } from "./harness/network.js";
import { runCli } from "./harness/processes.js";

const textsOf = (items: InboxItem[]) =>
  items.map((i) => (i.item.message as { content: { text: string }[] }).content[0]!.text);

describe("a network mixing libsodium and OpenSSL", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["bob"]);
    await net.add("alice", { env: { SOCIAL_HARNESS_ED25519: "openssl" } });
  });
  afterAll(async () => {
    await net?.close();
  });

  it("says in each ready line which implementation the process runs", () => {
    expect(net.router.ed25519).toBe("libsodium");
    expect(net.agent("bob").daemon.ed25519).toBe("libsodium");
    expect(net.agent("alice").daemon.ed25519).toBe("openssl");
  });

  it("certifies, stores and delivers posts signed by either", async () => {
    await net.send("alice", "agent:bob", "signed in OpenSSL");
    await net.send("bob", "agent:alice", "signed in libsodium");
    expect(textsOf(await waitForItems(net.agent("bob"), 1))).toEqual(["signed in OpenSSL"]);
    expect(textsOf(await waitForItems(net.agent("alice"), 1))).toEqual(["signed in libsodium"]);
  });

  it("verifies both histories in either implementation", async () => {
    const dirs = ["alice", "bob"].map((name) => net.agent(name).daemon.dataDir);
    await net.stop("alice");
    await net.stop("bob");
    for (const data of dirs)
      for (const env of [{}, { SOCIAL_HARNESS_ED25519: "openssl" }]) {
        const run = runCli(["history", "verify", "--data", data], env);
        expect(run.status, run.stderr).toBe(0);
        expect(run.stdout).toContain("2 records: every record verifies");
      }
  });
});
