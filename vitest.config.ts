import { defineConfig } from "vitest/config";

/** One project per workspace; `system` holds the tests that start real routers and daemons. */
export default defineConfig({
  test: {
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
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      { test: { name: "console", include: ["src/**/*.test.ts", "docker/**/*.test.ts"] } },
    ],
  },
});
