/**
 * One hardened callback POST (mcp-events.md §9.3, seed 004's dial-time validator): the host is
 * resolved at dial time and only addresses that pass the checker are dialled, through a custom
 * `lookup` on a fresh connection, keeping the original Host header and TLS server name. Redirects
 * are returned as responses, never followed. Each attempt has a deadline and honours an AbortSignal.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
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

export class CallbackClient implements CallbackSender {
  private readonly lookup: LookupFunction;

  constructor(
    private readonly policy: AddressPolicy,
    resolve: Resolver = systemResolver,
  ) {
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

  post(request: CallbackRequest): Promise<CallbackOutcome> {
    const url = new URL(request.url);
    const secure = url.protocol === "https:";
    if (!secure && !(url.protocol === "http:" && this.policy.allowLocal)) {
      return Promise.resolve({ kind: "failure", category: "connection_refused", detail: "scheme not allowed" });
    }
    const host = hostOf(url);
    const literal = isIP(host) !== 0;
    if (literal) {
      const verdict = checkAddress(host, this.policy);
      if (!verdict.ok) {
        return Promise.resolve({ kind: "failure", category: "connection_refused", detail: `refused ${verdict.range}` });
      }
    }
    if (request.signal?.aborted === true) return Promise.resolve({ kind: "cancelled" });

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), request.timeoutMs);
    const signals = request.signal === undefined ? [deadline.signal] : [deadline.signal, request.signal];
    const options: https.RequestOptions = {
      method: "POST",
      hostname: host,
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: { ...request.headers, "content-length": String(request.body.length) },
      // A fresh connection per attempt, so every dial resolves and checks the host again.
      agent: false,
      signal: AbortSignal.any(signals),
      ...(literal ? {} : { lookup: this.lookup }),
      ...(secure && !literal ? { servername: host } : {}),
    };

    return new Promise<CallbackOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: CallbackOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const fail = (error: unknown) => {
        if (request.signal?.aborted === true && !deadline.signal.aborted) settle({ kind: "cancelled" });
        else settle(classify(error, deadline.signal.aborted));
      };
      const req = (secure ? https : http).request(options, (res) => {
        const status = res.statusCode ?? 0;
        res.on("error", fail);
        const limit = request.readBodyBytes;
        if (limit === undefined) {
          settle({ kind: "response", status });
          res.destroy();
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
      req.on("error", fail);
      req.end(request.body);
    });
  }
}
