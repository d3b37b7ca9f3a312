/**
 * Latency percentiles in bounded memory: a histogram of log-spaced buckets 0.5% wide (±0.25% error, far
 * below any practical threshold), so a run of millions of transactions costs a few thousand counters.
 * Shared by the clients whose logs or histograms give per-transaction latencies (pgbench's per-transaction
 * log, sysbench --histogram).
 */

/** Bucket width as a ratio: bucket i holds values in [RATIO^i, RATIO^(i+1)) µs. */
const RATIO = 1.005;
const LN_RATIO = Math.log(RATIO);

export class LatencyHistogram {
  private readonly buckets = new Map<number, number>();
  private n = 0;
  private sumUs = 0;

  /** One transaction's latency in µs (values below 1 µs count as 1 µs). */
  addUs(us: number): void {
    const i = Math.floor(Math.log(Math.max(1, us)) / LN_RATIO);
    this.buckets.set(i, (this.buckets.get(i) ?? 0) + 1);
    this.n++;
    this.sumUs += us;
  }

  get count(): number {
    return this.n;
  }

  get averageMs(): number | undefined {
    return this.n === 0 ? undefined : this.sumUs / this.n / 1000;
  }

  /**
   * The q-quantile (0 < q < 1) in ms by the nearest-rank rule (the smallest value with at least ⌈q·n⌉
   * values at or below it), as the geometric middle of its bucket; undefined when empty.
   */
  percentileMs(q: number): number | undefined {
    if (this.n === 0) return undefined;
    const rank = Math.max(1, Math.ceil(q * this.n));
    let seen = 0;
    for (const i of [...this.buckets.keys()].sort((a, b) => a - b)) {
      seen += this.buckets.get(i)!;
      if (seen >= rank) return RATIO ** (i + 0.5) / 1000;
    }
    return undefined;
  }
}

/**
 * The q-quantile of a histogram given as (value, count) rows in ascending value order, by sysbench's own
 * rule (sb_histogram.c: the first row whose cumulative count reaches ⌊q·n⌋), so a percentile computed here
 * equals the one sysbench prints for the same histogram.
 */
export function histogramPercentile(
  rows: ReadonlyArray<{ value: number; count: number }>,
  q: number,
): number | undefined {
  const n = rows.reduce((s, r) => s + r.count, 0);
  if (n === 0) return undefined;
  const target = Math.max(1, Math.floor(n * q));
  let seen = 0;
  for (const r of rows) {
    seen += r.count;
    if (seen >= target) return r.value;
  }
  return rows.at(-1)!.value;
}
