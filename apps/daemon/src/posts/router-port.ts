/**
 * What posts need of the router, and the one closed failure type they see: the rules of the send
 * pipeline never handle a transport error. `unavailable` means the request never left (nothing can
 * have been proposed); `lost` means it may have reached the router and its answer did not come.
 */
import type { RouterFrame } from "@social-harness/protocol";

export type RouterUnavailableState =
  "connecting" | "offline" | "not-registered" | "version-mismatch" | "router-untrusted";

/** Why the router refused this daemon's link (admission's reason when it is one). */
export interface RouterRefusal {
  readonly reason: string;
  readonly admission?: string;
  readonly detail: string;
}

export type RouterFailure =
  | { readonly kind: "unavailable"; readonly state: RouterUnavailableState; readonly refusal?: RouterRefusal }
  | { readonly kind: "lost"; readonly detail: string };

export type RouterAnswer<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: RouterFailure };

export type ProposalAnswer = Extract<RouterFrame, { t: "certified" | "head-moved" | "refused" }>;

export interface PostsRouter {
  /** Resolves once the link is ready (waiting briefly while it connects). */
  ready(): Promise<RouterAnswer<void>>;
  /** The pinned key of each name, resolving unknown names at the router; undefined when unknown. */
  keysFor(names: readonly string[]): Promise<RouterAnswer<Map<string, Uint8Array | undefined>>>;
  propose(record: Uint8Array, signature: Uint8Array): Promise<RouterAnswer<ProposalAnswer>>;
  openGroup(record: Uint8Array, signature: Uint8Array): Promise<RouterAnswer<ProposalAnswer>>;
}
