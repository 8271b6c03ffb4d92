/**
 * Inbox helpers for system tests, all through the MCP tools a host uses: draining an inbox,
 * reading one traversal page by page, and spelling the non-canonical alias of an id.
 */
import { tool } from "./mcp.js";
import { readAll, type Agent, type InboxItem } from "./network.js";

export type InboxPage = { items: InboxItem[]; nextCursor?: string };

/** One read_inbox page, fresh or continued. */
export async function readPage(agent: Agent, cursor?: string): Promise<InboxPage> {
  return (await tool(agent.mcp.client, "read_inbox", cursor === undefined ? {} : { cursor })) as InboxPage;
}

/** Every page of one traversal, as read_inbox hands them out. */
export async function readPages(agent: Agent): Promise<InboxPage[]> {
  const pages: InboxPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await readPage(agent, cursor);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

/** Acknowledges every pending item, so a test starts from an empty inbox. */
export async function acknowledgeAll(agent: Agent): Promise<void> {
  for (const entry of await readAll(agent)) {
    await tool(agent.mcp.client, "acknowledge_delivery", { deliveryToken: entry.deliveryToken });
  }
}

/** The text of a multicast item's first part. */
export function textOf(entry: InboxItem): string {
  return entry.item.message.content[0].text as string;
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * A non-canonical alias of an id: the last of its 43 characters carries two padding bits, so
 * setting the lowest one gives a different spelling that lenient decoders read as the same bytes.
 */
export function aliasOf(id: string): string {
  const last = ALPHABET.indexOf(id.at(-1)!);
  return id.slice(0, -1) + ALPHABET[last | 1];
}
