/**
 * The same-origin tRPC endpoint for one daemon: `/api/daemons/<name>/trpc/<procedures>` is
 * checked (session, origin) and forwarded to `<daemon url>/trpc/<procedures>` with the owner token.
 */
import { apiError } from "@/server/api-error";
import { forwardToDaemon } from "@/server/daemon-forward";
import { findDaemon } from "@/server/env";
import { refuseApiRequest } from "@/server/request-guard";

export const dynamic = "force-dynamic";

async function handle(request: Request, context: RouteContext<"/api/daemons/[name]/trpc/[...path]">) {
  const refusal = refuseApiRequest(request);
  if (refusal !== undefined) return refusal;
  const { name, path } = await context.params;
  const daemon = findDaemon(name);
  if (daemon === undefined) return apiError(new URL(request.url), "NOT_FOUND", `no daemon named "${name}"`);
  return forwardToDaemon(request, daemon, path.join("/"));
}

export { handle as GET, handle as POST };
