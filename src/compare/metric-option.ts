import { PRIMARY_METRIC, type MetricName } from '../results/metrics.js';
import type { AnalysisSettings } from '../results/types.js';

/**
 * The metric to compare every cell on, when the user named one (`--metric`, now or when the run was
 * recorded); undefined for the default, so that each workload's `metrics` field decides.
 */
export function metricOption(
  settings: AnalysisSettings,
  overrides: Partial<AnalysisSettings> = {},
): MetricName | undefined {
  return overrides.metric ?? (settings.metric === PRIMARY_METRIC ? undefined : settings.metric);
}
