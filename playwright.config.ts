/**
 * Playwright for the owner console: Debian's Chromium, one worker, no webServer block. The
 * fixtures in e2e/ start a real router, daemons and `next start` themselves (run `next build`
 * first; `npm run test:e2e` does). Artifacts and screenshots go under test-results/.
 */
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/playwright",
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: "list",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    browserName: "chromium",
    headless: true,
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
});
