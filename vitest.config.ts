import { configDefaults, defineConfig } from "vitest/config";

/** One project per workspace; `system` holds the tests that start real routers and daemons. */
export default defineConfig({
  test: {
    // Vitest's default on 2 cores is one worker, which runs every file in turn; two run the unit
    // projects' files two at a time. The projects with fileParallelism: false below (the system
    // tests and the real OpenClaw gateway) run after them, one file at a time: Vitest 4 puts every
    // such file in one sequential group, so no system test shares the machine with another file.
    maxWorkers: 2,
    projects: [
      { test: { name: "protocol", include: ["packages/protocol/src/**/*.test.ts"] } },
      { test: { name: "sqlite", include: ["packages/sqlite/src/**/*.test.ts"] } },
      {
        test: {
          name: "client",
          include: ["packages/client/src/**/*.test.ts"],
          typecheck: {
            enabled: true,
            include: ["packages/client/src/**/*.test-d.ts"],
            tsconfig: "packages/client/tsconfig.json",
          },
        },
      },
      { test: { name: "router", include: ["apps/router/src/**/*.test.ts"], testTimeout: 30_000 } },
      { test: { name: "daemon", include: ["apps/daemon/src/**/*.test.ts"], testTimeout: 30_000 } },
      {
        test: {
          name: "system",
          include: ["apps/*/test/**/*.test.ts", "bench/chaos/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "apps/daemon/test/hosts/openclaw/**"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      { test: { name: "openclaw", include: ["packages/openclaw/src/**/*.test.ts"] } },
      { test: { name: "nanoclaw", include: ["packages/nanoclaw/src/**/*.test.ts"] } },
      {
        // The real OpenClaw gateway: its global setup installs Node 24 and openclaw from the npm
        // registry into a cache folder (never into the workspace) and packs the plugin.
        test: {
          name: "openclaw-gateway",
          include: ["apps/daemon/test/hosts/openclaw/**/*.test.ts"],
          globalSetup: ["apps/daemon/test/hosts/openclaw/global-setup.ts"],
          testTimeout: 240_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "console",
          include: ["src/**/*.test.ts", "docker/compose.test.ts", "docker/grafana-dashboard.test.ts"],
        },
      },
      // The firewall evaluation set and the example policy the bench runs (bench/firewall/), and the
      // bench's own arithmetic that a figure depends on (bench/*.test.ts).
      { test: { name: "bench", include: ["bench/firewall/**/*.test.ts", "bench/*.test.ts"] } },
    ],
  },
});
