/**
 * Ctrl-C (SIGINT) or SIGTERM during `npm run chaos`: the trial in progress stops its processes,
 * unmounts its tmpfs and drops its schema before the runner exits, so nothing is left behind.
 */
const cleanups = new Set<() => Promise<void>>();
let interrupted = false;

/** Registers a cleanup for as long as `run` runs. */
export async function cleaningUpOnInterrupt<T>(cleanup: () => Promise<void>, run: () => Promise<T>): Promise<T> {
  cleanups.add(cleanup);
  try {
    return await run();
  } finally {
    cleanups.delete(cleanup);
  }
}

/** Makes SIGINT and SIGTERM run every registered cleanup, then exit with 130. */
export function exitCleanlyOnInterrupt(): void {
  const stop = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the trial in progress and cleaning up\n`);
    void Promise.allSettled([...cleanups].map((cleanup) => cleanup())).then(() => process.exit(130));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
