/** The tracing hops with a recording backend: off they do nothing; on, later hops chain by key. */
import { afterEach, describe, expect, it } from "vitest";
import {
  continueSpan,
  installTracing,
  rememberSpan,
  startSpan,
  traced,
  tracingOn,
  uninstallTracing,
  type TraceBackend,
  type TraceContext,
} from "./tracing.js";

interface Recorded {
  name: string;
  parent: string | undefined;
  ended: boolean;
  failed: boolean;
}

function recorder(): { backend: TraceBackend; spans: Recorded[] } {
  const spans: Recorded[] = [];
  let active: string | undefined;
  const backend: TraceBackend = {
    start(name, parent) {
      const recorded: Recorded = {
        name,
        parent: parent === undefined ? active : (parent as unknown as string),
        ended: false,
        failed: false,
      };
      spans.push(recorded);
      return {
        context: name as unknown as TraceContext,
        traceparent: undefined,
        setAttributes: () => undefined,
        end: (error) => {
          recorded.ended = true;
          recorded.failed = error !== undefined;
        },
      };
    },
    active: () => active as unknown as TraceContext,
    within(context, fn) {
      const before = active;
      active = context as unknown as string;
      try {
        return fn();
      } finally {
        active = before;
      }
    },
  };
  return { backend, spans };
}

afterEach(() => uninstallTracing());

describe("tracing hops", () => {
  it("start nothing while no backend is installed", async () => {
    expect(tracingOn()).toBe(false);
    expect(startSpan("send")).toBeUndefined();
    expect(continueSpan("inbox", "rec_x")).toBeUndefined();
    await expect(traced("bind", () => Promise.resolve(7))).resolves.toBe(7);
  });

  it("chain the later hops of an operation under its latest remembered step", () => {
    const { backend, spans } = recorder();
    installTracing(backend);
    rememberSpan("rec_a", startSpan("ingress")!);
    continueSpan("firewall.check", "rec_a")!.end();
    continueSpan("push", "rec_a", undefined, false)!.end();
    continueSpan("inbox", "rec_a")!.end();
    expect(continueSpan("read", "rec_unknown")).toBeUndefined();
    expect(spans.map((s) => [s.name, s.parent])).toEqual([
      ["ingress", undefined],
      ["firewall.check", "ingress"],
      ["push", "firewall.check"],
      ["inbox", "firewall.check"],
    ]);
  });

  it("end a traced step with its failure, and run its children inside it", async () => {
    const { backend, spans } = recorder();
    installTracing(backend);
    await expect(
      traced("send", () => {
        startSpan("bind")!.end();
        return Promise.reject(new Error("refused"));
      }),
    ).rejects.toThrow("refused");
    expect(spans).toEqual([
      { name: "send", parent: undefined, ended: true, failed: true },
      { name: "bind", parent: "send", ended: true, failed: false },
    ]);
  });
});
