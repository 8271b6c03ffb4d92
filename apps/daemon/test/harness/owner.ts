/** The owner API of a real daemon through the tRPC client, as the console's server calls it. */
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { AppRouter } from "../../src/owner/app-router.js";
import type { DaemonProcess } from "./processes.js";

export function ownerClient(daemon: DaemonProcess, token = daemon.ownerToken) {
  return createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: daemon.trpcUrl, headers: () => ({ authorization: `Bearer ${token}` }) })],
  });
}
