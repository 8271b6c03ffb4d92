import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, eventually, tool, type Connected } from "./harness/mcp.js";
import { readAll } from "./harness/network.js";
import { ownerClient } from "./harness/owner.js";
import { DaemonProcess, removeDirs, RouterProcess } from "./harness/processes.js";

const POSTGRES = "postgres://postgres@127.0.0.1:5432/test";
const GROUP = "group:alice,bob,carol";

describe("two routers sharing one PostgreSQL", () => {
  const schema = `routers_${process.pid}_${Date.now()}`;
  const database = `${POSTGRES}?schema=${schema}`;
  let east: RouterProcess;
  let west: RouterProcess;
  const daemons = new Map<string, DaemonProcess>();
  const clients = new Map<string, Connected>();

  beforeAll(async () => {
    east = await RouterProcess.start({ database });
    west = await RouterProcess.start({ database });
    const placement = { alice: east, bob: west, carol: east, dave: west } as const;
    for (const [name, router] of Object.entries(placement)) {
      const daemon = await DaemonProcess.start({ name, router: router.url });
      daemons.set(name, daemon);
      clients.set(name, await connect(daemon.mcpUrl, daemon.runtimeToken));
    }
  });

  afterAll(async () => {
    for (const client of clients.values()) await client.close();
    for (const daemon of daemons.values()) await daemon.stop();
    await east?.stop();
    await west?.stop();
    removeDirs(
      ...[...daemons.values()].map((d) => d.dataDir),
      ...[east, west].flatMap((r) => (r === undefined ? [] : [r.dataDir])),
    );
    const client = new pg.Client({ connectionString: POSTGRES });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  const agent = (name: string) => ({ daemon: daemons.get(name)!, mcp: clients.get(name)! });
  const send = (from: string, to: string, text: string) =>
    tool(clients.get(from)!.client, "send_message", { to, text });

  it("delivers a direct message between daemons linked to different routers", async () => {
    await send("alice", "agent:bob", "across routers");
    await eventually(async () => ((await readAll(agent("bob"))).length === 1 ? true : undefined));
  });

  it("opens a group whose members are spread over both routers", async () => {
    expect(await send("bob", GROUP, "group across routers")).toEqual({});
    for (const name of ["alice", "carol"]) {
      await eventually(async () =>
        (await readAll(agent(name))).some((e) => e.item.message.content[0].text === "group across routers")
          ? true
          : undefined,
      );
    }
  });

  it("keeps one order per conversation and loses no push under concurrent sends through both routers", async () => {
    const sends = ["alice", "bob", "carol"].flatMap((name) =>
      Array.from({ length: 5 }, (_, i) => send(name, GROUP, `${name}-${i}`)),
    );
    await Promise.all(sends);
    const histories = await eventually(async () => {
      const all = await Promise.all(
        ["alice", "bob", "carol"].map(async (name) =>
          (
            await ownerClient(daemons.get(name)!).history.records.query({ conversation: GROUP, limit: 200 })
          ).records.map((r) => r.recordHash),
        ),
      );
      return all.every((h) => h.length === 17) ? all : undefined;
    });
    expect(histories[1]).toEqual(histories[0]);
    expect(histories[2]).toEqual(histories[0]);
    for (const name of ["alice", "bob", "carol"]) {
      const texts = (await readAll(agent(name)))
        .map((e) => e.item.message.content[0].text as string)
        .filter((t) => /^[a-z]+-\d$/.test(t));
      expect(texts).toHaveLength(10);
    }
  });
});
