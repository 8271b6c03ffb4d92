import { execFileSync } from "node:child_process";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, eventually } from "./harness/mcp.js";
import { Network, readAll, waitForItems } from "./harness/network.js";
import { CLI } from "./harness/processes.js";

/** The certified history of a daemon, read with the export command a user runs. */
interface Exported {
  conversation: string;
  postId: string;
  author: string;
  recordHash: string;
  content: { type: string; text?: string }[];
}

function exportHistory(dataDir: string): Exported[] {
  const out = execFileSync(process.execPath, [CLI, "history", "export", "--data", dataDir], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Exported);
}

/** The intents a daemon's database holds (a second connection; the daemon keeps running). */
function intentCount(dataDir: string): number {
  const db = new Database(path.join(dataDir, "daemon.db"), { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM intents").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const texts = (items: Awaited<ReturnType<typeof readAll>>) =>
  items.map((e) => e.item.message.content[0].text as string);

describe("bound intents", () => {
  let net: Network;

  beforeAll(async () => {
    net = await Network.start(["alice", "bob"], { extraArgs: ["--router-timeout-ms", "1500"] });
    await net.send("alice", "agent:bob", "warm up");
    await waitForItems(net.agent("bob"), 1);
  });
  afterAll(async () => {
    net.router.proc.child.kill("SIGCONT");
    await net?.close();
  });

  it("makes distinct posts for distinct calls with identical input", async () => {
    await net.send("alice", "agent:bob", "same words");
    await net.send("alice", "agent:bob", "same words");
    const items = (await waitForItems(net.agent("bob"), 3)).filter(
      (e) => e.item.message.content[0].text === "same words",
    );
    expect(items).toHaveLength(2);
    expect(items[0]!.item.message.postId).not.toBe(items[1]!.item.message.postId);
  });

  it("keeps an intent only until the router answers it: bound while the router is stopped, retired once certified", async () => {
    const dataDir = net.agent("alice").daemon.dataDir;
    expect(intentCount(dataDir)).toBe(0);
    net.router.proc.child.kill("SIGSTOP");
    const outcome = await callTool(net.agent("alice").mcp.client, "send_message", {
      to: "agent:bob",
      text: "kept until answered",
    });
    expect(outcome).toMatchObject({ ok: false, data: { reason: "delivery-pending" } });
    expect(intentCount(dataDir)).toBe(1);
    net.router.proc.child.kill("SIGCONT");
    await eventually(async () =>
      texts(await readAll(net.agent("bob"))).includes("kept until answered") ? true : undefined,
    );
    await eventually(() => Promise.resolve(intentCount(dataDir) === 0 ? true : undefined));
  });

  it("answers delivery-pending when the router stops answering after binding, then delivers once it returns", async () => {
    net.router.proc.child.kill("SIGSTOP");
    const outcome = await callTool(net.agent("alice").mcp.client, "send_message", {
      to: "agent:bob",
      text: "pending one",
    });
    expect(outcome).toMatchObject({ ok: false, code: -32030, data: { reason: "delivery-pending" } });
    net.router.proc.child.kill("SIGCONT");
    const items = await eventually(async () => {
      const found = (await readAll(net.agent("bob"))).filter((e) => e.item.message.content[0].text === "pending one");
      return found.length > 0 ? found : undefined;
    });
    expect(items).toHaveLength(1);
  });

  it("keeps the persisted PostId across a daemon restart and never duplicates the post", async () => {
    net.router.proc.child.kill("SIGSTOP");
    const outcome = await callTool(net.agent("alice").mcp.client, "send_message", {
      to: "agent:bob",
      text: "survives restart",
    });
    expect(outcome).toMatchObject({ ok: false, data: { reason: "delivery-pending" } });
    // The daemon stops while the proposal sits unanswered; the router then commits it.
    await net.stop("alice");
    net.router.proc.child.kill("SIGCONT");
    await eventually(async () =>
      texts(await readAll(net.agent("bob"))).includes("survives restart") ? true : undefined,
    );
    // Restarted, alice proposes the same bound intent again; the router answers with the record it has.
    await net.restart("alice");
    const survivors = await eventually(async () => {
      const found = exportHistory(net.agent("alice").daemon.dataDir).filter(
        (r) => r.content[0]?.text === "survives restart",
      );
      return found.length > 0 ? found : undefined;
    });
    expect(survivors).toHaveLength(1);
    const posts = exportHistory(net.agent("alice").daemon.dataDir).filter((r) => r.author === "agent:alice");
    expect(new Set(posts.map((p) => p.postId)).size).toBe(posts.length);
    const delivered = texts(await readAll(net.agent("bob"))).filter((t) => t === "survives restart");
    expect(delivered).toHaveLength(1);
  });

  it("delivers a post bound while the router was down once a new router process serves its data", async () => {
    net.router.proc.child.kill("SIGSTOP");
    const outcome = await callTool(net.agent("alice").mcp.client, "send_message", {
      to: "agent:bob",
      text: "after router restart",
    });
    expect(outcome).toMatchObject({ ok: false, data: { reason: "delivery-pending" } });
    net.router.proc.child.kill("SIGKILL");
    net.router = await net.router.restart();
    const items = await eventually(async () => {
      const found = (await readAll(net.agent("bob"))).filter(
        (e) => e.item.message.content[0].text === "after router restart",
      );
      return found.length > 0 ? found : undefined;
    }, 30_000);
    expect(items).toHaveLength(1);
  });
});
