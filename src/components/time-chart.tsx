/**
 * A small SVG chart over the Overview's dense buckets: stacked bars for counts, lines for levels
 * and latencies. Each series is one <path>, so a week of buckets is a handful of elements, and a
 * memoised chart whose series kept their identity (react-query's structural sharing) does not
 * re-render on a poll. The figure names its totals for screen readers; the legend shows them too.
 */
import { memo } from "react";
import { sameSeries, seriesPath, stackedBarPaths, type Series } from "./chart-geometry";

export type { Series };

const WIDTH = 600;
const HEIGHT = 140;

export interface TimeChartProps {
  readonly id: string;
  readonly title: string;
  /** What will appear once there is something to draw. */
  readonly empty: string;
  readonly series: readonly Series[];
  readonly mode: "bars" | "lines";
  readonly from: number;
  readonly intervalMs: number;
  /** Unit for the legend totals of line charts ("ms", "items"); bars total their counts. */
  readonly unit?: string;
}

function clock(at: number, intervalMs: number): string {
  const date = new Date(at);
  return intervalMs >= 3_600_000
    ? date.toLocaleDateString(undefined, { weekday: "short", hour: "2-digit" })
    : date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

function summaryOf(series: Series, mode: "bars" | "lines", unit: string | undefined): string {
  const values = series.values.filter((v): v is number => v !== null);
  if (mode === "bars") return String(values.reduce((a, b) => a + b, 0));
  if (values.length === 0) return "none";
  return `${values[values.length - 1]}${unit === undefined ? "" : ` ${unit}`} now, max ${Math.max(...values)}`;
}

function TimeChartImpl({ id, title, empty, series, mode, from, intervalMs, unit }: TimeChartProps) {
  const buckets = series[0]?.values.length ?? 0;
  const points = series.reduce((n, s) => n + s.values.filter((v) => v !== null && v !== 0).length, 0);
  const max = Math.max(
    1,
    mode === "bars"
      ? Math.max(0, ...Array.from({ length: buckets }, (_, i) => series.reduce((n, s) => n + (s.values[i] ?? 0), 0)))
      : Math.max(0, ...series.flatMap((s) => s.values.map((v) => v ?? 0))),
  );
  const paths =
    mode === "bars"
      ? stackedBarPaths(series, WIDTH, HEIGHT, max)
      : series.map((s) => seriesPath(s, WIDTH, HEIGHT, max));
  const description = series.map((s) => `${s.label}: ${summaryOf(s, mode, unit)}`).join("; ");
  return (
    <figure
      aria-labelledby={`${id}-title`}
      className="rounded-xl border border-line bg-surface p-4 shadow-sm"
      data-testid={`chart-${id}`}
      data-points={points}
    >
      <figcaption id={`${id}-title`} className="text-sm font-semibold">
        {title}
      </figcaption>
      {points === 0 ? (
        <p
          className="mt-3 rounded-md border border-dashed border-line-strong px-3 py-6 text-center text-sm text-ink-muted"
          data-testid="chart-empty"
        >
          {empty}
        </p>
      ) : (
        <>
          <svg
            viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
            preserveAspectRatio="none"
            role="img"
            aria-label={`${title}. ${description}.`}
            className="mt-3 h-32 w-full overflow-visible"
          >
            <line x1={0} y1={HEIGHT} x2={WIDTH} y2={HEIGHT} className="stroke-line-strong" strokeWidth={1} />
            {series.map((s, i) => (
              <path
                key={s.key}
                d={paths[i]}
                fill={mode === "bars" ? s.color : "none"}
                stroke={mode === "lines" ? s.color : "none"}
                strokeWidth={mode === "lines" ? 2 : 0}
                vectorEffect="non-scaling-stroke"
                data-series={s.key}
              />
            ))}
          </svg>
          <div className="mt-1 flex justify-between text-xs text-ink-faint" aria-hidden="true">
            <span>{clock(from, intervalMs)}</span>
            <span>peak {max}</span>
            <span>now</span>
          </div>
        </>
      )}
      <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-ink-muted" aria-label={`${title}, totals`}>
        {series.map((s) => (
          <li key={s.key} className="flex items-center gap-1.5">
            <span aria-hidden="true" className="inline-block size-2.5 rounded-sm" style={{ background: s.color }} />
            {s.label} <span className="font-semibold text-ink tabular-nums">{summaryOf(s, mode, unit)}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}

/** A chart that re-renders only when a series array changed. */
export const TimeChart = memo(
  TimeChartImpl,
  (a, b) =>
    a.from === b.from &&
    a.intervalMs === b.intervalMs &&
    a.mode === b.mode &&
    a.title === b.title &&
    a.empty === b.empty &&
    sameSeries(a.series, b.series),
);
