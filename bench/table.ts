/**
 * The bench's table. Every row is our figure beside its anchor (a floor, another system or a
 * goal, measured in the same run unless it is a goal) and the ratio ours ÷ anchor; the goal column
 * says which way is good. Nothing here judges: the bench prints, it never fails on a figure.
 */

export interface Row {
  readonly measure: string;
  readonly ours: string;
  readonly anchor: string;
  readonly anchorValue: string;
  readonly ratio: string;
  readonly goal: string;
}

export const ms = (value: number) => `${value.toFixed(2)} ms`;
export const us = (value: number) => `${(value * 1000).toFixed(1)} µs`;
export const perSecond = (value: number) => `${Math.round(value).toLocaleString("en")} /s`;
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
export const ratio = (ours: number, anchor: number) => `${(ours / anchor).toFixed(2)}×`;

export function row(
  measure: string,
  ours: number,
  format: (n: number) => string,
  anchor: { name: string; value: number; format?: (n: number) => string },
  goal: string,
): Row {
  return {
    measure,
    ours: format(ours),
    anchor: anchor.name,
    anchorValue: (anchor.format ?? format)(anchor.value),
    ratio: ratio(ours, anchor.value),
    goal,
  };
}

/** The element whose `by` is the median (the upper one of an even count). */
export function medianBy<T>(values: readonly T[], by: (value: T) => number): T {
  if (values.length === 0) throw new Error("no values");
  return [...values].sort((a, b) => by(a) - by(b))[Math.floor(values.length / 2)]!;
}

/** The median of numbers (the upper one of an even count). */
export const median = (values: readonly number[]): number => medianBy(values, (value) => value);

/** A titled markdown table of text cells, each column as wide as its widest cell. */
export function printGrid(title: string, header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    `\n${title}\n`,
    line(header),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.map(line),
    "",
  ].join("\n");
}

const COLUMNS = ["measure", "ours", "anchor", "anchorValue", "ratio", "goal"] as const;

export function printTable(title: string, rows: readonly Row[]): string {
  const header = ["measure", "ours", "anchor", "anchor value", "ratio", "goal"];
  return printGrid(
    title,
    header,
    rows.map((r) => COLUMNS.map((k) => r[k])),
  );
}
