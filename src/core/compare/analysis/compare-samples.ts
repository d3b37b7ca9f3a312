import { decideVerdict } from '../verdict.js';
import { shiftStatistics } from '../shift-statistics.js';
import type { Better, SampleComparison } from '../comparison-types.js';

export interface CompareSamplesOptions {
  /** Significance level; DEFAULT_ALPHA (0.05). */
  alpha?: number;
  /** Practical threshold δ in percent; DEFAULT_THRESHOLD_PCT (2). */
  thresholdPct?: number;
  /** Direction of the metric; 'higher' (throughput) by default, 'lower' for latency. */
  better?: Better;
  /** Seeded percentile-bootstrap CI of the ratio of means (shown with ≥ 10 runs per arm). */
  bootstrap?: { seed: number; resamples?: number };
}

/**
 * Compares two samples of one metric (one value per run) and decides whether head regressed, improved, did
 * not change, or whether the data cannot tell. Returns n, medians and CVs per arm, Δ% (Hodges–Lehmann on ln
 * values; > 0 means head is higher) with its 95% and 90% distribution-free intervals and their achieved
 * levels, the Mann–Whitney p and method, Welch's t on logs as a diagnostic, the verdict and its reasons.
 *
 * A single comparison is its own family (p_adj = p); compareRun adjusts across cells with Holm. Bad input
 * (fewer than two usable values, non-finite or non-positive values, empty arms) yields an 'inconclusive'
 * verdict with the reason, never an exception.
 *
 * @example compareSamples([37719.4, 37510.2, 37902.8, 37655, 37811.3], [36623, 36323.1, 36778.6, 36573.8, 36656.3])
 *   // { deltaPct: -2.966…, p: 0.0079…, verdict: 'regression', … }
 */
export function compareSamples(
  base: readonly number[],
  head: readonly number[],
  options: CompareSamplesOptions = {},
): SampleComparison {
  const stats = shiftStatistics(base, head, options.bootstrap ? { bootstrap: options.bootstrap } : {});
  return decideVerdict(stats, { ...options, pAdjusted: stats.p, familySize: 1 });
}
