import { mean, quantileSorted } from 'simple-statistics';
import { seededRandom } from './seeded-random.js';

/**
 * Percentile bootstrap confidence interval for mean(head)/mean(base), resampling each arm independently
 * with a seeded generator so the interval is reproducible. For display only, and only with ≥ 10 runs per
 * arm: percentile intervals are too narrow at small n (docs/reference/statistics.md §2.2).
 *
 * Reference: Efron & Tibshirani, An Introduction to the Bootstrap (1993), ch. 13 (percentile interval);
 * quantiles are type 7 (simple-statistics `quantileSorted`, NumPy's default), as in the reference vectors.
 *
 * Complexity: O(resamples·(m + n)) time, O(resamples) memory. Throws: RangeError if an arm is empty, the
 * level is not in (0, 1) or resamples < 1.
 *
 * @example bootstrapRatioOfMeans([100, 102, 98], [90, 91, 89], { seed: 1 }).ratio // 0.9
 */
export function bootstrapRatioOfMeans(
  base: readonly number[],
  head: readonly number[],
  options: BootstrapOptions,
): BootstrapResult {
  const { seed, resamples = DEFAULT_RESAMPLES, level = 0.95 } = options;
  if (base.length === 0 || head.length === 0) throw new RangeError('bootstrap needs values in both arms');
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`);
  if (!(resamples >= 1)) throw new RangeError(`resamples must be at least 1, got ${resamples}`);
  const random = seededRandom(seed);
  const resampledMean = (x: readonly number[]): number => {
    let sum = 0;
    for (let i = 0; i < x.length; i++) sum += x[Math.floor(random() * x.length)]!;
    return sum / x.length;
  };
  const ratios = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    const b = resampledMean(base);
    ratios[r] = resampledMean(head) / b;
  }
  ratios.sort((x, y) => x - y);
  const tail = (1 - level) / 2;
  return {
    ratio: mean(head) / mean(base),
    lower: quantileSorted(ratios, tail),
    upper: quantileSorted(ratios, 1 - tail),
    resamples,
    seed,
  };
}

export interface BootstrapOptions {
  seed: number;
  /** Number of bootstrap resamples; DEFAULT_RESAMPLES (10⁴) by default. */
  resamples?: number;
  level?: number;
}

export interface BootstrapResult {
  /** The observed mean(head)/mean(base). */
  ratio: number;
  lower: number;
  upper: number;
  resamples: number;
  seed: number;
}

/** 10⁴ resamples keep the Monte-Carlo error of 2.5%/97.5% quantiles well below the interval's width. */
export const DEFAULT_RESAMPLES = 10_000;
