import { readFileSync } from "node:fs";
import path from "node:path";
import { DaemonMetrics } from "@social-harness/daemon";
import { RouterMetrics } from "@social-harness/router";
import { describe, expect, it } from "vitest";

const here = path.dirname(new URL(import.meta.url).pathname);

interface Dashboard {
  panels: { title: string; targets: { expr: string }[] }[];
}

async function exportedNames(): Promise<Set<string>> {
  const zero = () => Promise.resolve(0);
  const daemon = new DaemonMetrics({
    inboxPending: zero,
    held: zero,
    suspendedSubscriptions: zero,
    walFsyncs: () => 0,
  });
  const router = new RouterMetrics(() => 0);
  const names = new Set<string>();
  for (const registry of [daemon.registry, router.registry]) {
    for (const metric of await registry.getMetricsAsJSON()) {
      names.add(metric.name);
      if (String(metric.type) === "histogram")
        for (const suffix of ["_bucket", "_sum", "_count"]) names.add(metric.name + suffix);
    }
  }
  return names;
}

describe("the Grafana dashboard", () => {
  it("queries only metrics the router and daemon export, and charts every one of them", async () => {
    const dashboard = JSON.parse(readFileSync(path.join(here, "grafana-dashboard.json"), "utf8")) as Dashboard;
    const names = await exportedNames();
    const used = new Set(
      dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/social_harness_\w+/g) ?? [])),
    );
    for (const name of used) expect(names, `${name} is not exported`).toContain(name);
    const base = (name: string) => name.replace(/_(bucket|sum|count)$/, "");
    const charted = new Set([...used].map(base));
    for (const name of names) expect(charted, `${name} has no panel`).toContain(base(name));
  });
});
