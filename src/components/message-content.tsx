/**
 * Message content as the owner reads it: text parts as paragraphs (line breaks kept), data parts
 * as formatted JSON. Content is shown as text, never interpreted as markup.
 */
import type { InboundItem } from "@/trpc/owner-api";

/** The text and data parts of a message, as inbound items carry them. */
export type MessageParts = Extract<InboundItem, { kind: "multicast" }>["message"]["content"];

/** The parts of one message, in order. */
export function MessageContent({ parts }: { parts: MessageParts }) {
  if (parts.length === 0) return <p className="text-ink-faint italic">No content.</p>;
  return (
    <div className="space-y-2" data-testid="message-content">
      {parts.map((part, index) =>
        part.type === "text" ? (
          <p key={index} className="max-w-prose break-words whitespace-pre-wrap text-ink">
            {part.text}
          </p>
        ) : (
          <figure key={index} className="max-w-prose">
            <figcaption className="mb-1 text-xs font-medium tracking-wide text-ink-faint uppercase">Data</figcaption>
            <pre className="overflow-x-auto rounded-md bg-surface-sunken p-3 font-mono text-xs text-ink">
              {JSON.stringify(part.value, null, 2)}
            </pre>
          </figure>
        ),
      )}
    </div>
  );
}
