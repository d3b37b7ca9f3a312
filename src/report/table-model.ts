/**
 * The comparison's tables as plain values, built once for every markup (terminal text, markdown, HTML):
 * per head arm and workload, one table per gated metric (the comparison's metric first) with a row per
 * cell (clients, runs, medians, delta and CI, p and Holm-adjusted p, verdict and reason phrase), the
 * cells' notes and the throughput curve. Verdicts come from the comparison (ArmComparison.workloadVerdicts,
 * each cell's verdict); nothing here decides one. Renderers only format (table-cells.ts).
 */
import type {
  ArmComparison,
  Better,
  CellComparison,
  CurveComparison,
  DeltaInterval,
  OverallVerdict,
  RunComparison,
  Verdict,
} from '../compare/types.js';
import { METRICS, type MetricName } from '../results/metrics.js';
import { reasonPhrase } from './reasons.js';

export interface ArmTables {
  head: string;
  baseline: string;
  verdict: OverallVerdict;
  /** Ids of the cells that decided the verdict. */
  decidingCells: string[];
  /** Ids of the cells in a collapse region: reported, not gated. */
  unstableCells: string[];
  workloads: WorkloadTables[];
}

export interface WorkloadTables {
  workload: string;
  /** The comparison's verdict for the workload over every metric it gates on. */
  verdict: OverallVerdict;
  thresholdPct: number;
  /** One per metric the workload has cells of, the comparison's metric first. */
  tables: MetricTable[];
  curve: CurveComparison | null;
}

export interface MetricTable {
  metric: MetricName;
  /** True for the comparison's metric (RunComparison.metric), false for the other gated ones. */
  primary: boolean;
  label: string;
  unit: string;
  better: Better;
  /** Decimals the metric's values are shown with. */
  decimals: number;
  rows: TableRow[];
  /** The rows' notes (and, for the comparison's metric, why a cell is unstable), in row order. */
  notes: CellNote[];
}

export interface TableRow {
  /** "workload@clients". */
  id: string;
  clients: number;
  /** Usable runs per arm. */
  baseN: number;
  headN: number;
  baseMedian: number | null;
  headMedian: number | null;
  deltaPct: number | null;
  ci95: DeltaInterval | null;
  p: number | null;
  pAdjusted: number | null;
  verdict: Verdict;
  /** Why, in a few words (reasons.ts). */
  reason: string;
  /** In a collapse region of base's curve: reported, left out of the verdict and the gate. */
  unstable: boolean;
}

export interface CellNote {
  clients: number;
  message: string;
}

/** Every head arm's tables, in the comparison's order. */
export function buildTables(c: RunComparison): ArmTables[] {
  return c.comparisons.map((arm) => armTables(c, arm));
}

function armTables(c: RunComparison, arm: ArmComparison): ArmTables {
  const all = [...arm.cells, ...arm.otherMetricCells];
  const workloads = [...new Set(all.map((cell) => cell.workload))].map((workload): WorkloadTables => {
    const inWorkload = all.filter((cell) => cell.workload === workload);
    return {
      workload,
      verdict: arm.workloadVerdicts[workload] ?? 'inconclusive',
      thresholdPct: inWorkload[0]?.thresholdPct ?? c.thresholdPct,
      tables: c.gatedMetrics.flatMap((metric) => {
        const cells = inWorkload.filter((cell) => cell.metric === metric);
        return cells.length === 0 ? [] : [metricTable(metric, metric === c.metric, cells)];
      }),
      curve: arm.curves.find((k) => k.workload === workload) ?? null,
    };
  });
  return {
    head: arm.head,
    baseline: arm.baseline,
    verdict: arm.verdict,
    decidingCells: arm.decidingCells,
    unstableCells: arm.unstableCells,
    workloads,
  };
}

function metricTable(metric: MetricName, primary: boolean, cells: CellComparison[]): MetricTable {
  const info = METRICS[metric];
  return {
    metric,
    primary,
    label: info.label,
    unit: info.unit,
    better: info.better,
    decimals: metricDecimals(metric),
    rows: cells.map(row),
    notes: cells.flatMap((cell) =>
      [...cell.notes, ...(cell.unstable && primary ? [cell.unstable] : [])].map((n) => ({
        clients: cell.clients,
        message: n.message,
      })),
    ),
  };
}

function row(cell: CellComparison): TableRow {
  return {
    id: cell.id,
    clients: cell.clients,
    baseN: cell.base.n,
    headN: cell.head.n,
    baseMedian: cell.base.median,
    headMedian: cell.head.median,
    deltaPct: cell.deltaPct,
    ci95: cell.ci95,
    p: cell.p,
    pAdjusted: cell.pAdjusted,
    verdict: cell.verdict,
    reason: reasonPhrase(cell),
    unstable: cell.unstable !== undefined,
  };
}

/** Decimals a metric's values are shown with: milliseconds 3, rates 1. */
export function metricDecimals(metric: MetricName): number {
  return METRICS[metric].unit === 'ms' ? 3 : 1;
}
