/**
 * Whether a request path is well-formed percent-encoding of UTF-8. Next decodes dynamic route
 * segments itself and answers 500 to one that does not decode (`/d/%ff/inbox`), so the request
 * gate refuses such paths first, as the client error they are.
 */

/** True when every %XX escape in `pathname` decodes, together, to valid UTF-8. */
export function isWellEncodedPath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}
