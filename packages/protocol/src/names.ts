/**
 * Agent names and addresses (SPEC §4). `parseMessageAddress` reads what a host writes in `to` and
 * returns the canonical address from the local agent's point of view: a group always lists every
 * member including the local agent, sorted by byte order, without duplicates.
 */

/** 3 to 32 characters: lowercase letters, digits, `_` and `-`, starting and ending alphanumeric. */
export type AgentName = string;
/** `agent:<AgentName>`. */
export type AgentAddress = string;
/** `group:` + the complete sorted member list, including the local agent. */
export type GroupAddress = string;
/** An AgentAddress, or `group:` + names in any order, with or without the local agent. */
export type MessageAddressInput = string;

export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{1,30}[a-z0-9]$/;
export const MIN_GROUP_MEMBERS = 3;
export const MAX_GROUP_MEMBERS = 32;

export function isAgentName(value: unknown): value is AgentName {
  return typeof value === "string" && AGENT_NAME_PATTERN.test(value);
}

export function agentAddress(name: AgentName): AgentAddress {
  return `agent:${name}`;
}

export function isAgentAddress(value: unknown): value is AgentAddress {
  return typeof value === "string" && value.startsWith("agent:") && isAgentName(value.slice(6));
}

/** Sorts names by byte order (names are ASCII, so code-unit order is byte order). */
export function sortNames(names: readonly AgentName[]): AgentName[] {
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export function groupAddress(members: readonly AgentName[]): GroupAddress {
  return `group:${sortNames(members).join(",")}`;
}

/** A canonical address: one other agent, or a complete group including the local agent. */
export type CanonicalAddress =
  | { readonly kind: "agent"; readonly address: AgentAddress; readonly name: AgentName }
  | { readonly kind: "group"; readonly address: GroupAddress; readonly members: readonly AgentName[] };

export type AddressFailure = {
  readonly reason: "invalid-address" | "membership-invalid";
  readonly detail: string;
};

export type AddressResult =
  { readonly ok: true; readonly address: CanonicalAddress } | ({ readonly ok: false } & AddressFailure);

const invalid = (detail: string): AddressResult => ({ ok: false, reason: "invalid-address", detail });

/**
 * Canonicalises `input` for the local agent `self`. Unknown names are not checked here; they are
 * found at resolution (`unknown-agent`).
 */
export function parseMessageAddress(input: string, self: AgentName): AddressResult {
  if (input.startsWith("agent:")) {
    const name = input.slice("agent:".length);
    if (!isAgentName(name)) return invalid(`malformed agent name ${JSON.stringify(name)}`);
    if (name === self) return invalid("an agent: address cannot name the local agent");
    return { ok: true, address: { kind: "agent", address: agentAddress(name), name } };
  }
  if (input.startsWith("group:")) {
    const entries = input.slice("group:".length).split(",");
    const seen = new Set<string>();
    for (const entry of entries) {
      if (entry === "") return invalid("a group address has an empty entry");
      if (!isAgentName(entry)) return invalid(`malformed agent name ${JSON.stringify(entry)}`);
      if (seen.has(entry)) return invalid(`${entry} appears twice in the group`);
      seen.add(entry);
    }
    seen.add(self);
    if (seen.size < MIN_GROUP_MEMBERS || seen.size > MAX_GROUP_MEMBERS) {
      return {
        ok: false,
        reason: "membership-invalid",
        detail: `a group has ${MIN_GROUP_MEMBERS} to ${MAX_GROUP_MEMBERS} members including the sender; this one has ${seen.size}`,
      };
    }
    const members = sortNames([...seen]);
    return { ok: true, address: { kind: "group", address: groupAddress(members), members } };
  }
  return invalid('an address starts with "agent:" or "group:"');
}

/**
 * Canonical group addresses already read, and their members: every record of a group names the
 * same address, and checking one costs a split, a pattern per member, a sort and a join. Only
 * canonical addresses are kept, so malformed input cannot fill the cache.
 */
const readGroups = new Map<string, readonly AgentName[]>();
const READ_GROUPS_LIMIT = 4_096;
/** Direct conversations' members, read once each, within the same limit. */
const readDirects = new Map<string, readonly AgentName[]>();

/** The members of a canonical group address, or undefined when it is not canonical. */
export function membersOfGroupAddress(address: string): readonly AgentName[] | undefined {
  if (!address.startsWith("group:")) return undefined;
  const known = readGroups.get(address);
  if (known !== undefined) return known;
  const read = readGroupAddress(address);
  if (read === undefined) return undefined;
  if (readGroups.size >= READ_GROUPS_LIMIT) readGroups.clear();
  readGroups.set(address, read);
  return read;
}

function readGroupAddress(address: string): readonly AgentName[] | undefined {
  const members = address.slice("group:".length).split(",");
  if (members.length < MIN_GROUP_MEMBERS || members.length > MAX_GROUP_MEMBERS) return undefined;
  if (!members.every(isAgentName)) return undefined;
  if (groupAddress(members) !== address || new Set(members).size !== members.length) return undefined;
  return Object.freeze(members);
}

/** A conversation key: `direct:<a>,<b>` (sorted) or a canonical group address. */
export type ConversationKey = string;

export function directConversation(a: AgentName, b: AgentName): ConversationKey {
  return `direct:${sortNames([a, b]).join(",")}`;
}

/** The agents an address reaches from `self`: the one agent, or every other group member. */
export function othersOf(self: AgentName, address: CanonicalAddress): AgentName[] {
  return address.kind === "agent" ? [address.name] : address.members.filter((m) => m !== self);
}

export function conversationOf(self: AgentName, address: CanonicalAddress): ConversationKey {
  return address.kind === "agent" ? directConversation(self, address.name) : address.address;
}

/** The members of a conversation key, or undefined when the key is malformed. */
export function membersOfConversation(conv: string): readonly AgentName[] | undefined {
  if (!conv.startsWith("direct:")) return membersOfGroupAddress(conv);
  // Read once per conversation, as group addresses are: every record and frame of a post names it.
  const known = readDirects.get(conv);
  if (known !== undefined) return known;
  const pair = conv.slice("direct:".length).split(",");
  const [a, b] = pair;
  if (pair.length !== 2 || !isAgentName(a) || !isAgentName(b) || !(a < b)) return undefined;
  if (readDirects.size >= READ_GROUPS_LIMIT) readDirects.clear();
  const members = Object.freeze([a, b]);
  readDirects.set(conv, members);
  return members;
}

/**
 * The address a member uses for a conversation: the other agent of a direct conversation, or
 * the canonical group address.
 */
export function addressInConversation(self: AgentName, conv: ConversationKey): MessageAddressInput {
  if (conv.startsWith("direct:")) {
    const members = membersOfConversation(conv) ?? [];
    const other = members.find((m) => m !== self) ?? self;
    return agentAddress(other);
  }
  return conv;
}
