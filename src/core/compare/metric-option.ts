/**
 * The `--metric` option as data: the names it accepts, the one metric it selects, and whether a results
 * document holds values of it. Adapters word the refusals (src/adapters/cli/analysis-flags.ts); nothing here prints.
 */
import {
  GATED_METRIC_NAMES,
  METRICS,
  PRIMARY_METRIC,
  gatedName,
  type MetricName,
} from '../results/metrics.js';
import type { AnalysisSettings, RunResult } from '../results/result-types.js';

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

/** The names `--metric` lists, one per metric: the short name where it has one (p99), else its key. */
export const METRIC_OPTION_NAMES: readonly string[] = (Object.keys(METRICS) as MetricName[]).map(gatedName);

/** The metric keys also accepted for a metric that has a short name (latencyP99Ms for p99). */
export const METRIC_OPTION_ALIASES: readonly string[] = Object.values(GATED_METRIC_NAMES).filter(
  (key) => !METRIC_OPTION_NAMES.includes(key),
);

/**
 * The accepted name a mistyped one most likely meant: equal once case, punctuation and a trailing "ms"
 * are ignored (P99, latency_p99, latencyAvg); undefined when none is that close.
 */
export function closestMetricName(value: string): string | undefined {
  const fold = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .replace(/ms$/, '');
  const wanted = fold(value);
  const key = (Object.keys(METRICS) as MetricName[]).find(
    (k) => fold(k) === wanted || fold(gatedName(k)) === wanted,
  );
  return key === undefined ? undefined : gatedName(key);
}

/** Per workload of a document, the metrics its successful runs hold usable values of. */
export interface HeldMetrics {
  workload: string;
  held: MetricName[];
}

/**
 * The metrics each workload's successful runs recorded (a finite, positive value in at least one run), in
 * METRICS order; workloads without a successful run are left out (they hold nothing of any metric).
 */
export function heldMetrics(result: Pick<RunResult, 'samples'>): HeldMetrics[] {
  const byWorkload = new Map<string, Set<MetricName>>();
  for (const s of result.samples) {
    if (s.status !== 'ok') continue;
    const held = byWorkload.get(s.workload) ?? new Set<MetricName>();
    byWorkload.set(s.workload, held);
    for (const [key, value] of Object.entries(s.metrics) as Array<[MetricName, number | undefined]>) {
      if (value !== undefined && Number.isFinite(value) && value > 0) held.add(key);
    }
  }
  const order = Object.keys(METRICS) as MetricName[];
  return [...byWorkload].map(([workload, held]) => ({
    workload,
    held: order.filter((m) => held.has(m)),
  }));
}

/** The workloads of a document whose successful runs hold no value of `metric` (see heldMetrics). */
export function workloadsLacking(result: Pick<RunResult, 'samples'>, metric: MetricName): HeldMetrics[] {
  return heldMetrics(result).filter((w) => !w.held.includes(metric));
}
