/**
 * When a server started from the command line stops: on SIGTERM or SIGINT, or, when npm started
 * it (`npx social-harness …`), once the process that started it is gone. npm runs a bin through
 * `sh -c`, which dies on SIGTERM without passing it on, so the server would be left running with
 * a new parent; watching the parent makes a SIGTERM to npx stop the server as well.
 *
 * The starter is the parent this process had when it began, not the one it has when a server asks:
 * a starter that dies while the server starts (or between its ready line and the question) has
 * already handed the server to a new parent, which would otherwise be taken for the starter.
 */

const PARENT_POLL_MS = 100;

/** The process that started this one, read when the command line's modules load. */
const STARTER = process.ppid;

/** Resolves with what asked the server to stop: the signal's name, or `parent-exit`. */
function stopRequested(): Promise<string> {
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
    if (process.env.npm_lifecycle_event !== undefined) {
      if (process.ppid !== STARTER) return stop("parent-exit");
      watch = setInterval(() => {
        if (process.ppid !== STARTER) stop("parent-exit");
      }, PARENT_POLL_MS);
      watch.unref();
    }
  });
}

/**
 * Writes a server's ready text to stdout and resolves once it is asked to stop. The stop request
 * is made first, so a signal sent the moment a caller reads the ready text is already handled.
 */
export function announceReady(text: string): Promise<string> {
  const stop = stopRequested();
  process.stdout.write(text);
  return stop;
}
