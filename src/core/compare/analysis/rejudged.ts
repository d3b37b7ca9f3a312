/**
 * A comparison whose arms gained cells judged by a rule of their own (instruction counts, memory beyond its
 * floors): the overall verdict judged again over the arms, and the gated metrics with the new ones added.
 */
import { overallVerdict } from '../overall.js';
import type { ArmComparison, RunComparison } from '../comparison-types.js';
import type { MetricName } from '../../results/metrics.js';

export function rejudged(
  comparison: RunComparison,
  comparisons: ArmComparison[],
  metrics: readonly MetricName[],
): RunComparison {
  const overall = overallVerdict(comparisons.map((c) => ({ id: c.head, verdict: c.verdict })));
  const added = [...new Set(metrics)].filter((m) => !comparison.gatedMetrics.includes(m));
  return {
    ...comparison,
    comparisons,
    gatedMetrics: [...comparison.gatedMetrics, ...added],
    verdict: overall.verdict,
    decidingArms: overall.deciding,
  };
}
