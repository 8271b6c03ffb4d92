import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { openDaemonStore } from "../db/database.js";
import { FirewallPolicies } from "./policy.service.js";
import { insertRevision } from "./policy.store.js";

describe("a stored policy revision", () => {
  it("holds every check when it no longer validates (a pattern the engine refuses), instead of switching off", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sh-policy-"));
    const store = await openDaemonStore(path.join(dir, "daemon.db"));
    try {
      // Accepted before issue 23: a lookahead, which the linear-time engine cannot run.
      const stored = {
        mode: "enforce",
        middlewares: [
          {
            id: "house",
            kind: "rules",
            rules: [
              {
                id: "passwords",
                direction: "inbound",
                match: { text: { pattern: "password(?!\\s+policy)" } },
                decision: "hold",
                instruction: "No credentials.",
              },
            ],
          },
        ],
      };
      await insertRevision(store.db, { policy: JSON.stringify(stored), author: "owner", createdAt: 1 });
      const policies = new FirewallPolicies(store, dir, pino({ level: "silent" }));
      await policies.load();
      const subject = {
        id: "pst_x",
        kind: "multicast" as const,
        sender: "agent:carol",
        recipients: ["agent:bob"],
        conversation: "agent:carol",
        text: "hello",
      };
      const inbound = await policies.current.assess("inbound", subject);
      const outbound = await policies.current.assess("outbound", subject);
      expect([policies.current.revision, inbound.decision, outbound.decision]).toEqual([1, "hold", "hold"]);
      expect(inbound.feedback).toMatch(/no longer validates/);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
