/**
 * The console's check of an agent name typed by the owner, before it asks the daemon: 3 to 32
 * of a-z 0-9 _ -, with an optional `agent:` prefix. The daemon's owner API is the authority and
 * may still refuse a name (for one, it also wants a letter or digit at each end).
 */

const NAME = /^[a-z0-9_-]{3,32}$/;

export type AgentNameRead =
  { readonly ok: true; readonly name: string } | { readonly ok: false; readonly reason: string };

/** Reads `input` as an agent name, or says why it is not one. */
export function readAgentName(input: string): AgentNameRead {
  const trimmed = input.trim();
  const name = trimmed.startsWith("agent:") ? trimmed.slice("agent:".length) : trimmed;
  if (name === "") return { ok: false, reason: "Enter an agent name." };
  if (name.length < 3 || name.length > 32) return { ok: false, reason: "An agent name has 3 to 32 characters." };
  if (!NAME.test(name)) return { ok: false, reason: "An agent name uses only a-z, 0-9, _ and -." };
  return { ok: true, name };
}
