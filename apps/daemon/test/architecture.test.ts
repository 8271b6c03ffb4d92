/**
 * The architecture's import rules (eslint.config.mjs) bite: each probe is a file with one import
 * the rules forbid, placed where it would break the layering, and linted with the project's own
 * configuration. A probe that lints clean means a rule stopped protecting the structure.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");

const PROBES: { place: string; source: string; rule: RegExp }[] = [
  {
    place: "apps/daemon/src/posts/architecture-probe.ts",
    source: 'import { startRouter } from "@social-harness/router";\nexport const probe = startRouter;\n',
    rule: /reaches the router only over the wire/,
  },
  {
    place: "apps/router/src/architecture-probe.ts",
    source: 'import { startDaemon } from "@social-harness/daemon";\nexport const probe = startDaemon;\n',
    rule: /daemon is reached over MCP or tRPC/,
  },
  {
    place: "packages/protocol/src/architecture-probe.ts",
    source: 'import { prepared } from "@social-harness/sqlite";\nexport const probe = prepared;\n',
    rule: /protocol stands alone/,
  },
  {
    place: "packages/client/src/architecture-probe.ts",
    source: 'import { startDaemon } from "@social-harness/daemon";\nexport const probe = startDaemon;\n',
    rule: /daemon is reached over MCP or tRPC/,
  },
  {
    place: "apps/daemon/src/inbox/architecture-probe.service.ts",
    source: 'import { defineTool } from "../mcp/tool.js";\nexport const probe = defineTool;\n',
    rule: /never imports a transport/,
  },
  {
    place: "apps/daemon/src/trust/architecture-probe.store.ts",
    source: 'import { trustRouter } from "./trust.router.js";\nexport const probe = trustRouter;\n',
    rule: /never imports a transport/,
  },
  {
    place: "src/architecture-probe.ts",
    source: 'import { startDaemon } from "@social-harness/daemon";\nexport const probe = startDaemon;\n',
    rule: /nothing of the daemon but `type AppRouter`/,
  },
  {
    place: "apps/daemon/src/ingress/architecture-probe.ts",
    source: 'import { RouterLink } from "../router-link/router-link.js";\nexport const probe = RouterLink;\n',
    rule: /never reach the router link/,
  },
  {
    place: "apps/daemon/src/webhooks/architecture-probe.ts",
    source: 'import { pendingRows } from "../inbox/inbox.store.js";\nexport const probe = pendingRows;\n',
    rule: /through that domain's service, never its store/,
  },
  {
    place: "apps/daemon/src/posts/architecture-probe-faults.ts",
    source: 'import { InjectedFault } from "../faults/faults.js";\nexport const probe = InjectedFault;\n',
    rule: /fault points wrap ports in the composition root only/,
  },
  {
    place: "packages/nanoclaw/src/architecture-probe.ts",
    source: 'import { startDaemon } from "@social-harness/daemon";\nexport const probe = startDaemon;\n',
    rule: /only through @social-harness\/client/,
  },
  {
    place: "apps/cli/src/architecture-probe.ts",
    source: 'import { Posts } from "../../../apps/daemon/src/posts/posts.service.js";\nexport const probe = Posts;\n',
    rule: /public entry point/,
  },
  {
    place: "bench/architecture-probe.ts",
    source: 'import { startNanoClaw } from "@social-harness/nanoclaw";\nexport const probe = startNanoClaw;\n',
    rule: /adapters are loaded by their hosts/,
  },
];

const ALLOWED = {
  place: "src/architecture-probe-type.ts",
  source: 'import type { AppRouter } from "@social-harness/daemon";\nexport type Probe = AppRouter;\n',
};

describe("the architecture's import rules", () => {
  const found = new Map<string, string[]>();

  beforeAll(async () => {
    // One lint run for every probe: loading the typed project is the slow part.
    const files = [...PROBES, ALLOWED].map(({ place, source }) => {
      const file = path.join(ROOT, place);
      writeFileSync(file, source);
      return file;
    });
    try {
      // Only the import rule runs, without type information, so no TypeScript project is loaded.
      const eslint = new ESLint({
        cwd: ROOT,
        ruleFilter: ({ ruleId }) => ruleId === "no-restricted-imports",
        overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
      });
      for (const result of await eslint.lintFiles(files)) {
        const messages = result.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
        found.set(path.relative(ROOT, result.filePath), messages);
      }
    } finally {
      for (const file of files) rmSync(file, { force: true });
    }
  }, 180_000);

  it.each(PROBES)("refuse a forbidden import in $place", ({ place, rule }) => {
    expect(found.get(place)?.some((m) => rule.test(m))).toBe(true);
  });

  it("let the console import `type AppRouter` from the daemon", () => {
    expect(found.get(ALLOWED.place)).toEqual([]);
  });
});

/** Every non-test TypeScript source under the workspaces, relative to the root. */
function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const place = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!["node_modules", "dist", ".next", "test"].includes(entry.name)) files.push(...sourceFiles(place));
    } else if (/\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      files.push(place);
    }
  }
  return files;
}

describe("the source tree", () => {
  it("holds no source file over 400 lines (STYLE.md: a longer file is two concepts)", () => {
    const files = ["apps", "packages", "src", "bench"].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((file) => ({ file, lines: readFileSync(path.join(ROOT, file), "utf8").split("\n").length - 1 }))
      .filter(({ lines }) => lines > 400);
    expect(long).toEqual([]);
  });

  it("keeps table types with their domains: db/database.ts exports none of them", () => {
    const source = readFileSync(path.join(ROOT, "apps/daemon/src/db/database.ts"), "utf8");
    const exported = [
      ...source.matchAll(
        /^export\s+(?:type\s+)?(?:\{([^}]*)\}|(?:interface|type|class|function|const|async function)\s+(\w+))/gm,
      ),
    ]
      .flatMap((m) => (m[1] ?? m[2] ?? "").split(","))
      .map((name) => name.replace(/^\s*type\s+/, "").trim())
      .filter((name) => name.length > 0);
    expect(exported).toContain("DaemonDatabase");
    expect(exported.filter((name) => name.endsWith("Table"))).toEqual([]);
    expect(source).not.toMatch(/^export\s+(?:type\s+)?\{[^}]*\}\s+from/m);
  });
});
