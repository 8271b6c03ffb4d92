/**
 * When a server started from the command line stops: on SIGTERM or SIGINT, or, when npm started
 * it (`npx social-harness …`), once the process that started it is gone. npm runs a bin through
 * `sh -c`, which dies on SIGTERM without passing it on, so the server would be left running with
 * a new parent; watching the parent makes a SIGTERM to npx stop the server as well.
 */

const PARENT_POLL_MS = 100;

/** Resolves with what asked the server to stop: the signal's name, or `parent-exit`. */
export function stopRequested(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve) => {
    let watch: NodeJS.Timeout | undefined;
    const stop = (reason: string) => {
      process.off("SIGTERM", onTerm);
      process.off("SIGINT", onInt);
      if (watch !== undefined) clearInterval(watch);
      resolve(reason);
    };
    const onTerm = () => stop("SIGTERM");
    const onInt = () => stop("SIGINT");
    process.once("SIGTERM", onTerm);
    process.once("SIGINT", onInt);
    if (env.npm_lifecycle_event !== undefined) {
      const parent = process.ppid;
      watch = setInterval(() => {
        if (process.ppid !== parent) stop("parent-exit");
      }, PARENT_POLL_MS);
      watch.unref();
    }
  });
}
