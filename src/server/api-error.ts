/**
 * The console API's own refusals, in tRPC's error envelope so the browser's tRPC client reads
 * them like any procedure error. A batched call (`?batch=1`) gets one error per procedure, as
 * tRPC's batch link expects. This is the one place these codes map to the wire.
 */
import "server-only";

/** Why the console, not the daemon, refused an API call. */
export type ApiErrorCode = "BAD_REQUEST" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "BAD_GATEWAY";

function wireCodes(code: ApiErrorCode): { readonly status: number; readonly rpc: number } {
  switch (code) {
    case "BAD_REQUEST":
      return { status: 400, rpc: -32600 };
    case "UNAUTHORIZED":
      return { status: 401, rpc: -32001 };
    case "FORBIDDEN":
      return { status: 403, rpc: -32003 };
    case "NOT_FOUND":
      return { status: 404, rpc: -32004 };
    case "BAD_GATEWAY":
      return { status: 502, rpc: -32603 };
  }
}

/** The number of procedures a tRPC request URL names, or undefined when it is not batched. */
export function batchSize(url: URL): number | undefined {
  if (url.searchParams.get("batch") !== "1") return undefined;
  const last = url.pathname.split("/").at(-1) ?? "";
  return Math.max(1, last.split(",").length);
}

/** A JSON response carrying `code` and `message` in tRPC's error shape. */
export function apiError(url: URL, code: ApiErrorCode, message: string): Response {
  const { status, rpc } = wireCodes(code);
  const one = { error: { message, code: rpc, data: { code, httpStatus: status } } };
  const size = batchSize(url);
  const body = size === undefined ? one : Array.from({ length: size }, () => one);
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}
