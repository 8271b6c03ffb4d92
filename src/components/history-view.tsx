"use client";
/**
 * A daemon's conversation history (SPEC §7): its conversations, and the certified records of the
 * one selected (`?conversation=` in the address, so it can be linked and the back button works),
 * oldest first. Both lists load more pages on request and are polled, so new records appear.
 * History is a record; it grants no delivery.
 */
import { useQueries } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/trpc/daemon-trpc";
import type { HistoryConversation } from "@/trpc/owner-api";
import { daemonSectionHref } from "./daemon-sections";
import { HistoryRecordCard } from "./history-record-card";
import { QueryProblem } from "./query-problem";
import { Timestamp } from "./time";

const CONVERSATIONS_PAGE = 20;
const RECORDS_PAGE = 20;
const POLL_MS = 2_000;

const buttonClass =
  "rounded-md border border-line-strong bg-surface px-3 py-1.5 text-sm font-medium hover:bg-surface-sunken";

function ConversationLink({
  name,
  conversation,
  selected,
}: {
  name: string;
  conversation: HistoryConversation;
  selected: boolean;
}) {
  return (
    <Link
      href={{ pathname: daemonSectionHref(name, "history"), query: { conversation: conversation.conversation } }}
      scroll={false}
      aria-current={selected ? "true" : undefined}
      className={`flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 px-4 py-3 ${
        selected ? "bg-accent-soft" : "hover:bg-surface-sunken"
      }`}
      data-testid="history-conversation"
      data-conversation={conversation.conversation}
    >
      <span className="min-w-0">
        <span className={`block font-mono text-sm font-medium break-all ${selected ? "text-accent-ink" : "text-ink"}`}>
          {conversation.conversation}
        </span>
        <span className="block text-xs text-ink-muted">{conversation.members.join(", ")}</span>
      </span>
      <span className="text-xs text-ink-muted">
        <span className="font-medium text-ink" data-testid="conversation-records">
          {conversation.records}
        </span>{" "}
        {conversation.records === 1 ? "record" : "records"}
        {conversation.lastAt !== null && (
          <>
            {" · last "}
            <Timestamp ms={conversation.lastAt} />
          </>
        )}
      </span>
    </Link>
  );
}

function Conversations({ name, selected }: { name: string; selected: string | undefined }) {
  const trpc = useTRPC();
  // The cursor of each page loaded so far; undefined is the first page.
  const [cursors, setCursors] = useState<readonly (string | undefined)[]>([undefined]);
  const pages = useQueries({
    queries: cursors.map((after) =>
      trpc.history.conversations.queryOptions({ after, limit: CONVERSATIONS_PAGE }, { refetchInterval: POLL_MS }),
    ),
  });
  // A poll can shift a page boundary, so a conversation may appear on two pages: keep it once.
  const conversations = [
    ...new Map(pages.flatMap((page) => page.data?.conversations ?? []).map((c) => [c.conversation, c])).values(),
  ];
  const last = pages.at(-1);
  const next = last?.data?.nextCursor;
  const failed = pages.find((page) => page.isError);
  return (
    <section aria-labelledby="conversations-title" className="space-y-3">
      <h3 id="conversations-title" className="font-semibold">
        Conversations
      </h3>
      {pages[0]?.isPending && <p className="text-ink-muted">Loading the conversations…</p>}
      {failed?.error && <QueryProblem what="the conversations" error={failed.error} />}
      {pages[0]?.data !== undefined && conversations.length === 0 && (
        <p
          className="rounded-xl border border-dashed border-line-strong bg-surface px-4 py-8 text-center text-ink-muted"
          data-testid="history-empty"
        >
          No conversations yet.
        </p>
      )}
      {conversations.length > 0 && (
        <ul
          className="divide-y divide-line overflow-hidden rounded-xl border border-line bg-surface shadow-sm"
          aria-label="Conversations"
        >
          {conversations.map((conversation) => (
            <li key={conversation.conversation}>
              <ConversationLink
                name={name}
                conversation={conversation}
                selected={conversation.conversation === selected}
              />
            </li>
          ))}
        </ul>
      )}
      {cursors.length > 1 && last?.isPending && <p className="text-ink-muted">Loading more conversations…</p>}
      {next !== undefined && (
        <button type="button" onClick={() => setCursors((list) => [...list, next])} className={buttonClass}>
          More conversations
        </button>
      )}
    </section>
  );
}

function Records({ conversation }: { conversation: string }) {
  const trpc = useTRPC();
  // The sequence number after which each loaded page starts; 0 is the first record.
  const [cursors, setCursors] = useState<readonly number[]>([0]);
  const pages = useQueries({
    queries: cursors.map((after) =>
      trpc.history.records.queryOptions({ conversation, after, limit: RECORDS_PAGE }, { refetchInterval: POLL_MS }),
    ),
  });
  const records = pages.flatMap((page) => page.data?.records ?? []);
  const last = pages.at(-1);
  const next = last?.data?.nextCursor;
  const failed = pages.find((page) => page.isError);
  return (
    <section aria-labelledby="records-title" className="space-y-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 id="records-title" className="font-semibold">
          Records of <span className="font-mono break-all">{conversation}</span>
        </h3>
        {records.length > 0 && (
          <p className="text-sm text-ink-muted" data-testid="records-shown">
            {records.length} shown, oldest first
          </p>
        )}
      </div>
      {pages[0]?.isPending && <p className="text-ink-muted">Loading the records…</p>}
      {failed?.error && <QueryProblem what="the records" error={failed.error} />}
      {pages[0]?.data !== undefined && records.length === 0 && (
        <p
          className="rounded-xl border border-dashed border-line-strong bg-surface px-4 py-8 text-center text-ink-muted"
          data-testid="records-empty"
        >
          No records in this conversation.
        </p>
      )}
      {records.length > 0 && (
        <ol className="space-y-3" aria-label={`Records of ${conversation}, oldest first`}>
          {records.map((record) => (
            <li key={record.seq}>
              <HistoryRecordCard record={record} />
            </li>
          ))}
        </ol>
      )}
      {cursors.length > 1 && last?.isPending && <p className="text-ink-muted">Loading more records…</p>}
      {next !== undefined && (
        <button type="button" onClick={() => setCursors((list) => [...list, next])} className={buttonClass}>
          Load more records
        </button>
      )}
    </section>
  );
}

/** The history of the daemon `name`, with the conversation `selected` opened. */
export function HistoryView({ name, selected }: { name: string; selected: string | undefined }) {
  return (
    <section aria-labelledby="history-title" className="space-y-6">
      <div className="space-y-1">
        <h2 id="history-title" className="text-lg font-semibold">
          Conversation history
        </h2>
        <p className="text-sm text-ink-muted" data-testid="history-note">
          History is a record of every certified post in this agent&rsquo;s conversations and grants no delivery:
          nothing here is, or becomes, an inbox item.
        </p>
      </div>
      <Conversations name={name} selected={selected} />
      {selected === undefined ? (
        <p className="text-sm text-ink-muted">Choose a conversation to read its records.</p>
      ) : (
        <Records key={selected} conversation={selected} />
      )}
    </section>
  );
}
