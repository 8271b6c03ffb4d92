/**
 * OpenTelemetry traces (issue 19): with the standard OTEL_ variables set, one post is one trace
 * across the sender's daemon, the router and the recipient's daemon, exported over OTLP/HTTP to a
 * real receiver on loopback. The trace context crosses the router link in the frames only: it is
 * in no database file of any of the three processes.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { otlpProtocol, tracingRequested } from "@social-harness/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./harness/mcp.js";
import { Network, waitForItems } from "./harness/network.js";
import { OtlpReceiver, type ReceivedSpan } from "./harness/otlp-receiver.js";
import { removeDirs, tempDir } from "./harness/processes.js";

/** bob's firewall checks inbound subjects (it holds mallory's), so alice's post passes a check. */
const CHECK_INBOUND = {
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
          instruction: "The owner reviews what mallory sends.",
        },
      ],
    },
  ],
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/** The names from a span up to the root of its trace. */
function pathToRoot(span: ReceivedSpan, spans: readonly ReceivedSpan[]): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const names: string[] = [];
  for (let at: ReceivedSpan | undefined = span; at !== undefined; at = byId.get(at.parentSpanId)) {
    names.push(`${at.service}/${at.instance}:${at.name}`);
  }
  return names;
}

describe("OpenTelemetry traces", () => {
  let receiver: OtlpReceiver;
  let net: Network;
  const dir = tempDir("traces");
  const policyFile = path.join(dir, "policy.json");

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    writeFileSync(policyFile, JSON.stringify(CHECK_INBOUND));
    const quick = { OTEL_BSP_SCHEDULE_DELAY: "100" };
    net = await Network.start(["alice"], {
      // The router exports JSON to the generic endpoint; alice is switched on by the exporter
      // variable and exports protobuf to the traces endpoint; bob exports JSON.
      routerEnv: { ...quick, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      env: {
        ...quick,
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`,
      },
    });
    await net.add("bob", {
      env: { ...quick, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      extraArgs: ["--firewall-policy", policyFile],
    });
  });
  afterAll(async () => {
    await net?.close();
    await receiver?.close();
    removeDirs(dir);
  });

  it("exports one post as one connected trace across the sender's daemon, the router and the recipient's daemon", async () => {
    await net.send("alice", "agent:bob", "a traced hello");
    const [entry] = await waitForItems(net.agent("bob"), 1);
    expect(entry?.item.kind).toBe("multicast");

    // Every hop has reported once bob's read span is in: it is the last of the post's hops.
    const read = await eventually(async () => receiver.spans.find((s) => s.name === "read"), 20_000, "the read span");
    const spans = await eventually(
      async () => {
        const trace = receiver.trace(read.traceId);
        const names = new Set(trace.map((s) => s.name));
        const all = ["send", "bind", "propose", "certify", "push", "ingress", "firewall.check", "inbox", "read"];
        return all.every((n) => names.has(n)) ? trace : undefined;
      },
      20_000,
      "every span of the post",
    );
    expect(receiver.refused).toEqual([]);

    // Three processes, each under its own service name, share the trace id.
    const services = new Set(spans.map((s) => `${s.service}/${s.instance}`));
    expect(services).toEqual(
      new Set([
        "social-harness-daemon/alice",
        "social-harness-daemon/bob",
        `social-harness-router/${new URL(net.router.url).host}`,
      ]),
    );
    expect(new Set(spans.map((s) => s.encoding))).toEqual(new Set(["json", "protobuf"]));

    // One tree: one root, and every other span's parent is a span of the trace.
    const ids = new Set(spans.map((s) => s.spanId));
    const roots = spans.filter((s) => s.parentSpanId === "");
    expect(roots.map((s) => `${s.service}/${s.instance}:${s.name}`)).toEqual(["social-harness-daemon/alice:send"]);
    for (const span of spans.filter((s) => s.parentSpanId !== "")) expect(ids.has(span.parentSpanId)).toBe(true);

    // The hops in order, from bob's read up to alice's send.
    expect(pathToRoot(read, spans)).toEqual([
      "social-harness-daemon/bob:read",
      "social-harness-daemon/bob:inbox",
      "social-harness-daemon/bob:firewall.check",
      "social-harness-daemon/bob:ingress",
      expect.stringMatching(/^social-harness-router\/.*:push$/),
      expect.stringMatching(/^social-harness-router\/.*:certify$/),
      "social-harness-daemon/alice:propose",
      "social-harness-daemon/alice:send",
    ]);
    const bind = spans.find((s) => s.name === "bind")!;
    expect(pathToRoot(bind, spans)).toEqual(["social-harness-daemon/alice:bind", "social-harness-daemon/alice:send"]);
    const push = spans.find((s) => s.name === "push" && s.attributes["social_harness.member"] === "bob")!;
    const certify = spans.find((s) => s.name === "certify")!;
    expect(push.parentSpanId).toBe(certify.spanId);
    expect(certify.attributes["social_harness.record"]).toMatch(/^rec_/);
    expect(spans.find((s) => s.name === "firewall.check")!.attributes["social_harness.firewall.decision"]).toBe(
      "allow",
    );

    // No attribute carries the message's text.
    for (const span of spans) expect(JSON.stringify(span.attributes)).not.toContain("traced hello");
  });

  it("keeps the trace context out of every stored record and history", async () => {
    const traceIds = new Set(receiver.spans.map((s) => s.traceId));
    expect(traceIds.size).toBeGreaterThan(0);
    // Stop the processes so their databases (and WAL files) are complete on disk.
    const dirs = [net.router.dataDir, ...[...net.agents.values()].map((a) => a.daemon.dataDir)];
    for (const agent of net.agents.values()) await agent.daemon.stop();
    await net.router.stop();
    for (const file of dirs.flatMap(filesUnder)) {
      const text = readFileSync(file).toString("latin1");
      for (const traceId of traceIds) expect(text, file).not.toContain(traceId);
    }
  });

  it("is on only when the standard variables ask for it", () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://x" })).toBe(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "otlp" })).toBe(false);
    expect(otlpProtocol({})).toBe("http/protobuf");
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" })).toBe("http/json");
    expect(() => otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(/not supported/);
  });
});
