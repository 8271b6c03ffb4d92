/**
 * The daemon's credentials (SPEC §12), generated on first start into the data directory with
 * mode 0600: `identity.key` (the ed25519 seed), `runtime.token` (hosts: MCP tools and events)
 * and `owner.token` (the owner API and owner diagnostics). Existing files are never rewritten.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import path from "node:path";
import { decodeBase64url, encodeBase64url, signingKeyFromSeed, type SigningKey } from "@social-harness/protocol";
import { readOrCreateSecret } from "./secret-file.js";

export interface Credentials {
  readonly key: SigningKey;
  readonly runtimeToken: string;
  readonly ownerToken: string;
}

export type Principal = "runtime" | "owner";

/** The agent's identity key from `identity.key`, created on first use. */
export function loadIdentityKey(dataDir: string): SigningKey {
  const seedText = readOrCreateSecret(path.join(dataDir, "identity.key"), () => encodeBase64url(randomBytes(32)));
  const seed = decodeBase64url(seedText);
  if (seed?.length !== 32) throw new Error(`${path.join(dataDir, "identity.key")} is not a 32-byte base64url seed`);
  return signingKeyFromSeed(seed);
}

export function loadCredentials(dataDir: string): Credentials {
  const token = () => `sh_${encodeBase64url(randomBytes(32))}`;
  return {
    key: loadIdentityKey(dataDir),
    runtimeToken: readOrCreateSecret(path.join(dataDir, "runtime.token"), token),
    ownerToken: readOrCreateSecret(path.join(dataDir, "owner.token"), token),
  };
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The principal a bearer token names, compared in constant time; undefined for any other. */
export function principalOf(credentials: Credentials, authorization: string | undefined): Principal | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
  if (match === null) return undefined;
  const token = match[1]!;
  if (sameSecret(token, credentials.runtimeToken)) return "runtime";
  if (sameSecret(token, credentials.ownerToken)) return "owner";
  return undefined;
}
