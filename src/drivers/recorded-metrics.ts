/**
 * Which metrics each client records in every sample, so that a gated metric no run could record is an error
 * before anything starts rather than a comparison with no data. What a tool always records is its module's
 * `records` (src/drivers/<tool>/<tool>-module.ts, through the registry); percentiles are recorded when the workload
 * gates on them (pgbench's per-transaction log, sysbench's histogram). The steady per-transaction metrics
 * (WAL, buffers, backend CPU) come from server counters around every run, whatever the tool.
 */
import type { Workload } from './workload.js';
import { DRIVERS } from './registry.js';
import { METRICS, STEADY_METRICS, metricFromName, type MetricName } from '../core/results/metrics.js';
import { UserError } from '../core/util/errors.js';

/** The metrics every sample of this workload carries. */
export function recordedMetrics(w: Workload): MetricName[] {
  const gated = w.metrics.map((n) => metricFromName(n)!);
  // The instruction mode's counts, from its own runs, for the workloads that ask for them.
  const counted: MetricName[] = w.instructions !== undefined ? ['instructions'] : [];
  return [...new Set([...DRIVERS.records(w), ...STEADY_METRICS, ...gated, ...counted])];
}

/**
 * Throws a UserError when `metric` (the run's --metric, when one was named) is not recorded by a workload;
 * p95/p99 are recorded for `--metric` too when the workload lists them in `metrics`.
 */
export function checkRecordable(workloads: readonly Workload[], metric: MetricName | undefined): void {
  if (metric === undefined) return;
  for (const w of workloads) {
    const recorded = recordedMetrics(w);
    if (recorded.includes(metric)) continue;
    const hint =
      metric === 'latencyP95Ms' || metric === 'latencyP99Ms'
        ? `; add ${metric === 'latencyP95Ms' ? 'p95' : 'p99'} to the workload's metrics field to record it`
        : metric === 'instructions'
          ? "; pass --instructions or set the workload's instructions field to count them"
          : '';
    throw new UserError(
      `--metric ${metric}: workload ${w.name} (${w.tool}) does not record ${METRICS[metric].label}; it records ${recorded.join(', ')}${hint}`,
    );
  }
}
