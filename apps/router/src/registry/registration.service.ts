/**
 * Registration (SPEC §5, issue 13): a name belongs to the first key the router's admission lets
 * register it, and afterwards only that key links under it, until the router's operator withdraws
 * the name (`router agent withdraw`): a withdrawn name is retired, and no key registers it again.
 * A registration token is used in the same transaction that binds the name, so a token registers
 * exactly one name even when several routers share PostgreSQL, and a refused binding leaves the
 * token unused.
 */
import { createHash, randomBytes } from "node:crypto";
import { encodeBase64url, REGISTRATION_TOKEN_PATTERN, type AdmissionRefusal } from "@social-harness/protocol";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { RouterDatabase } from "../db/database.js";
import { loadAllowedKeys, type Admission } from "./admission.js";
import { findAgent, registerAgent } from "./registry.store.js";
import { findRegistrationToken, insertRegistrationToken, useRegistrationToken } from "./tokens.store.js";
import { findWithdrawal } from "./withdrawals.store.js";

export type Registration =
  | { readonly ok: true; readonly registered: "now" | "before" }
  | { readonly ok: false; readonly reason: "name-taken"; readonly detail: string }
  | {
      readonly ok: false;
      readonly reason: "not-admitted";
      readonly admission: AdmissionRefusal;
      readonly detail: string;
    };

export interface RegistrationRequest {
  readonly name: string;
  readonly publicKey: Uint8Array;
  readonly registrationToken?: string;
}

/** A fresh registration token: `sh_reg_` and 32 random bytes. */
export function mintRegistrationToken(): string {
  return `sh_reg_${encodeBase64url(randomBytes(32))}`;
}

/** What the router stores of a token: its SHA-256, so a copy of the database registers nothing. */
export function registrationTokenDigest(token: string): string {
  return encodeBase64url(createHash("sha256").update(token, "utf8").digest());
}

/** Issues a token that registers `name` (or any free name) until `expiresAt`. */
export async function issueRegistrationToken(
  db: Kysely<RouterDatabase>,
  options: { readonly name?: string; readonly expiresAt: number; readonly now: number },
): Promise<string> {
  const token = mintRegistrationToken();
  await insertRegistrationToken(db, {
    digest: registrationTokenDigest(token),
    name: options.name,
    createdAt: options.now,
    expiresAt: options.expiresAt,
  });
  return token;
}

const sameKey = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** Raised inside the binding transaction to undo a token's use when the name went to another key. */
class NameTaken extends Error {}

export class Registrar {
  constructor(
    private readonly deps: {
      readonly db: Kysely<RouterDatabase>;
      readonly admission: Admission;
      readonly log: Logger;
      readonly now: () => number;
    },
  ) {}

  get mode(): Admission["mode"] {
    return this.deps.admission.mode;
  }

  /** Links `name` to `publicKey` if it is registered to it, or registers it if admission allows. */
  async register(request: RegistrationRequest): Promise<Registration> {
    const holder = await findAgent(this.deps.db, request.name);
    if (holder !== undefined) {
      return sameKey(holder.publicKey, request.publicKey)
        ? { ok: true, registered: "before" }
        : this.taken(request.name);
    }
    // A withdrawn name is retired, whatever the admission: a new key under it would read the
    // history of the conversations it was a member of.
    const withdrawn = await findWithdrawal(this.deps.db, request.name);
    if (withdrawn !== undefined) {
      return this.refuse(
        "key-not-allowed",
        `the router's operator withdrew ${request.name} at ${new Date(withdrawn.withdrawnAt).toISOString()}; ` +
          "no key registers it again",
      );
    }
    const admission = this.deps.admission;
    switch (admission.mode) {
      case "open":
        return this.bind(request);
      case "keys":
        return this.bindListed(request, admission.allowedKeysFile);
      case "token":
        return this.bindWithToken(request);
    }
  }

  private taken(name: string): Registration {
    return { ok: false, reason: "name-taken", detail: `${name} is registered to another key` };
  }

  private refuse(admission: AdmissionRefusal, detail: string): Registration {
    return { ok: false, reason: "not-admitted", admission, detail };
  }

  private async bind(request: RegistrationRequest): Promise<Registration> {
    const holder = await registerAgent(this.deps.db, request, this.deps.now());
    return sameKey(holder.publicKey, request.publicKey) ? { ok: true, registered: "now" } : this.taken(request.name);
  }

  /** The file is read for every new name, so the operator's edits apply without a restart. */
  private async bindListed(request: RegistrationRequest, file: string): Promise<Registration> {
    let allowed: ReadonlyMap<string, Uint8Array>;
    try {
      allowed = loadAllowedKeys(file);
    } catch (error) {
      this.deps.log.error({ err: error }, "the allowed-keys file cannot be read; refusing new names");
      return this.refuse("key-not-allowed", "the router cannot read its allowed keys");
    }
    const listed = allowed.get(request.name);
    if (listed === undefined || !sameKey(listed, request.publicKey)) {
      return this.refuse(
        "key-not-allowed",
        `${request.name} with this key is not on the router's allowed keys: ` +
          `the operator adds "${request.name} ${encodeBase64url(request.publicKey)}"`,
      );
    }
    return this.bind(request);
  }

  /**
   * A revoked token's lifetime ended early: it answers `token-expired`, the reason every daemon
   * build knows, and the detail says the operator revoked it.
   */
  private revoked(revokedAt: number): Registration {
    return this.refuse(
      "token-expired",
      `the router's operator revoked the token at ${new Date(revokedAt).toISOString()}`,
    );
  }

  private async bindWithToken(request: RegistrationRequest): Promise<Registration> {
    const token = request.registrationToken;
    if (token === undefined || token === "") {
      return this.refuse("token-required", "this router registers new names only with a registration token");
    }
    if (!REGISTRATION_TOKEN_PATTERN.test(token)) return this.refuse("token-unknown", "not a registration token");
    const digest = registrationTokenDigest(token);
    const now = this.deps.now();
    const found = await findRegistrationToken(this.deps.db, digest);
    if (found === undefined) return this.refuse("token-unknown", "this router did not issue the token");
    if (found.usedAt !== undefined) return this.refuse("token-used", "the token registered a name already");
    if (found.revokedAt !== undefined) return this.revoked(found.revokedAt);
    if (found.expiresAt <= now) {
      return this.refuse("token-expired", `the token expired at ${new Date(found.expiresAt).toISOString()}`);
    }
    if (found.name !== undefined && found.name !== request.name) {
      return this.refuse("token-for-another-name", `the token registers ${found.name}, not ${request.name}`);
    }
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        if (!(await useRegistrationToken(trx, digest, request.name, now))) {
          const revokedAt = (await findRegistrationToken(trx, digest))?.revokedAt;
          if (revokedAt !== undefined) return this.revoked(revokedAt);
          return this.refuse("token-used", "the token registered a name already");
        }
        const holder = await registerAgent(trx, request, now);
        if (!sameKey(holder.publicKey, request.publicKey)) throw new NameTaken();
        return { ok: true, registered: "now" } as const;
      });
    } catch (error) {
      if (error instanceof NameTaken) return this.taken(request.name);
      throw error;
    }
  }
}
