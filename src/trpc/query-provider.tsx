"use client";
/**
 * The browser's one QueryClient. Calls the console refuses for lack of a session (401) send the
 * browser to /signed-out; other client errors are not retried.
 */
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";

function httpStatusOf(error: unknown): number | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const data: unknown = error.data;
  if (typeof data !== "object" || data === null || !("httpStatus" in data)) return undefined;
  return typeof data.httpStatus === "number" ? data.httpStatus : undefined;
}

function makeQueryClient(onSignedOut: () => void): QueryClient {
  const leaveIfSignedOut = (error: unknown) => {
    if (httpStatusOf(error) === 401) onSignedOut();
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: leaveIfSignedOut }),
    mutationCache: new MutationCache({ onError: leaveIfSignedOut }),
    defaultOptions: {
      queries: {
        staleTime: 1_000,
        retry: (failures, error) => {
          const status = httpStatusOf(error);
          return (status === undefined || status >= 500) && failures < 2;
        },
      },
    },
  });
}

/** Provides the QueryClient to the console's client components. */
export function QueryProvider({ children }: { children: ReactNode }) {
  const router = useRouter();
  const [queryClient] = useState(() => makeQueryClient(() => router.replace("/signed-out")));
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
