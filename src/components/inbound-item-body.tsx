"use client";
/**
 * The readable body of each inbound item kind (seed 003 "Inbound items"): a message's sender,
 * address and content; a collective request's question, form and deadline; a result's outcome
 * per member; an operation failure's error. The switch is exhaustive over the closed union. A
 * request the agent has already answered reads as answered: no countdown, no form to fill.
 */
import type { ReactNode } from "react";
import type { InboundItem } from "@/trpc/owner-api";
import { MessageContent } from "./message-content";
import { RequestedSchemaFields } from "./requested-schema";
import { describeFromNow, Timestamp, useNow } from "./time";

type Item<K extends InboundItem["kind"]> = Extract<InboundItem, { kind: K }>;
type Outcome = Item<"collectiveResult">["outcomes"][number]["outcome"];

/**
 * How an item is introduced: its kind, and the party it is from or addressed to. `answered` says
 * the agent has answered a collective request (the owner's inbox listing knows it).
 */
export function summarizeItem(
  item: InboundItem,
  answered = false,
): { label: string; relation: "from" | "to"; party: string } {
  switch (item.kind) {
    case "multicast":
      return {
        label: item.message.kind === "group" ? "Group message" : "Message",
        relation: "from",
        party: item.message.sender,
      };
    case "collectiveRequest": {
      const label = item.op === "all_gather" ? "group question" : "question";
      return { label: answered ? `Answered ${label}` : capitalized(label), relation: "from", party: item.from };
    }
    case "collectiveResult":
      return { label: "Answers", relation: "to", party: item.to };
    case "operationFailed":
      return { label: "Failed operation", relation: "to", party: item.to };
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function Field({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex min-w-0 flex-wrap gap-x-2">
      <dt className="text-ink-faint">{term}</dt>
      <dd className="min-w-0 break-all text-ink">{children}</dd>
    </div>
  );
}

function Mono({ children }: { children: ReactNode }) {
  return <span className="font-mono text-[0.8125rem]">{children}</span>;
}

function MulticastBody({ item }: { item: Item<"multicast"> }) {
  const { message } = item;
  return (
    <div className="space-y-3">
      <dl className="grid gap-1 text-sm">
        {message.kind === "group" ? (
          <Field term="Group">
            <Mono>{message.members.join(", ")}</Mono>
          </Field>
        ) : (
          <Field term="Reply to">
            <Mono>{message.address}</Mono>
          </Field>
        )}
      </dl>
      <MessageContent parts={message.content} />
    </div>
  );
}

function Deadline({ at }: { at: number }) {
  const now = useNow();
  const passed = now !== 0 && at <= now;
  return (
    <span className={passed ? "text-danger" : "text-ink"}>
      <Timestamp ms={at} />
      {now !== 0 && (
        <span className="text-ink-muted">
          {" "}
          ({passed ? `closed ${describeFromNow(at, now)}` : describeFromNow(at, now)})
        </span>
      )}
    </span>
  );
}

function CollectiveRequestBody({ item, answered }: { item: Item<"collectiveRequest">; answered: boolean }) {
  return (
    <div className="space-y-3">
      <dl className="grid gap-1 text-sm">
        <Field term="Asked in">
          <Mono>{item.to}</Mono>
        </Field>
        {answered ? (
          <Field term="Answered">
            <span className="text-ok" data-testid="item-answered">
              by this agent (the answer is in the history); nothing is left to answer
            </span>
          </Field>
        ) : (
          <Field term="Deadline">
            <Deadline at={item.deadlineAt} />
          </Field>
        )}
      </dl>
      <p className="max-w-prose font-medium break-words whitespace-pre-wrap text-ink" data-testid="item-question">
        {item.question}
      </p>
      {!answered && <RequestedSchemaFields schema={item.requestedSchema} />}
    </div>
  );
}

function OutcomeText({ outcome }: { outcome: Outcome }) {
  switch (outcome.kind) {
    case "answered":
      return (
        <dl className="grid gap-0.5">
          {Object.entries(outcome.content).map(([key, value]) => (
            <div key={key} className="flex flex-wrap gap-x-2">
              <dt className="text-ink-faint">{key}</dt>
              <dd className="break-words text-ink">{Array.isArray(value) ? value.join(", ") : String(value)}</dd>
            </div>
          ))}
        </dl>
      );
    case "declined":
      return <span className="text-ink-muted">Declined</span>;
    case "invalid":
      return <span className="text-danger">Invalid answer: {outcome.reason}</span>;
    case "no-answer":
      return <span className="text-ink-muted">No answer</span>;
    case "withheld":
      return <span className="text-warn">Withheld by the firewall ({outcome.reason})</span>;
  }
}

function CollectiveResultBody({ item }: { item: Item<"collectiveResult"> }) {
  return (
    <div className="space-y-3">
      <dl className="grid gap-1 text-sm">
        <Field term="Operation">
          <Mono>{item.op === "all_gather" ? "all_gather" : "gather"}</Mono>
        </Field>
        <Field term="Asked in">
          <Mono>{item.to}</Mono>
        </Field>
      </dl>
      <p className="max-w-prose font-medium break-words whitespace-pre-wrap text-ink">
        {typeof item.question === "string"
          ? item.question
          : `Question withheld by the firewall (${item.question.reason})`}
      </p>
      <table className="w-full text-left text-sm" data-testid="collective-outcomes">
        <caption className="sr-only">Outcome per member</caption>
        <thead>
          <tr className="border-b border-line text-ink-faint">
            <th scope="col" className="py-1 pr-4 font-medium">
              Member
            </th>
            <th scope="col" className="py-1 font-medium">
              Outcome
            </th>
          </tr>
        </thead>
        <tbody>
          {item.outcomes.map(({ member, outcome }) => (
            <tr key={member} className="border-b border-line align-top last:border-0">
              <td className="py-1.5 pr-4">
                <Mono>{member}</Mono>
              </td>
              <td className="py-1.5">
                <OutcomeText outcome={outcome} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function OperationFailedBody({ item }: { item: Item<"operationFailed"> }) {
  return (
    <div className="space-y-3">
      <dl className="grid gap-1 text-sm">
        <Field term="Operation">
          <Mono>{item.id}</Mono>
        </Field>
        <Field term="Addressed to">
          <Mono>{item.to}</Mono>
        </Field>
      </dl>
      <p className="rounded-md bg-danger-soft px-3 py-2 text-sm break-words text-danger" data-testid="item-error">
        {item.error}
      </p>
    </div>
  );
}

/** The body of one inbound item, by kind; `answered` as in `summarizeItem`. */
export function InboundItemBody({ item, answered = false }: { item: InboundItem; answered?: boolean }) {
  switch (item.kind) {
    case "multicast":
      return <MulticastBody item={item} />;
    case "collectiveRequest":
      return <CollectiveRequestBody item={item} answered={answered} />;
    case "collectiveResult":
      return <CollectiveResultBody item={item} />;
    case "operationFailed":
      return <OperationFailedBody item={item} />;
  }
}
