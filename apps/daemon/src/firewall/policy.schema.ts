/**
 * The firewall policy language (SPEC §10, docs/firewall.md): one JSON document per daemon, checked
 * by this schema. Errors name each field (`middlewares.0.rules.1.decision: …`) so the owner can fix
 * a draft in place. The policy decides; it never changes a peer's message.
 */
import { isAgentAddress, isAgentName, MAX_GROUP_MEMBERS, MIN_GROUP_MEMBERS, sortNames } from "@social-harness/protocol";
import * as z from "zod";
import { compilePattern } from "./linear-pattern.js";

export const FIREWALL_MODES = ["off", "guidance", "enforce"] as const;
export type FirewallMode = (typeof FIREWALL_MODES)[number];

/** The item kinds a rule can match; `answer` is a peer's answer to a gather or all_gather. */
export const SUBJECT_KINDS = ["multicast", "collectiveRequest", "collectiveResult", "answer"] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

export const EXPECTATIONS = ["required", "permitted", "wait", "none"] as const;

const id = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "must be 1-64 letters, digits, _ . - (starting with a letter or digit)");
const instruction = z.string().min(1, "must say what the model should do").max(2000, "must be at most 2000 characters");
const direction = z.enum(["inbound", "outbound", "both"]);

const FLAGS = /^[imsu]*$/;
const TextMatch = z
  .strictObject({
    pattern: z.string().min(1).max(1000, "must be at most 1000 characters"),
    flags: z.string().regex(FLAGS, "takes only the flags i, m, s and u").optional(),
  })
  .superRefine((value, ctx) => {
    try {
      new RegExp(value.pattern, value.flags);
    } catch (error) {
      ctx.addIssue({
        code: "custom",
        path: ["pattern"],
        message: `is not a regular expression: ${(error as Error).message}`,
      });
      return;
    }
    // Only what the linear-time engine runs (docs/firewall.md "Patterns"): a peer's text meets it.
    const compiled = compilePattern(value.pattern, value.flags ?? "");
    if (!compiled.ok) ctx.addIssue({ code: "custom", path: ["pattern"], message: compiled.message });
  });

const agentAddress = z.string().refine(isAgentAddress, "must be an agent: address");
/**
 * A conversation address: agent:<name> (the direct conversation), a group, or group:* / agent:*.
 * A group lists every member, this agent included; it is stored in canonical (sorted) order, the
 * order subjects carry, so `group:zed,bob,amy` matches the conversation `group:amy,bob,zed`.
 */
const conversationAddress = z
  .string()
  .superRefine((v: string, ctx) => {
    if (v === "group:*" || v === "agent:*") return;
    if (v.startsWith("agent:")) {
      const name = v.slice("agent:".length);
      if (!isAgentName(name))
        ctx.addIssue({ code: "custom", message: `names ${JSON.stringify(name)}, not an agent name` });
      return;
    }
    if (!v.startsWith("group:")) {
      ctx.addIssue({ code: "custom", message: "must be agent:<name>, group:<names>, group:* or agent:*" });
      return;
    }
    const names = v.slice("group:".length).split(",");
    const bad = names.find((n) => !isAgentName(n));
    if (bad !== undefined) ctx.addIssue({ code: "custom", message: `names ${JSON.stringify(bad)}, not an agent name` });
    else if (new Set(names).size !== names.length) ctx.addIssue({ code: "custom", message: "names a member twice" });
    else if (names.length < MIN_GROUP_MEMBERS || names.length > MAX_GROUP_MEMBERS)
      ctx.addIssue({
        code: "custom",
        message: `a group lists every member, this agent included (${MIN_GROUP_MEMBERS} to ${MAX_GROUP_MEMBERS})`,
      });
  })
  .transform((v) =>
    v.startsWith("group:") && v !== "group:*" ? `group:${sortNames(v.slice(6).split(",")).join(",")}` : v,
  );

export const MatchSchema = z.strictObject({
  from: z.array(agentAddress).min(1).optional(),
  to: z.array(conversationAddress).min(1).optional(),
  kinds: z.array(z.enum(SUBJECT_KINDS)).min(1).optional(),
  text: TextMatch.optional(),
});

const RuleSchema = z
  .strictObject({
    id,
    direction,
    match: MatchSchema.default({}),
    decision: z.enum(["allow", "hold", "refuse"]),
    expectation: z.enum(EXPECTATIONS).optional(),
    instruction,
  })
  .superRefine((rule, ctx) => {
    if (rule.decision === "refuse" && rule.direction !== "outbound")
      ctx.addIssue({
        code: "custom",
        path: ["decision"],
        message: "refuse applies to outbound rules only; hold inbound items",
      });
    if (rule.expectation !== undefined && rule.decision !== "allow")
      ctx.addIssue({ code: "custom", path: ["expectation"], message: "only an allow rule carries an expectation" });
  });

const ModelRuleSchema = z
  .strictObject({
    id,
    direction,
    match: MatchSchema.default({}),
    norm: z.string().min(1, "must state the question the judge answers").max(2000),
    choices: z.array(z.string().min(1).max(64)).min(2, "must offer at least two choices").max(8),
    violating: z.string(),
    decideAt: z.number().min(0).max(1),
    uncertainAt: z.number().min(0).max(1),
    decision: z.enum(["hold", "refuse"]),
    instruction,
  })
  .superRefine((rule, ctx) => {
    if (!rule.choices.includes(rule.violating))
      ctx.addIssue({ code: "custom", path: ["violating"], message: "must be one of the rule's choices" });
    if (new Set(rule.choices).size !== rule.choices.length)
      ctx.addIssue({ code: "custom", path: ["choices"], message: "must not repeat a choice" });
    if (rule.uncertainAt > rule.decideAt)
      ctx.addIssue({ code: "custom", path: ["uncertainAt"], message: "must not be above decideAt" });
    if (rule.decision === "refuse" && rule.direction !== "outbound")
      ctx.addIssue({
        code: "custom",
        path: ["decision"],
        message: "refuse applies to outbound rules only; hold inbound items",
      });
  });

const RateRuleSchema = z
  .strictObject({
    id,
    direction,
    match: MatchSchema.default({}),
    per: z.enum(["sender", "conversation", "loop"]),
    max: z.number().int().min(1).max(1_000_000),
    windowSeconds: z.number().int().min(1).max(86_400),
    /** For `per: "loop"`: a send counts as a reply when it follows an inbound item this soon. */
    replySeconds: z.number().int().min(1).max(3_600).optional(),
    decision: z.enum(["hold", "refuse"]),
    instruction,
  })
  .superRefine((rule, ctx) => {
    if (rule.per === "loop" && rule.direction !== "outbound")
      ctx.addIssue({
        code: "custom",
        path: ["direction"],
        message: "a loop guard counts this agent's replies: outbound",
      });
    if (rule.per !== "loop" && rule.replySeconds !== undefined)
      ctx.addIssue({ code: "custom", path: ["replySeconds"], message: "applies to per: loop only" });
    if (rule.decision === "refuse" && rule.direction !== "outbound")
      ctx.addIssue({
        code: "custom",
        path: ["decision"],
        message: "refuse applies to outbound rules only; hold inbound items",
      });
  });

/**
 * What a middleware decides when it fails or spends its budget (docs/firewall.md "Budgets"): hold
 * when absent. Optional on rules and rate middlewares so a policy reads back as it was written.
 */
const onError = z.enum(["hold", "allow"]).optional();

const RulesMiddlewareSchema = z.strictObject({
  id,
  kind: z.literal("rules"),
  onError,
  rules: z.array(RuleSchema).max(200),
});

const ModelMiddlewareSchema = z.strictObject({
  id,
  kind: z.literal("model"),
  endpoint: z
    .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
    .refine((v) => !v.endsWith("/chat/completions"), "is the base URL; the daemon adds /chat/completions"),
  model: z.string().min(1).max(200),
  /** A file of the daemon's data directory (or an absolute path) holding the API key; mode 0600. */
  apiKeyFile: z.string().min(1).max(4096).optional(),
  timeoutMs: z.number().int().min(100).max(120_000).default(4000),
  concurrency: z.number().int().min(1).max(64).default(4),
  onError: z.enum(["hold", "allow"]).default("hold"),
  rules: z.array(ModelRuleSchema).min(1).max(32),
});

const RateMiddlewareSchema = z.strictObject({
  id,
  kind: z.literal("rate"),
  onError,
  rules: z.array(RateRuleSchema).min(1).max(64),
});

export const MiddlewareSchema = z.discriminatedUnion("kind", [
  RulesMiddlewareSchema,
  ModelMiddlewareSchema,
  RateMiddlewareSchema,
]);

export const FirewallPolicySchema = z
  .strictObject({
    mode: z.enum(FIREWALL_MODES),
    middlewares: z.array(MiddlewareSchema).max(32).default([]),
  })
  .superRefine((policy, ctx) => {
    const seen = new Set<string>();
    for (const [i, middleware] of policy.middlewares.entries()) {
      if (seen.has(middleware.id))
        ctx.addIssue({
          code: "custom",
          path: ["middlewares", i, "id"],
          message: `repeats the middleware id ${middleware.id}`,
        });
      seen.add(middleware.id);
      const rules = new Set<string>();
      for (const [j, rule] of middleware.rules.entries()) {
        if (rules.has(rule.id))
          ctx.addIssue({
            code: "custom",
            path: ["middlewares", i, "rules", j, "id"],
            message: `repeats the rule id ${rule.id}`,
          });
        rules.add(rule.id);
      }
    }
  });

export type FirewallPolicy = z.output<typeof FirewallPolicySchema>;
export type Middleware = FirewallPolicy["middlewares"][number];
export type RulesMiddleware = Extract<Middleware, { kind: "rules" }>;
export type ModelMiddleware = Extract<Middleware, { kind: "model" }>;
export type RateMiddleware = Extract<Middleware, { kind: "rate" }>;
export type Match = z.output<typeof MatchSchema>;
export type Direction = "inbound" | "outbound";

/** The policy of a daemon that has none: nothing is checked. */
export const NO_POLICY: FirewallPolicy = { mode: "off", middlewares: [] };

export interface PolicyIssue {
  readonly path: string;
  readonly message: string;
}

export type PolicyRead =
  { readonly ok: true; readonly policy: FirewallPolicy } | { readonly ok: false; readonly issues: PolicyIssue[] };

/** Reads a policy document; every problem is named by its field path. */
export function readPolicy(document: unknown): PolicyRead {
  const parsed = FirewallPolicySchema.safeParse(document);
  if (parsed.success) return { ok: true, policy: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((issue) => ({
      path: issue.path.length === 0 ? "(policy)" : issue.path.join("."),
      message: issue.message,
    })),
  };
}

/** `middlewares.0.rules.1.decision: refuse applies to outbound rules only; …` per issue. */
export function describeIssues(issues: readonly PolicyIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join("; ");
}

/** Whether a rule applies to checks of this direction. */
export function appliesTo(rule: { direction: "inbound" | "outbound" | "both" }, direction: Direction): boolean {
  return rule.direction === "both" || rule.direction === direction;
}
