"use client";
/**
 * tRPC for one daemon in the browser: each provider gets its own client, whose link points at
 * the same-origin proxy `/api/daemons/<name>/trpc`, and its own query-key prefix, so several
 * daemons share one QueryClient without their caches colliding.
 */
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useQueryClient } from "@tanstack/react-query";
import { useMemo, type ReactNode } from "react";
import type { AppRouter } from "./owner-api";

const context = createTRPCContext<AppRouter, { keyPrefix: true }>();

/** The tRPC options proxy of the nearest `DaemonTRPCProvider`. */
export const useTRPC = context.useTRPC;

/** The same-origin endpoint that forwards to a daemon's owner API. */
export function daemonEndpoint(name: string): string {
  return `/api/daemons/${encodeURIComponent(name)}/trpc`;
}

/** Makes `useTRPC()` below it talk to the daemon called `name`. */
export function DaemonTRPCProvider({ name, children }: { name: string; children: ReactNode }) {
  const queryClient = useQueryClient();
  const trpcClient = useMemo(
    () => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: daemonEndpoint(name) })] }),
    [name],
  );
  return (
    <context.TRPCProvider trpcClient={trpcClient} queryClient={queryClient} keyPrefix={name}>
      {children}
    </context.TRPCProvider>
  );
}
