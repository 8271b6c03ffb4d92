/**
 * The container test on its own (`npm run test:containers`): it builds images and runs the compose
 * network, so it stays out of `npm test`; `.ci/run` runs it after the other tests.
 */
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: path.resolve(import.meta.dirname, ".."),
    include: ["docker/containers.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 1_500_000,
  },
});
