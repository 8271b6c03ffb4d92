/**
 * The router link as posts see it (posts/router-port.ts): every transport error becomes the
 * port's closed failure, here and nowhere else.
 */
import type { PeerKeys } from "../identity/peer-keys.js";
import type { PostsRouter, RouterAnswer } from "../posts/router-port.js";
import { LinkLost, LinkUnavailable, type RouterLink } from "./router-link.js";

async function answered<T>(request: () => Promise<T>): Promise<RouterAnswer<T>> {
  try {
    return { ok: true, value: await request() };
  } catch (error) {
    if (error instanceof LinkUnavailable) {
      const refusal = error.refusal;
      return {
        ok: false,
        failure: { kind: "unavailable", state: error.state, ...(refusal === undefined ? {} : { refusal }) },
      };
    }
    if (error instanceof LinkLost) return { ok: false, failure: { kind: "lost", detail: error.message } };
    throw error;
  }
}

export function postsRouterOf(link: RouterLink, peerKeys: PeerKeys): PostsRouter {
  return {
    ready: () => answered(() => link.ready()),
    keysFor: (names) => answered(() => peerKeys.keysFor(names)),
    propose: (record, signature) => answered(() => link.propose(record, signature)),
    openGroup: (record, signature) => answered(() => link.openGroup(record, signature)),
  };
}
