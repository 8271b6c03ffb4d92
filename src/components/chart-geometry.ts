/**
 * Geometry of the Overview's charts, kept pure for tests: one SVG path per series, whatever the
 * number of buckets. Bars stack in series order; a line skips buckets without a value (null).
 */

export interface Series {
  readonly key: string;
  readonly label: string;
  readonly color: string;
  readonly values: readonly (number | null)[];
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** One path per series: the bars of that series, stacked above the series before it. */
export function stackedBarPaths(series: readonly Series[], width: number, height: number, max: number): string[] {
  const buckets = series[0]?.values.length ?? 0;
  if (buckets === 0) return series.map(() => "");
  const step = width / buckets;
  const bar = Math.max(step * 0.8, 0.5);
  const base = new Array<number>(buckets).fill(0);
  return series.map((s) => {
    let d = "";
    for (let i = 0; i < buckets; i++) {
      const value = s.values[i] ?? 0;
      if (value <= 0) continue;
      const bottom = height - (base[i]! / max) * height;
      const top = height - ((base[i]! + value) / max) * height;
      base[i]! += value;
      d += `M${round(i * step + (step - bar) / 2)} ${round(bottom)}V${round(top)}h${round(bar)}V${round(bottom)}Z`;
    }
    return d;
  });
}

/** A line through the centre of each bucket that has a value; a gap wherever one is null. */
export function seriesPath(series: Series, width: number, height: number, max: number): string {
  const buckets = series.values.length;
  if (buckets === 0) return "";
  const step = width / buckets;
  let d = "";
  let drawing = false;
  for (let i = 0; i < buckets; i++) {
    const value = series.values[i];
    if (value === null || value === undefined) {
      drawing = false;
      continue;
    }
    const x = round(i * step + step / 2);
    const y = round(height - (value / max) * height);
    d += `${drawing ? "L" : "M"}${x} ${y}`;
    drawing = true;
  }
  return d;
}

/** True when two series lists would draw the same chart (same keys, same value arrays by identity). */
export function sameSeries(a: readonly Series[], b: readonly Series[]): boolean {
  return a.length === b.length && a.every((s, i) => s.key === b[i]!.key && s.values === b[i]!.values);
}
