/**
 * One hardened callback POST (mcp-events.md §9.3, seed 004's dial-time validator): the host is
 * resolved when each connection is dialled and only addresses that pass the checker are dialled,
 * through a custom `lookup`, keeping the original Host header and TLS server name. Connections to
 * an origin are kept alive and reused (a TLS handshake costs more than a delivery), for a bounded
 * idle time and age, so a changed DNS answer is seen within a minute and every socket ever used
 * was dialled to a checked address. Redirects are returned as responses, never followed. Each
 * attempt has a deadline and honours an AbortSignal.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { Duplex } from "node:stream";
import { checkAddress, hostOf, type AddressPolicy } from "./callback-address.js";
import type { FailureCategory } from "./webhooks.schema.js";

export interface CallbackRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly timeoutMs: number;
  /** Aborts the attempt (shutdown, revocation); the outcome is then `cancelled`. */
  readonly signal?: AbortSignal;
  /** Read up to this many bytes of the response body (verification); otherwise only the status. */
  readonly readBodyBytes?: number;
}

export type TransportFailure = Extract<FailureCategory, "connection_refused" | "timeout" | "tls_error">;

export type CallbackOutcome =
  | { readonly kind: "response"; readonly status: number; readonly body?: Buffer }
  | { readonly kind: "failure"; readonly category: TransportFailure; readonly detail: string }
  | { readonly kind: "cancelled" };

/** What the delivery engine and the verification challenge need from the network. */
export interface CallbackSender {
  post(request: CallbackRequest): Promise<CallbackOutcome>;
}

/** Resolves a host name to every address it has (dial-time DNS). */
export type Resolver = (host: string) => Promise<readonly LookupAddress[]>;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

const REFUSED_DESTINATION = "ERR_CALLBACK_DESTINATION";

/** How long a connection to a receiver may be kept for the next attempt. */
export interface ConnectionReuse {
  /** A kept connection idle this long is closed (default 15 s). */
  readonly idleMs: number;
  /** A connection this old is closed after its current attempt instead of being kept (default 60 s). */
  readonly maxAgeMs: number;
}

const DEFAULT_REUSE: ConnectionReuse = { idleMs: 15_000, maxAgeMs: 60_000 };

/** A response body longer than this is not drained for reuse; its connection is closed instead. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/** Errors that mean a kept connection was closed by the receiver before it read our request. */
const STALE_SOCKET_CODES: ReadonlySet<string> = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

const TLS_CODES =
  /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|EPROTO$|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$)/;

function classify(error: unknown, timedOut: boolean): CallbackOutcome {
  if (timedOut) return { kind: "failure", category: "timeout", detail: "the attempt's deadline passed" };
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "";
  const detail = code === "" ? String((error as Error | undefined)?.message ?? error) : code;
  if (code === "ETIMEDOUT") return { kind: "failure", category: "timeout", detail };
  if (TLS_CODES.test(code)) return { kind: "failure", category: "tls_error", detail };
  return { kind: "failure", category: "connection_refused", detail };
}

/**
 * A callback URL parsed and checked: the request options it dials with and its Host header (the
 * URL's host, port included unless it is the scheme's default), or its refusal.
 */
type Target =
  | { readonly kind: "target"; readonly secure: boolean; readonly options: https.RequestOptions; readonly host: string }
  | Extract<CallbackOutcome, { readonly kind: "failure" }>;

/** How many parsed URLs a client keeps (a daemon has a few registrations; more are parsed again). */
const TARGETS_KEPT = 64;

function parseTarget(
  url: URL,
  policy: AddressPolicy,
  agents: { readonly http: http.Agent; readonly https: https.Agent },
  lookup: LookupFunction,
): Target {
  const secure = url.protocol === "https:";
  if (!secure && !(url.protocol === "http:" && policy.allowLocal)) {
    return { kind: "failure", category: "connection_refused", detail: "scheme not allowed" };
  }
  const host = hostOf(url);
  const literal = isIP(host) !== 0;
  if (literal) {
    const verdict = checkAddress(host, policy);
    if (!verdict.ok) return { kind: "failure", category: "connection_refused", detail: `refused ${verdict.range}` };
  }
  const options: https.RequestOptions = {
    method: "POST",
    hostname: host,
    port: url.port === "" ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    agent: secure ? agents.https : agents.http,
    ...(literal ? {} : { lookup }),
    ...(secure && !literal ? { servername: host } : {}),
  };
  return { kind: "target", secure, options, host: url.host };
}

export class CallbackClient implements CallbackSender {
  private readonly lookup: LookupFunction;
  private readonly reuse: ConnectionReuse;
  private readonly agents: { readonly http: http.Agent; readonly https: https.Agent };
  /** When each connection was dialled, for the age limit. */
  private readonly born = new WeakMap<Duplex, number>();
  private readonly targets = new Map<string, Target>();

  constructor(
    private readonly policy: AddressPolicy,
    resolve: Resolver = systemResolver,
    reuse: Partial<ConnectionReuse> = {},
  ) {
    this.reuse = { ...DEFAULT_REUSE, ...reuse };
    const pool = { keepAlive: true, maxFreeSockets: 4, timeout: this.reuse.idleMs, scheduling: "lifo" as const };
    const born = this.born;
    this.agents = {
      http: stampingDials(new http.Agent(pool), born),
      https: stampingDials(new https.Agent(pool), born),
    };
    // A connection past its age is closed when it comes free rather than kept for the next attempt.
    for (const agent of [this.agents.http, this.agents.https]) {
      agent.on("free", (socket: Duplex) => {
        if (Date.now() - (born.get(socket) ?? 0) >= this.reuse.maxAgeMs) socket.destroy();
      });
    }
    // Called by node:net for every new connection; `all` is set when Node races address families.
    this.lookup = (hostname, options, callback) => {
      resolve(hostname).then(
        (addresses) => {
          const family = options.family === 4 || options.family === 6 ? options.family : undefined;
          const allowed = addresses.filter(
            (a) => (family === undefined || a.family === family) && checkAddress(a.address, this.policy).ok,
          );
          if (allowed.length === 0) {
            const refused = Object.assign(new Error(`${hostname} resolves to no publicly routable address`), {
              code: REFUSED_DESTINATION,
            });
            callback(refused, "", 0);
            return;
          }
          if (options.all === true) callback(null, allowed);
          else callback(null, allowed[0]!.address, allowed[0]!.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, "", 0),
      );
    };
  }

  /** Where a URL sends, or why it may not: a pure function of the URL and the policy, so kept per URL. */
  private targetOf(url: string): Target {
    const kept = this.targets.get(url);
    if (kept !== undefined) return kept;
    if (this.targets.size >= TARGETS_KEPT) this.targets.clear();
    const target = parseTarget(new URL(url), this.policy, this.agents, this.lookup);
    this.targets.set(url, target);
    return target;
  }

  post(request: CallbackRequest): Promise<CallbackOutcome> {
    const target = this.targetOf(request.url);
    if (target.kind === "failure") return Promise.resolve(target);
    if (request.signal?.aborted === true) return Promise.resolve({ kind: "cancelled" });
    // The headers as a flat list of names and values: Node writes such a list as it is (still
    // validating every name and value) instead of setting each header on the request one by one.
    const headers = ["host", target.host, "content-length", String(request.body.length)];
    for (const name in request.headers) {
      if (name !== "host" && name !== "content-length") headers.push(name, request.headers[name]!);
    }
    const options: https.RequestOptions = { ...target.options, headers };
    const transport = target.secure ? https : http;

    return new Promise<CallbackOutcome>((resolve) => {
      // The deadline and the caller's signal each destroy the request in flight. (Not a composed
      // AbortSignal passed to the request: AbortSignal.any and the request's abort listener cost
      // about a tenth of a delivery's CPU.) Once the status line has settled the attempt, the same
      // timer, started again, bounds the drain of the response's body.
      let settled = false;
      let timedOut = false;
      let current: http.ClientRequest | undefined;
      const cancel = () => current?.destroy(new Error("the attempt was cancelled"));
      const timer = setTimeout(() => {
        timedOut = true;
        current?.destroy(new Error("the attempt's deadline passed"));
      }, request.timeoutMs);
      request.signal?.addEventListener("abort", cancel, { once: true });
      const settle = (outcome: CallbackOutcome, draining = false) => {
        if (settled) return;
        settled = true;
        if (draining) timer.refresh();
        else clearTimeout(timer);
        request.signal?.removeEventListener("abort", cancel);
        resolve(outcome);
      };
      const fail = (error: unknown) => {
        if (request.signal?.aborted === true && !timedOut) settle({ kind: "cancelled" });
        else settle(classify(error, timedOut));
      };
      const send = (retryStale: boolean) => {
        let answered = false;
        const req = transport.request(options, (res) => {
          answered = true;
          const status = res.statusCode ?? 0;
          res.on("error", fail);
          const limit = request.readBodyBytes;
          if (limit === undefined) {
            settle({ kind: "response", status }, true);
            drain(res, timer);
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > limit) {
              settle({ kind: "response", status });
              res.destroy();
              return;
            }
            chunks.push(chunk);
          });
          res.on("end", () => settle({ kind: "response", status, body: Buffer.concat(chunks) }));
          res.on("close", () => {
            if (!res.complete) fail(new Error("the response ended early"));
          });
        });
        current = req;
        req.on("error", (error: NodeJS.ErrnoException) => {
          // A kept connection the receiver closed while it sat idle: the request never reached
          // it, so send once more on a fresh connection rather than count a failed attempt.
          const stale = retryStale && req.reusedSocket && !answered && STALE_SOCKET_CODES.has(error.code ?? "");
          if (stale && !settled && !timedOut && request.signal?.aborted !== true) send(false);
          else fail(error);
        });
        req.end(request.body);
      };
      send(true);
    });
  }

  /** Closes every kept connection (daemon shutdown). */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

/**
 * Reads a response's remaining body in the background so its connection can carry the next
 * attempt; a body longer than the drain limit closes the connection instead, and so does the
 * attempt's `timer` (started again when the status settled it) if the body is still arriving when
 * it fires. The attempt was settled on the status line, so a receiver that trickles its body holds
 * no delivery up.
 */
function drain(res: http.IncomingMessage, timer: NodeJS.Timeout): void {
  let size = 0;
  res.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > DRAIN_LIMIT_BYTES) res.destroy();
  });
  res.on("close", () => clearTimeout(timer));
  res.on("error", () => {});
}

/** `agent`, with each connection it dials stamped in `born` with the time it was dialled. */
function stampingDials<A extends http.Agent>(agent: A, born: WeakMap<Duplex, number>): A {
  const dial = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = dial(options, callback);
    if (socket) born.set(socket, Date.now());
    return socket;
  };
  return agent;
}
