/**
 * Issue 19 on real processes: after known traffic among alice, bob and carol (direct, group, a
 * gather, a message bob's firewall holds, a refused send, webhook deliveries to a loopback
 * receiver), bob's Overview counts it all by kind and interval and draws the expected map, and
 * both /metrics endpoints (router on --metrics-listen, daemon behind the owner token) hold the
 * exact counter values.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, tool } from "./harness/mcp.js";
import { Network, readAll } from "./harness/network.js";
import { ownerClient } from "./harness/owner.js";
import { WebhookReceiver } from "./webhooks/receiver.js";
import { subscribed, webhookArgs } from "./webhooks/webhooks.js";

const ETA = { type: "object", properties: { eta: { type: "integer", minimum: 0 } }, required: ["eta"] };

/** Prometheus text as `name{k="v",…}` (labels sorted) → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) continue;
    const labels = [...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((l) => `${l[1]}="${l[2]}"`).sort();
    out.set(labels.length === 0 ? match[1]! : `${match[1]}{${labels.join(",")}}`, Number(match[3]));
  }
  return out;
}

async function scrape(url: string, token?: string): Promise<Map<string, number>> {
  const response = await fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  return samples(await response.text());
}

async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("the condition did not hold in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sum = (values: readonly (number | null)[]) => values.reduce<number>((a, b) => a + (b ?? 0), 0);

describe("the Overview and /metrics after known traffic", () => {
  let net: Network;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    net = await Network.start(["alice", "carol"], { routerArgs: ["--metrics-listen", "127.0.0.1:0"] });
    await net.add("bob", { extraArgs: webhookArgs() });
    await ownerClient(net.agent("bob").daemon).firewall.set.mutate({
      policy: {
        mode: "enforce",
        middlewares: [
          {
            id: "house",
            kind: "rules",
            rules: [
              {
                id: "review",
                direction: "inbound",
                match: { text: { pattern: "hold me" } },
                decision: "hold",
                instruction: "The owner reviews these.",
              },
            ],
          },
        ],
      },
    });
    await subscribed(net.agent("bob").mcp.client, receiver.url("/hook", "127.0.0.1"), receiver.secret());

    expect(await net.send("alice", "agent:bob", "hello bob")).toEqual({});
    expect(await net.send("alice", "agent:bob", "hello again")).toEqual({});
    expect(await net.send("alice", "agent:bob", "please hold me")).toEqual({});
    expect(await net.send("bob", "agent:alice", "hi alice")).toEqual({});
    expect(await net.send("alice", "group:bob,carol", "hello group")).toEqual({});
    const gather = JSON.stringify({ gather: "ETA?", deadline: 600, requestedSchema: ETA });
    expect(await net.send("alice", "group:bob,carol", gather)).toMatchObject({ operationId: expect.any(String) });
    const refused = await callTool(net.agent("alice").mcp.client, "send_message", {
      to: "agent:nobody",
      text: "anyone?",
    });
    expect(refused).toMatchObject({ ok: false, data: { reason: "unknown-agent" } });
    // bob's inbox: hello, hello again, the group post and the gather request reach the receiver.
    await receiver.waitForDeliveries(4);
    await until(async () => (await ownerClient(net.agent("bob").daemon).status.query()).pendingCount === 0);
    await until(async () => (await readAll(net.agent("carol"))).length === 2);
    for (const entry of await readAll(net.agent("carol"))) {
      await tool(net.agent("carol").mcp.client, "acknowledge_delivery", { deliveryToken: entry.deliveryToken });
    }
  });

  afterAll(async () => {
    await net?.close();
    await receiver?.close();
  });

  it("counts bob's messages by kind and direction, his pending and held items, firewall decisions and webhooks", async () => {
    const bob = ownerClient(net.agent("bob").daemon);
    const summary = await bob.overview.summary.query({ window: "hour" });
    expect(summary.buckets).toBe(60);
    expect(summary.intervalMs).toBe(60_000);
    const { received, sent } = summary.messages;
    expect([sum(received.direct), sum(received.group), sum(received.gather), sum(received.all_gather)]).toEqual([
      3, 1, 1, 0,
    ]);
    expect([sum(sent.direct), sum(sent.group), sum(sent.gather)]).toEqual([1, 0, 0]);
    expect(summary.inbox.held.at(-1)).toBe(1);
    expect(summary.inbox.pending.at(-1)).toBe(0);
    expect(sum(summary.firewall.inbound.hold)).toBe(1);
    expect(sum(summary.firewall.inbound.allow)).toBe(4);
    expect(sum(summary.firewall.outbound.allow)).toBe(0);
    expect(summary.webhooks).toHaveLength(1);
    expect(summary.webhooks[0]).toMatchObject({ state: "active", deliveredTotal: 4, failingSince: null });
    expect(sum(summary.webhooks[0]!.series.delivered)).toBe(4);
    expect(JSON.stringify(summary)).not.toContain("127.0.0.1");

    const group = "group:alice,bob,carol";
    expect(summary.map.nodes.map((n) => [n.id, n.kind, n.conversation]).sort()).toEqual(
      [
        ["agent:alice", "agent", "direct:alice,bob"],
        ["agent:bob", "self", null],
        ["agent:carol", "agent", "direct:bob,carol"],
        [group, "group", group],
      ].sort(),
    );
    const edges = Object.fromEntries(summary.map.edges.map((e) => [`${e.from}>${e.to}`, e.count]));
    expect(edges).toEqual({
      "agent:alice>agent:bob": 4,
      "agent:bob>agent:alice": 1,
      [`agent:alice>${group}`]: 1,
      [`agent:bob>${group}`]: 0,
      [`agent:carol>${group}`]: 0,
    });
  });

  it("serves the daemon's counters to the owner token only", async () => {
    const bob = net.agent("bob").daemon;
    const url = bob.mcpUrl.replace(/\/mcp$/, "/metrics");
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${bob.runtimeToken}` } })).status).toBe(401);

    const b = await scrape(url, bob.ownerToken);
    expect(b.get('social_harness_daemon_sends_total{outcome="sent",reason="none"}')).toBe(1);
    expect(b.get('social_harness_daemon_send_duration_seconds_count{outcome="sent"}')).toBe(1);
    expect(
      b.get('social_harness_daemon_firewall_decisions_total{decision="allow",direction="inbound",middleware="rules"}'),
    ).toBe(4);
    expect(
      b.get('social_harness_daemon_firewall_decisions_total{decision="hold",direction="inbound",middleware="rules"}'),
    ).toBe(1);
    expect(b.get('social_harness_daemon_webhook_deliveries_total{outcome="delivered"}')).toBe(4);
    expect(b.get('social_harness_daemon_webhook_deliveries_total{outcome="failed"}')).toBe(0);
    expect(b.get("social_harness_daemon_webhook_retries_total")).toBe(0);
    expect(b.get("social_harness_daemon_acknowledgments_total")).toBe(4);
    expect(b.get("social_harness_daemon_inbox_pending")).toBe(0);
    expect(b.get("social_harness_daemon_inbox_held")).toBe(1);
    expect(b.get("social_harness_daemon_webhook_subscriptions_suspended")).toBe(0);
    expect(b.get("social_harness_daemon_firewall_judge_duration_seconds_count")).toBe(0);

    const alice = net.agent("alice").daemon;
    const a = await scrape(alice.mcpUrl.replace(/\/mcp$/, "/metrics"), alice.ownerToken);
    expect(a.get('social_harness_daemon_sends_total{outcome="sent",reason="none"}')).toBe(5);
    expect(a.get('social_harness_daemon_sends_total{outcome="refused",reason="unknown-agent"}')).toBe(1);

    const carol = net.agent("carol").daemon;
    const c = await scrape(carol.mcpUrl.replace(/\/mcp$/, "/metrics"), carol.ownerToken);
    expect(c.get("social_harness_daemon_acknowledgments_total")).toBe(2);
    // No label carries a name, a conversation or an id.
    for (const key of [...a.keys(), ...b.keys(), ...c.keys()])
      expect(key).not.toMatch(/alice|bob|carol|direct:|group:|sub_/);
  });

  it("says when the owner trusts a name the router does not know", async () => {
    const owner = ownerClient(net.agent("carol").daemon);
    expect(await owner.trust.add.mutate({ name: "nobody-yet" })).toEqual({ released: 0, registered: false });
    expect(await owner.trust.add.mutate({ name: "alice" })).toEqual({ released: 0, registered: true });
    expect((await owner.trust.list.query()).trusted.map((t) => t.name).sort()).toEqual(["alice", "nobody-yet"]);
  });

  it("serves the router's counters on --metrics-listen", async () => {
    const url = net.router.metricsUrl;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const r = await scrape(url!);
    // alice: three direct posts, one group post, two gather requests; bob: one; the group's genesis.
    expect(r.get("social_harness_router_certified_records_total")).toBe(8);
    expect(r.get('social_harness_router_certify_duration_seconds_count{outcome="certified"}')).toBe(8);
    expect(r.get('social_harness_router_refusals_total{reason="not-member"}')).toBe(0);
    expect(r.get("social_harness_router_links")).toBe(3);
    // Every certified record went through a group commit (a proposal that found the head moved
    // did too), each on the event loop or the writer thread.
    const batches = r.get("social_harness_router_commit_batch_appends_count")!;
    expect(batches).toBeGreaterThan(0);
    expect(r.get("social_harness_router_commit_batch_appends_sum")).toBeGreaterThanOrEqual(8);
    const commits = (place: string) => r.get(`social_harness_router_commit_duration_seconds_count{place="${place}"}`);
    expect(commits("loop")! + commits("thread")!).toBe(batches);
    expect(commits("pool")).toBe(0);
    expect(r.get('social_harness_router_commit_duration_seconds_sum{place="loop"}')).toBeGreaterThan(0);
    for (const key of r.keys()) expect(key).not.toMatch(/alice|bob|carol|direct:|group:/);
  });

  it("marks a question in the owner's inbox answered once the agent answered it", async () => {
    const carol = ownerClient(net.agent("carol").daemon);
    const gather = JSON.stringify({ gather: "Lunch at noon?", deadline: 600, requestedSchema: ETA });
    const { operationId } = (await net.send("bob", "agent:carol", gather)) as { operationId: string };
    await until(async () =>
      (await carol.inbox.list.query()).items.some(
        (e) => e.item.kind === "collectiveRequest" && e.item.id === operationId,
      ),
    );
    const question = async () =>
      (await carol.inbox.list.query()).items.find(
        (e) => e.item.kind === "collectiveRequest" && e.item.id === operationId,
      );
    expect((await question())?.answered).toBe(false);
    expect(await net.send("carol", "agent:bob", '{"action":"accept","content":{"eta":5}}')).toEqual({ operationId });
    expect((await question())?.answered).toBe(true);
  });
});
