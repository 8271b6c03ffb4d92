/**
 * The owner's firewall policy (SPEC §10): validated by its schema, stored as numbered revisions
 * with time and author, and compiled once per revision. The owner API is the authority; a policy
 * file given at start is applied as a new revision when it differs, and the log says so. An API
 * key file must be owner-only (mode 0600); its contents are read here and never logged or returned.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import type { DaemonStore } from "../db/database.js";
import { compilePolicy, type Assessment, type CompiledPolicy } from "./engine.js";
import { NO_POLICY, readPolicy, type FirewallPolicy, type PolicyIssue } from "./policy.schema.js";
import { insertRevision, latestRevision, listRevisions } from "./policy.store.js";
import { InboundClock } from "./rate.middleware.js";
import { canonicalJson } from "../canonical-json.js";

/** A policy the owner tried to set, refused with each invalid field named. */
export class FirewallPolicyError extends Error {
  override readonly name = "FirewallPolicyError";
  constructor(readonly issues: readonly PolicyIssue[]) {
    super(`the policy is invalid: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
  }
}

export interface PolicyRevision {
  readonly revision: number;
  readonly author: string;
  readonly createdAt: number;
  readonly mode: FirewallPolicy["mode"];
}

/**
 * What runs when the stored revision no longer validates (a pattern a newer engine refuses, issue
 * 23): every check is held, in the stored mode, until the owner sets a policy. Security checks deny
 * on failure; a firewall that silently switched off would be a pass.
 */
function failClosed(stored: unknown): FirewallPolicy {
  const mode = (stored as { mode?: unknown } | null)?.mode;
  if (mode !== "enforce" && mode !== "guidance") return NO_POLICY;
  return {
    mode,
    middlewares: [
      {
        id: "stored-policy-invalid",
        kind: "rules",
        rules: [
          {
            id: "hold-everything",
            direction: "both",
            match: {},
            decision: "hold",
            instruction: "The stored firewall policy no longer validates; the owner must set it again.",
          },
        ],
      },
    ],
  };
}

export class FirewallPolicies {
  private compiled: CompiledPolicy;
  /** When an inbound item last arrived (the loop guard), kept across revisions. */
  readonly clock = new InboundClock();

  constructor(
    private readonly store: DaemonStore,
    private readonly dataDir: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    private readonly observe?: (assessment: Assessment) => void,
  ) {
    this.compiled = this.compile(0, NO_POLICY, new Map());
  }

  private compile(revision: number, policy: FirewallPolicy, apiKeys: ReadonlyMap<string, string>): CompiledPolicy {
    return compilePolicy(revision, policy, { apiKeys, clock: this.clock, now: this.now, observe: this.observe });
  }

  /** Loads the newest revision (startup). */
  async load(): Promise<void> {
    const latest = await latestRevision(this.store.db);
    if (latest === undefined) return;
    const read = this.validate(JSON.parse(latest.policy));
    if (!read.ok) {
      // A stored revision whose key file has gone away: keep it, judge without the key.
      this.log.error(
        { revision: latest.revision, issues: read.issues },
        "the stored firewall policy no longer validates",
      );
      const parsed = readPolicy(JSON.parse(latest.policy));
      if (parsed.ok) this.compiled = this.compile(latest.revision, parsed.policy, new Map());
      else this.compiled = this.compile(latest.revision, failClosed(JSON.parse(latest.policy)), new Map());
      return;
    }
    this.compiled = this.compile(latest.revision, read.policy, read.apiKeys);
  }

  /** The compiled current revision (revision 0: no policy, mode off). */
  get current(): CompiledPolicy {
    return this.compiled;
  }

  get(): { policy: FirewallPolicy; revision: number } {
    return { policy: this.compiled.policy, revision: this.compiled.revision };
  }

  /**
   * Checks a document as a policy, including its API key files; the keys it read are returned
   * beside it and never leave this module otherwise.
   */
  validate(
    document: unknown,
  ): { ok: true; policy: FirewallPolicy; apiKeys: Map<string, string> } | { ok: false; issues: PolicyIssue[] } {
    const read = readPolicy(document);
    if (!read.ok) return read;
    const issues: PolicyIssue[] = [];
    const apiKeys = new Map<string, string>();
    for (const [i, middleware] of read.policy.middlewares.entries()) {
      if (middleware.kind !== "model" || middleware.apiKeyFile === undefined) continue;
      const at = `middlewares.${i}.apiKeyFile`;
      const file = path.resolve(this.dataDir, middleware.apiKeyFile);
      try {
        const stat = statSync(file);
        if (!stat.isFile()) issues.push({ path: at, message: "is not a file" });
        else if ((stat.mode & 0o077) !== 0)
          issues.push({ path: at, message: "must be readable by its owner only (chmod 600)" });
        else {
          const key = readFileSync(file, "utf8").trim();
          if (key.length === 0) issues.push({ path: at, message: "is empty" });
          else apiKeys.set(middleware.id, key);
        }
      } catch {
        issues.push({ path: at, message: "cannot be read" });
      }
    }
    return issues.length > 0 ? { ok: false, issues } : { ok: true, policy: read.policy, apiKeys };
  }

  /** Stores `document` as a new revision and makes it current; an invalid one changes nothing. */
  async set(document: unknown, author: string): Promise<{ revision: number }> {
    const read = this.validate(document);
    if (!read.ok) throw new FirewallPolicyError(read.issues);
    const revision = await insertRevision(this.store.db, {
      policy: JSON.stringify(read.policy),
      author,
      createdAt: this.now(),
    });
    this.compiled = this.compile(revision, read.policy, read.apiKeys);
    this.log.info({ revision, author, mode: read.policy.mode }, "firewall policy set");
    return { revision };
  }

  /** `--firewall-policy <file>`: applied as a new revision when it differs from the current one. */
  async applyFile(file: string): Promise<{ revision: number; changed: boolean }> {
    let document: unknown;
    try {
      document = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new Error(`--firewall-policy ${file} is not a readable JSON file`, { cause: error });
    }
    const read = readPolicy(document);
    if (read.ok && canonicalJson(read.policy) === canonicalJson(this.compiled.policy) && this.compiled.revision > 0) {
      this.log.info(
        { file, revision: this.compiled.revision },
        "the firewall policy file matches the current revision",
      );
      return { revision: this.compiled.revision, changed: false };
    }
    const { revision } = await this.set(document, `file:${path.resolve(file)}`);
    this.log.info({ file, revision }, "applied the firewall policy file as a new revision");
    return { revision, changed: true };
  }

  async revisions(limit = 50): Promise<PolicyRevision[]> {
    return (await listRevisions(this.store.db, limit)).map((row) => ({
      revision: row.revision,
      author: row.author,
      createdAt: row.createdAt,
      mode: (JSON.parse(row.policy) as FirewallPolicy).mode,
    }));
  }
}
