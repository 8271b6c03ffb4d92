/**
 * ed25519 identities and signatures. Signing and verifying run in libsodium (the sodium-native
 * addon, prebuilt for glibc Linux, macOS and Windows) and fall back to Node's OpenSSL where the
 * addon does not load (a musl container, say); both give the same RFC 8032 bytes. libsodium costs
 * half of OpenSSL here: OpenSSL 3 computes ed25519 in 25.5-bit limbs and builds an EVP context on
 * every call (docs/decisions.md "ed25519 in libsodium"). SOCIAL_HARNESS_ED25519=openssl chooses
 * OpenSSL, for comparisons. @noble/ed25519 decides which public keys are acceptable: a key must
 * decode as a curve point and must not have small order, because a small-order key lets one forged
 * signature verify for every message (SPEC §3a).
 */
import { createRequire } from "node:module";
import { createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from "node:crypto";
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";

ed.hashes.sha512 = sha512;

const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export const PUBLIC_KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;

/** An identity: the 32-byte RFC 8032 seed and its public key, with what signs for it. */
export interface SigningKey {
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

/** One implementation of ed25519: keys from a seed, and verification (lengths checked by the caller). */
export interface Ed25519 {
  readonly name: "libsodium" | "openssl";
  signer(seed: Uint8Array): { readonly publicKey: Uint8Array; readonly sign: (message: Uint8Array) => Uint8Array };
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
}

/** The few sodium-native functions used here (its own package has no types). */
interface Sodium {
  crypto_sign_seed_keypair(publicKey: Uint8Array, secretKey: Uint8Array, seed: Uint8Array): void;
  crypto_sign_detached(signature: Uint8Array, message: Uint8Array, secretKey: Uint8Array): void;
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}

/** libsodium: no per-call context, 51-bit limbs; refuses small-order keys and R, non-canonical keys and S. */
function libsodiumEd25519(sodium: Sodium): Ed25519 {
  return {
    name: "libsodium",
    signer(seed) {
      const publicKey = new Uint8Array(PUBLIC_KEY_BYTES);
      const secretKey = new Uint8Array(64);
      sodium.crypto_sign_seed_keypair(publicKey, secretKey, seed);
      const sign = (message: Uint8Array) => {
        const signature = new Uint8Array(SIGNATURE_BYTES);
        sodium.crypto_sign_detached(signature, message, secretKey);
        return signature;
      };
      return { publicKey, sign };
    },
    verify: (publicKey, message, signature) => sodium.crypto_sign_verify_detached(signature, message, publicKey),
  };
}

const publicKeyCache = new Map<string, KeyObject>();
const PUBLIC_KEY_CACHE_LIMIT = 10_000;

function nativePublicKey(publicKey: Uint8Array): KeyObject {
  const cacheKey = Buffer.from(publicKey).toString("base64");
  let key = publicKeyCache.get(cacheKey);
  if (key === undefined) {
    key = createPublicKey({
      key: Buffer.concat([SPKI_PREFIX, publicKey]),
      format: "der",
      type: "spki",
    });
    if (publicKeyCache.size >= PUBLIC_KEY_CACHE_LIMIT) publicKeyCache.clear();
    publicKeyCache.set(cacheKey, key);
  }
  return key;
}

/** Node's OpenSSL, with cached KeyObjects. */
export const openSslEd25519: Ed25519 = {
  name: "openssl",
  signer(seed) {
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
    const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
    return {
      publicKey: new Uint8Array(spki.subarray(SPKI_PREFIX.length)),
      sign: (message) => new Uint8Array(sign(null, message, privateKey)),
    };
  },
  verify: (publicKey, message, signature) => verify(null, message, nativePublicKey(publicKey), signature),
};

const loadSodium = () => createRequire(import.meta.url)("sodium-native") as Sodium;

/**
 * libsodium if the addon loads, else Node's OpenSSL; SOCIAL_HARNESS_ED25519=openssl chooses
 * OpenSSL whatever loads (comparisons, and the mixed-network test).
 */
export function chooseEd25519(env: NodeJS.ProcessEnv = process.env, load: () => Sodium = loadSodium): Ed25519 {
  if (env.SOCIAL_HARNESS_ED25519 === "openssl") return openSslEd25519;
  try {
    return libsodiumEd25519(load());
  } catch {
    return openSslEd25519;
  }
}

/** The implementation this process signs and verifies with. */
export const ed25519: Ed25519 = chooseEd25519();

export function signingKeyFromSeed(seed: Uint8Array): SigningKey {
  if (seed.byteLength !== 32) throw new RangeError("an ed25519 seed is 32 bytes");
  const { publicKey, sign } = ed25519.signer(seed);
  return { seed: new Uint8Array(seed), publicKey, sign };
}

export function generateSigningKey(): SigningKey {
  return signingKeyFromSeed(randomBytes(32));
}

export type PublicKeyCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Accepts only a canonical encoding of a curve point that does not have small order. */
export function checkPublicKey(publicKey: Uint8Array): PublicKeyCheck {
  if (publicKey.byteLength !== PUBLIC_KEY_BYTES) return { ok: false, reason: "not 32 bytes" };
  let point: ed.Point;
  try {
    point = ed.Point.fromBytes(publicKey, false);
  } catch {
    return { ok: false, reason: "not a point on the curve" };
  }
  if (point.isSmallOrder()) return { ok: false, reason: "a small-order point" };
  return { ok: true };
}

/**
 * Verifies a signature. Callers must have accepted `publicKey` with checkPublicKey first (keys
 * reach a verifier only through registration or pinning, which both check it).
 */
export function verifySignature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.byteLength !== PUBLIC_KEY_BYTES || signature.byteLength !== SIGNATURE_BYTES) {
    return false;
  }
  try {
    return ed25519.verify(publicKey, message, signature);
  } catch {
    return false;
  }
}

/** RFC 8032 verification in pure JS, strict (not ZIP-215); used to cross-check the native path. */
export function verifySignatureStrict(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return ed.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/** Prefixes a domain separator so a signature for one purpose never verifies for another. */
export function domainMessage(domain: string, ...parts: Uint8Array[]): Uint8Array {
  return Buffer.concat([Buffer.from(`${domain}\0`, "utf8"), ...parts]);
}
