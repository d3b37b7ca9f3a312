/**
 * The steady per-transaction metrics of a results document side by side: per head arm and cell, the median
 * of each metric's runs in the baseline and in head, and the change. Descriptive only: a steady metric
 * decides a verdict only where it is gated (a workload's `metrics`, or `--metric`), through the analysis.
 * `pgperf compare --format json` prints it as `steadyMetrics`; the PR comment shows it in its details.
 */
import { median } from 'simple-statistics';
import { METRICS, STEADY_METRICS, gatedName, type SteadyMetricName } from '../../results/metrics.js';
import { cellId, type RunResult } from '../../results/result-types.js';
import { collectCellRuns, documentCells, runValues } from '../cell-runs.js';
import { memoryContextsComparison, type MemoryContextsComparison } from './memory-contexts-summary.js';

export interface SteadyMetricRow {
  metric: SteadyMetricName;
  /** The name a workload's `metrics` and `--metric` use for it (wal-bytes, ...). */
  name: string;
  label: string;
  unit: string;
  /** Medians over the arm's successful runs that recorded the metric; null when none did. */
  base: number | null;
  head: number | null;
  /** Runs that entered each median. */
  baseRuns: number;
  headRuns: number;
  /** 100·(head / base − 1); null when either median is missing or the base is 0. */
  deltaPct: number | null;
}

export interface SteadyCellSummary {
  baseline: string;
  head: string;
  /** cellId: "workload@clients". */
  cell: string;
  workload: string;
  clients: number;
  /** The metrics either arm recorded, in METRICS order. */
  metrics: SteadyMetricRow[];
  /** The largest backend's memory contexts, base's and head's, where its backend memory moved beyond its floors. */
  memoryContexts?: MemoryContextsComparison;
}

/** Every head arm × cell with steady metrics, in document order; empty when no run recorded any. */
export function steadySummary(result: RunResult): SteadyCellSummary[] {
  const baseline = result.arms[0]?.label;
  if (baseline === undefined) return [];
  const runs = new Map(STEADY_METRICS.map((m) => [m, collectCellRuns(result.samples, m)]));
  const out: SteadyCellSummary[] = [];
  for (const head of result.arms.slice(1).map((a) => a.label)) {
    for (const cell of documentCells(result)) {
      const id = cellId(cell);
      const metrics: SteadyMetricRow[] = [];
      for (const metric of STEADY_METRICS) {
        const arms = runs.get(metric)!.get(id);
        const values = (arm: string) => runValues(arms?.get(arm)).filter((v) => Number.isFinite(v) && v >= 0);
        const b = values(baseline);
        const h = values(head);
        if (b.length === 0 && h.length === 0) continue;
        const base = b.length ? median(b) : null;
        const headMedian = h.length ? median(h) : null;
        metrics.push({
          metric,
          name: gatedName(metric),
          label: METRICS[metric].label,
          unit: METRICS[metric].unit,
          base,
          head: headMedian,
          baseRuns: b.length,
          headRuns: h.length,
          deltaPct: base !== null && headMedian !== null && base > 0 ? 100 * (headMedian / base - 1) : null,
        });
      }
      if (metrics.length > 0) {
        const of = (arm: string) =>
          result.samples.filter(
            (s) => s.arm === arm && s.workload === cell.workload && s.clients === cell.clients,
          );
        const memoryContexts = memoryContextsComparison(of(baseline), of(head));
        out.push({
          baseline,
          head,
          cell: id,
          workload: cell.workload,
          clients: cell.clients,
          metrics,
          ...(memoryContexts ? { memoryContexts } : {}),
        });
      }
    }
  }
  return out;
}
