/**
 * How the console reports a failed call to a daemon: an alert naming what could not be loaded
 * and the message of the daemon or of the console's proxy (never a stack or a token).
 */

/** An alert saying `what` could not be loaded, and why. */
export function QueryProblem({ what, error }: { what: string; error: { readonly message: string } }) {
  return (
    <p role="alert" className="rounded-md border border-danger/30 bg-danger-soft px-3 py-2 text-sm text-danger">
      Could not load {what}: {error.message}
    </p>
  );
}
