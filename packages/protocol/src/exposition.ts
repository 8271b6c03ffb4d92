/**
 * Counters and histograms cheap enough for the hot paths of the router and daemon (issue 19):
 * each label combination is bound once to a slot of a Float64Array, so an increment or an
 * observation allocates nothing and hashes nothing. prom-client's registry reads them at scrape
 * time through the metric shape it reads its own from (`name`, `help`, `type`, `get()`), so the
 * exposition stays prom-client's. Label values come from closed lists given at construction.
 */

/** One sample as prom-client's registry formats it. */
export interface ExposedValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

export interface ExposedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "histogram";
  readonly aggregator: "sum";
  get(): Promise<{ name: string; help: string; type: string; aggregator: "sum"; values: ExposedValue[] }>;
}

type LabelSets = readonly Readonly<Record<string, string>>[];

/** A counter over a fixed list of label sets; slot i counts `labelSets[i]`, `inc` is one addition. */
export class SlotCounter implements ExposedMetric {
  readonly type = "counter";
  readonly aggregator = "sum";
  private readonly values: Float64Array;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelSets: LabelSets = [{}],
  ) {
    this.values = new Float64Array(labelSets.length);
  }

  inc(slot = 0, by = 1): void {
    this.values[slot]! += by;
  }

  value(slot = 0): number {
    return this.values[slot]!;
  }

  get(): ReturnType<ExposedMetric["get"]> {
    const values = this.labelSets.map((labels, i) => ({ value: this.values[i]!, labels }));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

/** A histogram over a fixed list of label sets and bucket bounds (seconds); `observe` is a short loop. */
export class SlotHistogram implements ExposedMetric {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly counts: Float64Array;
  private readonly sums: Float64Array;
  private readonly totals: Float64Array;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    private readonly labelSets: LabelSets = [{}],
  ) {
    this.counts = new Float64Array(labelSets.length * bounds.length);
    this.sums = new Float64Array(labelSets.length);
    this.totals = new Float64Array(labelSets.length);
  }

  observe(slot: number, value: number): void {
    const base = slot * this.bounds.length;
    for (let b = 0; b < this.bounds.length; b++) {
      if (value <= this.bounds[b]!) {
        this.counts[base + b]! += 1;
        break;
      }
    }
    this.sums[slot]! += value;
    this.totals[slot]! += 1;
  }

  get(): ReturnType<ExposedMetric["get"]> {
    const values: ExposedValue[] = [];
    this.labelSets.forEach((labels, slot) => {
      let cumulative = 0;
      this.bounds.forEach((le, b) => {
        cumulative += this.counts[slot * this.bounds.length + b]!;
        values.push({ value: cumulative, labels: { ...labels, le }, metricName: `${this.name}_bucket` });
      });
      values.push({ value: this.totals[slot]!, labels: { ...labels, le: "+Inf" }, metricName: `${this.name}_bucket` });
      values.push({ value: this.sums[slot]!, labels, metricName: `${this.name}_sum` });
      values.push({ value: this.totals[slot]!, labels, metricName: `${this.name}_count` });
    });
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
