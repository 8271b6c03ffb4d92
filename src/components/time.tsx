"use client";
/**
 * Times as the console shows them: absolute local date and time in a <time> element, and a
 * ticking clock for deadlines, so "in 3 min" stays true without refetching.
 */
import { useSyncExternalStore } from "react";

const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** A timestamp (epoch milliseconds) rendered as local date and time. */
export function Timestamp({ ms, className }: { ms: number; className?: string }) {
  const date = new Date(ms);
  return (
    <time dateTime={date.toISOString()} className={className}>
      {absolute.format(date)}
    </time>
  );
}

/** `ms - now` in words: "in 3 minutes", "2 hours ago". */
export function describeFromNow(ms: number, now: number): string {
  const seconds = Math.round((ms - now) / 1000);
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ["day", 86_400],
    ["hour", 3_600],
    ["minute", 60],
  ];
  for (const [unit, size] of steps) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return relative.format(seconds, "second");
}

let clock = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (timer === undefined) clock = Date.now();
  timer ??= setInterval(() => {
    clock = Date.now();
    for (const notify of listeners) notify();
  }, 1_000);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The current time, updated every second while a component uses it. */
export function useNow(): number {
  return useSyncExternalStore(
    subscribe,
    () => clock,
    () => 0,
  );
}
