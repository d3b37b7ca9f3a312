/**
 * The comparison of a whole results document: every head arm against arms[0], per cell, with Holm across
 * all cells of that arm's comparison, per-workload thresholds, drift diagnostics, curve summaries, an
 * overall verdict, and warnings that say what to try next.
 */
import { METRICS, PRIMARY_METRIC, type MetricName } from '../results/metrics.js';
import { cellId, type CellKey, type RunResult } from '../results/types.js';
import { holmAdjust } from '../stats/holm.js';
import { collectCellRuns, documentCells, runValues, type CellRuns } from './cell-runs.js';
import { compareCurves, curveSummary } from './curve.js';
import { DEFAULT_ALPHA, DEFAULT_COLLAPSE_FRACTION, DEFAULT_THRESHOLD_PCT } from './defaults.js';
import { pairedDrift } from './drift.js';
import { formatP } from './format.js';
import { overallVerdict } from './overall.js';
import { checkPlan, measuredNoiseCvPct } from './power.js';
import { lookAtRounds, sequentialLook } from './sequential.js';
import { shiftStatistics } from './shift-statistics.js';
import type {
  ArmComparison,
  Better,
  CellComparison,
  CurveComparison,
  RunComparison,
  SequentialLook,
} from './types.js';
import { decideVerdict } from './verdict.js';

export interface CompareRunOptions {
  /** Overall false-alarm rate; DEFAULT_ALPHA (0.05). */
  alpha?: number;
  /** Default practical threshold δ in percent; `workloads[name].threshold` overrides it per workload. */
  thresholdPct?: number;
  /** Metric compared; PRIMARY_METRIC (tps) by default. Its METRICS entry says which direction is better. */
  metric?: MetricName;
  /** A pre-declared sequential schedule; verdicts then use Pocock's per-look α. `look` defaults to the look
   * the completed rounds reach. */
  sequential?: { schedule: readonly number[]; look?: number };
  /** See DEFAULT_COLLAPSE_FRACTION. */
  collapseFraction?: number;
  /** Seeded bootstrap CI of the ratio of means per cell (off by default: it costs ~1 ms per cell). */
  bootstrap?: { seed: number; resamples?: number };
}

export function compareRun(result: RunResult, options: CompareRunOptions = {}): RunComparison {
  const metric = options.metric ?? PRIMARY_METRIC;
  const better = METRICS[metric].better;
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const thresholdPct = options.thresholdPct ?? DEFAULT_THRESHOLD_PCT;
  // The run's own warnings (runs given up, servers restarted) come first: they qualify everything below.
  const warnings: string[] = [...result.warnings];
  const sequential = options.sequential ? resolveLook(result, options.sequential, alpha, warnings) : null;
  const testAlpha = sequential?.perLookAlpha ?? alpha;
  if (result.status !== 'complete') {
    const why = result.stopReason ? ` (${result.stopReason})` : '';
    warnings.push(`the results are '${result.status}'${why}: verdicts use only the runs recorded so far`);
  }
  const [baseline, ...heads] = result.arms.map((a) => a.label);
  if (baseline === undefined || heads.length === 0) {
    warnings.push(
      `the results list ${result.arms.length} arm(s); a comparison needs a baseline and at least one head`,
    );
  }

  const context: ArmContext = {
    baseline: baseline ?? '',
    cells: documentCells(result),
    runs: collectCellRuns(result.samples, metric),
    tpsRuns: metric === 'tps' ? null : collectCellRuns(result.samples, 'tps'),
    better,
    testAlpha,
    thresholds: workloadThresholds(result, thresholdPct, warnings),
    collapseFraction: options.collapseFraction ?? DEFAULT_COLLAPSE_FRACTION,
    bootstrap: options.bootstrap,
  };
  const comparisons = baseline === undefined ? [] : heads.map((head) => compareArm(context, head));
  warnings.push(...dataWarnings(result, comparisons, metric, alpha, thresholdPct, sequential));
  const overall = overallVerdict(comparisons.map((c) => ({ id: c.head, verdict: c.verdict })));
  return {
    metric,
    better,
    alpha,
    testAlpha,
    thresholdPct,
    baseline: baseline ?? null,
    verdict: overall.verdict,
    decidingArms: overall.deciding,
    comparisons,
    sequential,
    warnings,
  };
}

interface ArmContext {
  baseline: string;
  cells: CellKey[];
  runs: CellRuns;
  /** TPS runs for the curves when another metric is compared. */
  tpsRuns: CellRuns | null;
  better: Better;
  testAlpha: number;
  thresholds: (workload: string) => number;
  collapseFraction: number;
  bootstrap: CompareRunOptions['bootstrap'];
}

function compareArm(ctx: ArmContext, head: string): ArmComparison {
  const measured = ctx.cells.map((cell) => {
    const arms = ctx.runs.get(cellId(cell));
    const baseRuns = arms?.get(ctx.baseline);
    const headRuns = arms?.get(head);
    const stats = shiftStatistics(runValues(baseRuns), runValues(headRuns), {
      failed: { base: baseRuns?.failed ?? 0, head: headRuns?.failed ?? 0 },
      ...(ctx.bootstrap ? { bootstrap: ctx.bootstrap } : {}),
    });
    const missing = [!baseRuns && `base (${ctx.baseline})`, !headRuns && `head (${head})`].filter(Boolean);
    if (missing.length > 0) stats.unusable = `no runs of this cell in ${missing.join(' or ')}`;
    return { cell, stats, baseRuns, headRuns };
  });
  const tested = measured.filter((m) => m.stats.p !== null);
  const adjusted = holmAdjust(tested.map((m) => m.stats.p!));
  const adjustedByCell = new Map(tested.map((m, i) => [m.cell, adjusted[i]!]));
  const familySize = tested.length;

  const cells: CellComparison[] = measured.map(({ cell, stats, baseRuns, headRuns }) => {
    const decided = decideVerdict(stats, {
      alpha: ctx.testAlpha,
      thresholdPct: ctx.thresholds(cell.workload),
      better: ctx.better,
      pAdjusted: adjustedByCell.get(cell) ?? null,
      familySize,
    });
    const drift =
      baseRuns && headRuns && stats.p !== null && stats.minAchievableP !== null
        ? pairedDrift(baseRuns.byRound, headRuns.byRound, stats.p, stats.minAchievableP, ctx.testAlpha)
        : null;
    if (drift?.drift) {
      decided.notes = [
        ...decided.notes,
        {
          code: 'drift',
          message: `paired per-round analysis (p ${formatP(drift.pairedP)}) disagrees with the unpaired test: the runner drifted during the run`,
        },
      ];
    }
    return { id: cellId(cell), workload: cell.workload, clients: cell.clients, ...decided, drift };
  });
  const overall = overallVerdict(cells);
  return {
    baseline: ctx.baseline,
    head,
    verdict: overall.verdict,
    decidingCells: overall.deciding,
    familySize,
    cells,
    curves: curves(ctx, head),
  };
}

function curves(ctx: ArmContext, head: string): CurveComparison[] {
  const runs = ctx.tpsRuns ?? ctx.runs;
  const workloads = [...new Set(ctx.cells.map((c) => c.workload))];
  return workloads.flatMap((workload) => {
    const points = (arm: string) =>
      ctx.cells
        .filter((c) => c.workload === workload)
        .map((c) => ({ clients: c.clients, values: runValues(runs.get(cellId(c))?.get(arm)) }));
    const base = curveSummary(ctx.baseline, points(ctx.baseline), ctx.collapseFraction);
    const headCurve = curveSummary(head, points(head), ctx.collapseFraction);
    return base && headCurve ? [compareCurves(workload, base, headCurve, ctx.collapseFraction)] : [];
  });
}

/** The threshold per workload: `workloads[name].threshold` (percent) when it is a positive number. */
function workloadThresholds(
  result: RunResult,
  fallback: number,
  warnings: string[],
): (workload: string) => number {
  const overrides = new Map<string, number>();
  for (const [name, spec] of Object.entries(result.workloads ?? {})) {
    const value =
      typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>).threshold : undefined;
    if (value === undefined) continue;
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) overrides.set(name, value);
    else
      warnings.push(
        `workload '${name}' has threshold ${JSON.stringify(value)}, not a positive percentage; using ${fallback}%`,
      );
  }
  return (workload) => overrides.get(workload) ?? fallback;
}

function resolveLook(
  result: RunResult,
  spec: NonNullable<CompareRunOptions['sequential']>,
  alpha: number,
  warnings: string[],
): SequentialLook {
  if (spec.look !== undefined) return sequentialLook(spec.schedule, spec.look, alpha);
  const rounds = result.samples.reduce((max, s) => (s.status === 'ok' ? Math.max(max, s.round) : max), 0);
  const look = lookAtRounds(spec.schedule, rounds);
  if (look === 0) {
    warnings.push(
      `${rounds} round(s) completed, before the first scheduled look at ${spec.schedule[0]} rounds`,
    );
  }
  return sequentialLook(spec.schedule, Math.max(1, look), alpha);
}

function dataWarnings(
  result: RunResult,
  comparisons: readonly ArmComparison[],
  metric: MetricName,
  alpha: number,
  thresholdPct: number,
  sequential: SequentialLook | null,
): string[] {
  const warnings: string[] = [];
  const failed = result.samples.filter((s) => s.status !== 'ok').length;
  if (failed > 0) warnings.push(`${failed} failed run(s) were excluded; their failureReason says why`);
  const cells = comparisons.flatMap((c) => c.cells.map((cell) => ({ head: c.head, cell })));
  const label = ({ head, cell }: (typeof cells)[number]) =>
    comparisons.length > 1 ? `${head}:${cell.id}` : cell.id;
  const unusable = cells.filter(({ cell }) => cell.reasons.some((r) => r.code === 'insufficient-data'));
  if (unusable.length > 0) {
    warnings.push(
      `no test possible for ${unusable.map(label).join(', ')}: fewer than 2 usable runs in an arm`,
    );
  }
  const drifted = cells.filter(({ cell }) => cell.drift?.drift);
  if (drifted.length > 0) {
    warnings.push(
      `drift in ${drifted.map(label).join(', ')}: paired and unpaired analyses disagree; check the runner's ` +
        `health and prefer more rounds over these verdicts`,
    );
  }
  if (cells.some(({ cell }) => cell.verdict === 'inconclusive')) {
    const plan = checkPlan({
      rounds: Math.max(0, ...cells.map(({ cell }) => Math.min(cell.base.n, cell.head.n))),
      cells: Math.max(1, ...comparisons.map((c) => c.familySize)),
      alpha,
      looks: sequential?.looks ?? 1,
      thresholdPct,
      noiseCvPct: measuredNoiseCvPct(result, metric),
    });
    warnings.push(...plan.warnings);
  }
  return warnings;
}
