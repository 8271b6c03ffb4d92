/**
 * Trace spans at the hops of a post (send → bind → propose → certify → push → ingress → firewall
 * check → inbox → read), for OpenTelemetry. Off unless a composition root installs a backend (the
 * command line does, from the OTEL_ environment, with the official SDK loaded only then); while off,
 * every call here costs one check of `backend`. This module imports no OpenTelemetry code: what
 * crosses the router link is a W3C `traceparent` string in the frame, never in a signed record.
 */

/** A W3C trace context header (version 00 is 55 characters; later versions may append fields). */
export const TRACEPARENT_PATTERN = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-[0-9a-f]{1,200})?$/;
export const MAX_TRACEPARENT_LENGTH = 256;

/** Where a span hangs: in a process's own context, or under a traceparent from another process. */
export type TraceContext = { readonly __brand: "TraceContext" };

export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** A started span: its context (for children and `within`), its traceparent, and its end. */
export interface TraceSpan {
  readonly context: TraceContext;
  /** This span as a traceparent header for the next process; undefined when it is not sampled. */
  readonly traceparent: string | undefined;
  setAttributes(attributes: SpanAttributes): void;
  /** Ends the span; with an error, marks it failed (the error's name only, never its message). */
  end(error?: unknown): void;
}

/** What a tracing SDK provides (apps/cli/src/tracing-sdk.ts builds one on OpenTelemetry). */
export interface TraceBackend {
  /** Starts a span under `parent`: a context, a traceparent header, or (undefined) the active one. */
  start(name: string, parent: TraceContext | string | undefined, attributes?: SpanAttributes): TraceSpan;
  /** The active context (the span a call runs inside). */
  active(): TraceContext;
  /** Runs `fn` with `context` active, so spans started inside it (and after its awaits) are its children. */
  within<T>(context: TraceContext, fn: () => T): T;
}

/** Operations whose later hops find their parent by a key (a record hash), at most this many. */
const REMEMBERED = 4096;

let backend: TraceBackend | undefined;
const remembered = new Map<string, TraceContext>();

/** Turns tracing on in this process. */
export function installTracing(installed: TraceBackend): void {
  backend = installed;
}

/** Turns tracing off again (tests; a process that stops its exporter). */
export function uninstallTracing(): void {
  backend = undefined;
  remembered.clear();
}

export function tracingOn(): boolean {
  return backend !== undefined;
}

/** Starts a span, or returns undefined when tracing is off. */
export function startSpan(
  name: string,
  parent?: TraceContext | string,
  attributes?: SpanAttributes,
): TraceSpan | undefined {
  if (backend === undefined) return undefined;
  return backend.start(name, parent, attributes);
}

/** The active context, to carry across a queue (undefined when off). */
export function activeTrace(): TraceContext | undefined {
  return backend?.active();
}

/** Runs `fn` inside `context` (or just runs it, when there is none). */
export function withinTrace<T>(context: TraceContext | undefined, fn: () => T): T {
  if (backend === undefined || context === undefined) return fn();
  return backend.within(context, fn);
}

/** Runs an async step as span `name`, ending it with the step's outcome; just the step when off. */
export function traced<T>(name: string, step: () => Promise<T>, attributes?: SpanAttributes): Promise<T> {
  if (backend === undefined) return step();
  const span = backend.start(name, undefined, attributes);
  return backend.within(span.context, step).then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      span.end(error);
      throw error;
    },
  );
}

/** Remembers `span` as the latest step of the operation `key`: its later hops hang under it. */
export function rememberSpan(key: string, span: TraceSpan): void {
  if (remembered.size >= REMEMBERED && !remembered.has(key)) {
    remembered.delete(remembered.keys().next().value as string);
  }
  remembered.delete(key);
  remembered.set(key, span.context);
}

/**
 * Starts span `name` as the next step of the operation `key` (a record hash), under its latest
 * remembered step; with `chain`, the new span becomes that latest step. Undefined when tracing is
 * off or nothing is remembered for `key` (a hop of an operation this process did not see begin).
 */
export function continueSpan(
  name: string,
  key: string | null | undefined,
  attributes?: SpanAttributes,
  chain = true,
): TraceSpan | undefined {
  if (backend === undefined || key === null || key === undefined) return undefined;
  const parent = remembered.get(key);
  if (parent === undefined) return undefined;
  const span = backend.start(name, parent, attributes);
  if (chain) rememberSpan(key, span);
  return span;
}
