/**
 * The firewall evaluation set (`bench/firewall/set/*.jsonl`): labelled messages written for this
 * project, one JSON object a line, read through one zod schema so a malformed line is named by
 * file, line and field. Each entry becomes the Subject the daemon's firewall would check: this
 * agent is `agent:bob`; inbound entries name their sender, outbound ones are bob's sends.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { answerText, type Subject } from "@social-harness/daemon";
import * as z from "zod";

export const SELF = "agent:bob";

export const CATEGORIES = ["injection", "credential-request", "credential-leak", "benign-trigger", "ordinary"] as const;
export type Category = (typeof CATEGORIES)[number];
/** The threats a benign-with-trigger-words message resembles. */
export const THREATS = ["injection", "credential-request", "credential-leak"] as const;
export type Threat = (typeof THREATS)[number];

const address = z.string().regex(/^agent:[a-z0-9][a-z0-9_-]{1,30}[a-z0-9]$/, "must be an agent: address");
const conversation = z
  .string()
  .regex(/^(agent:[a-z0-9][a-z0-9_-]{1,30}[a-z0-9]|group:[a-z0-9][a-z0-9_,-]*)$/, "must be agent:<name> or group:…");

const EntrySchema = z
  .strictObject({
    id: z.string().regex(/^[a-z]+(-[a-z]+)*-\d{2,3}$/, "must look like inj-01"),
    /** `holdout`: written after the example policy's patterns were tuned, never used to tune them. */
    split: z.enum(["tune", "holdout"]).default("tune"),
    category: z.enum(CATEGORIES),
    /** For benign-trigger entries: the threat whose trigger words it contains. */
    resembles: z.enum(THREATS).optional(),
    /** How the attack is made (role-play, obfuscated, …) or which credential format leaks. */
    technique: z.string().min(1).optional(),
    violating: z.boolean(),
    direction: z.enum(["inbound", "outbound"]),
    kind: z.enum(["multicast", "collectiveRequest", "collectiveResult", "answer"]),
    /** Inbound only: the sender. Outbound entries are sent by SELF. */
    from: address.optional(),
    conversation,
    text: z.string().min(1).optional(),
    /** An answer's content (any JSON), as the firewall reads it: JSON.stringify(content). */
    content: z.unknown().optional(),
    decline: z.literal(true).optional(),
    /** The scripted judge's probability that the message violates the norm, assigned by hand. */
    judge: z.number().min(0).max(1),
    note: z.string().optional(),
  })
  .superRefine((e, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    const violatingCategory = e.category !== "benign-trigger" && e.category !== "ordinary";
    if (e.violating !== violatingCategory) issue("violating", `must be ${violatingCategory} in ${e.category}`);
    if ((e.category === "benign-trigger") !== (e.resembles !== undefined))
      issue("resembles", "names the threat of a benign-trigger entry, and only of one");
    if (e.direction === "inbound" && e.from === undefined) issue("from", "an inbound entry names its sender");
    if (e.direction === "outbound" && e.from !== undefined) issue("from", "an outbound entry is sent by agent:bob");
    if (e.direction === "outbound" && e.kind === "collectiveResult") issue("kind", "a result is never sent");
    if (e.from === SELF) issue("from", "bob does not send to himself");
    if (e.conversation.startsWith("group:")) {
      const members = e.conversation.slice(6).split(",");
      if (!members.includes("bob")) issue("conversation", "a group of bob's must list bob");
      if (e.from !== undefined && !members.includes(e.from.slice(6))) issue("conversation", "must list the sender");
      if ([...members].sort().join(",") !== members.join(",")) issue("conversation", "lists members sorted");
    } else if (e.from !== undefined && e.conversation !== e.from) {
      issue("conversation", "a direct conversation is named by the peer: the sender");
    }
    const words = [e.text, e.content, e.decline].filter((w) => w !== undefined).length;
    if (e.kind === "answer" ? words !== 1 || e.text !== undefined : e.text === undefined || words !== 1)
      issue("text", "an answer has content or decline; anything else has text, and only text");
  });

export type Entry = z.output<typeof EntrySchema>;

/** The repository root, found from this module whether it runs from bench/ or bench/dist/. */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      readFileSync(path.join(dir, "docs", "firewall.md"));
      return dir;
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) throw new Error("no docs/firewall.md above the bench");
      dir = parent;
    }
  }
}

export const SET_DIR = () => path.join(repoRoot(), "bench", "firewall", "set");

export type SetRead = { ok: true; entries: Entry[] } | { ok: false; problems: string[] };

/** Reads every `*.jsonl` of the set; each problem names its file, line and field. */
export function readEvalSet(dir = SET_DIR()): SetRead {
  const entries: Entry[] = [];
  const problems: string[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()) {
    const lines = readFileSync(path.join(dir, file), "utf8").split("\n");
    for (const [i, line] of lines.entries()) {
      if (line.trim() === "") continue;
      const where = `${file}:${i + 1}`;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch (error) {
        problems.push(`${where}: not JSON (${(error as Error).message})`);
        continue;
      }
      const parsed = EntrySchema.safeParse(json);
      if (parsed.success) entries.push(parsed.data);
      else
        for (const issue of parsed.error.issues) problems.push(`${where}: ${issue.path.join(".")}: ${issue.message}`);
    }
  }
  return problems.length === 0 ? { ok: true, entries } : { ok: false, problems };
}

export function loadEvalSet(dir?: string): Entry[] {
  const read = readEvalSet(dir);
  if (!read.ok) throw new Error(`the evaluation set is malformed:\n${read.problems.join("\n")}`);
  return read.entries;
}

/** The words the firewall reads for an entry: its text, or an answer's content as the daemon spells it. */
export function wordsOf(entry: Entry): string {
  if (entry.kind !== "answer") return entry.text!;
  return answerText(entry.decline ? { action: "decline" } : { action: "accept", content: entry.content });
}

/** The entry as the daemon's firewall sees it (apps/daemon/src/firewall/subjects.ts). */
export function subjectOf(entry: Entry): Subject {
  const sender = entry.from ?? SELF;
  const members = entry.conversation.startsWith("group:")
    ? entry.conversation
        .slice(6)
        .split(",")
        .map((m) => `agent:${m}`)
    : [SELF, entry.conversation];
  return {
    id: `${entry.kind === "multicast" ? "pst" : "col"}_${entry.id}`,
    kind: entry.kind,
    sender,
    recipients: members.filter((m) => m !== sender),
    conversation: entry.conversation,
    text: wordsOf(entry),
  };
}
