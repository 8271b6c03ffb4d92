"use client";
/**
 * A JSON text area with line numbers for the policy draft. The text area is as tall and wide as
 * its text and scrolls inside one frame with its gutter, so numbers and lines stay aligned without
 * syncing scroll positions (the gutter sticks to the left edge). Lines a refusal named are marked,
 * with the messages as the marker's title.
 */
import { useImperativeHandle, useRef, type Ref } from "react";

export interface PolicyTextAreaHandle {
  /** Selects line `line` (1-based) and brings it into view. */
  selectLine(line: number): void;
}

const LINE = "text-[0.8125rem] leading-5";

/** The draft's editor; `marks` maps a line number to the messages shown beside it. */
export function PolicyTextArea({
  id,
  value,
  onChange,
  marks,
  describedBy,
  invalid,
  ref,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  marks: ReadonlyMap<number, readonly string[]>;
  describedBy?: string;
  invalid: boolean;
  ref?: Ref<PolicyTextAreaHandle>;
}) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const lines = value.split("\n");
  const widest = lines.reduce((most, line) => Math.max(most, line.length), 0);
  useImperativeHandle(ref, () => ({
    selectLine(line: number) {
      const element = area.current;
      if (element === null) return;
      const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
      element.focus({ preventScroll: true });
      element.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
      gutter.current?.children[line - 1]?.scrollIntoView({ block: "center", inline: "nearest" });
    },
  }));
  return (
    <div
      className={`max-h-[32rem] overflow-auto rounded-md border bg-surface font-mono focus-within:ring-2 focus-within:ring-accent ${
        invalid ? "border-danger" : "border-line-strong"
      }`}
      data-testid="policy-editor-frame"
    >
      <div className="flex w-max min-w-full">
        <div
          ref={gutter}
          aria-hidden="true"
          className={`sticky left-0 z-10 shrink-0 border-r border-line bg-surface-sunken py-2 text-right text-ink-faint select-none ${LINE}`}
        >
          {lines.map((_, index) => {
            const messages = marks.get(index + 1);
            return (
              <div
                key={index}
                title={messages?.join("\n")}
                data-testid={messages === undefined ? undefined : "editor-marked-line"}
                data-line={index + 1}
                className={`px-2 tabular-nums ${messages === undefined ? "" : "bg-danger-soft font-semibold text-danger"}`}
              >
                {messages === undefined ? index + 1 : `! ${index + 1}`}
              </div>
            );
          })}
        </div>
        <textarea
          ref={area}
          id={id}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          rows={Math.max(lines.length, 8)}
          cols={Math.max(widest + 2, 40)}
          wrap="off"
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          aria-invalid={invalid}
          aria-describedby={describedBy}
          className={`flex-1 resize-none overflow-hidden bg-transparent px-3 py-2 text-ink outline-none ${LINE}`}
        />
      </div>
    </div>
  );
}
