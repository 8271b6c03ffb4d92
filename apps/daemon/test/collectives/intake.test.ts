import { collectiveIdOf, decodeBase64url, mintCollectiveId } from "@social-harness/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeRouter } from "../harness/fake-router.js";
import { connect, eventually, type Connected } from "../harness/mcp.js";
import { readAll } from "../harness/network.js";
import { DaemonProcess, removeDirs } from "../harness/processes.js";

const FORM = { type: "object", properties: { ok: { type: "boolean" } } };
const HOUR = 3_600_000;

describe("a member checks every collective request it receives", () => {
  let router: FakeRouter;
  let bob: DaemonProcess;
  let mcp: Connected;

  beforeAll(async () => {
    router = await FakeRouter.start();
    router.agent("alice");
    router.agent("carol");
    bob = await DaemonProcess.start({ name: "bob", router: router.url });
    await router.authenticated();
    mcp = await connect(bob.mcpUrl, bob.runtimeToken);
  });

  afterAll(async () => {
    await mcp?.close();
    await bob?.stop();
    await router?.close();
    removeDirs(bob.dataDir);
  });

  const requests = async () => (await readAll({ daemon: bob, mcp })).filter((e) => e.item.kind === "collectiveRequest");
  const consumed = (reason: string) =>
    eventually(async () => (bob.stderr().includes(reason) ? true : undefined), 10_000, `a log line "${reason}"`);

  function request(
    author: string,
    conv: string,
    op: "gather" | "all_gather",
    deadlineAt: number,
    override: { id?: string; nonce?: string } = {},
  ) {
    const minted = mintCollectiveId(author);
    const id = override.id ?? minted.id;
    const nonce = override.nonce ?? minted.nonce;
    router.pushNext(author, conv, [
      { type: "text", text: `question ${id.slice(4, 10)}` },
      { type: "collective", op, id, nonce, deadlineAt, requestedSchema: FORM } as never,
    ]);
    return { id, nonce };
  }

  let first: { id: string; nonce: string };

  it("delivers a well-formed gather request from the direct conversation", async () => {
    first = request("alice", "direct:alice,bob", "gather", Date.now() + 60_000);
    const { id } = first;
    const [item] = await eventually(async () => {
      const found = await requests();
      return found.length > 0 ? found : undefined;
    });
    expect(item!.item).toMatchObject({
      kind: "collectiveRequest",
      op: "gather",
      id,
      from: "agent:alice",
      to: "agent:alice",
    });
  });

  it("consumes a request whose id does not derive from its sender and nonce", async () => {
    const other = mintCollectiveId("alice");
    request("alice", "direct:alice,bob", "gather", Date.now() + 60_000, {
      id: collectiveIdOf("carol", decodeBase64url(other.nonce)!),
      nonce: other.nonce,
    });
    await consumed("does not derive from its sender and nonce");
  });

  it("consumes a request that reuses the id of a request held from another post", async () => {
    // The same id and nonce as the delivered request, in a new post.
    request("alice", "direct:alice,bob", "gather", Date.now() + 60_000, first);
    await consumed("held from another post");
  });

  it("consumes a gather request outside a direct conversation and an all_gather outside a group", async () => {
    request("alice", "direct:alice,bob", "all_gather", Date.now() + 60_000);
    await consumed("an all_gather request outside a group conversation");
  });

  it("consumes a request past its deadline, or with a deadline more than 30 days and an hour away", async () => {
    request("alice", "direct:alice,bob", "gather", Date.now() - 1_000);
    await consumed("past its deadline");
    request("alice", "direct:alice,bob", "gather", Date.now() + 30 * 24 * HOUR + 2 * HOUR);
    await consumed("more than 30 days and an hour away");
  });

  it("delivered only the one well-formed request", async () => {
    expect(await requests()).toHaveLength(1);
  });
});
