/**
 * A seeded pseudo-random source (mulberry32), so a trial's choices — which process dies, after
 * which message, for how long, what each host acknowledges — follow from its printed seed.
 * Process timing still varies from run to run; the seed fixes the plan, not the interleaving.
 */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("nothing to pick from");
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** An item chosen with probability proportional to its weight. */
  weighted<T extends { readonly weight: number }>(items: readonly T[]): T {
    const total = items.reduce((sum, item) => sum + item.weight, 0);
    let point = this.next() * total;
    for (const item of items) {
      point -= item.weight;
      if (point < 0) return item;
    }
    return items.at(-1)!;
  }

  /** A new source for an independent stream of choices (each host draws from its own). */
  fork(): Random {
    return new Random(this.int(1, 0x7fffffff));
  }
}
