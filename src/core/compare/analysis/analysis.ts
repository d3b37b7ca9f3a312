/**
 * The analysis behind compareRun and the adaptive design's looks: per head arm and cell the primary test,
 * effect and verdict on the rounds of one look, with one Holm family across every head arm and cell.
 */
import {
  DEFAULT_STEADY_PASS,
  steadyLookup,
  withSteadyEvidence,
  type SteadyLookup,
  type SteadyPass,
} from '../evidence/steady-evidence.js';
import { waitLookup, type WaitLookup } from '../evidence/wait-evidence.js';
import { memoryLookup, type MemoryLookup } from '../evidence/memory-evidence.js';
import { planChanged } from '../../results/plans.js';
import {
  DEFAULT_GATED_METRICS,
  GATED_METRIC_NAMES,
  METRICS,
  PRIMARY_METRIC,
  gatedName,
  metricFromName,
  type MetricName,
} from '../../results/metrics.js';
import { cellId, type CellKey, type NoiseFloor, type RunResult } from '../../results/result-types.js';
import { median } from 'simple-statistics';
import { holmAdjust } from '../../stats/holm.js';
import { robustLogSpread } from '../../stats/robust-log-spread.js';
import { collectCellRuns, documentCells, runValues, type CellRuns, type RunValue } from '../cell-runs.js';
import { compareCurves, curveSummary } from './curve.js';
import { DEFAULT_ALPHA, DEFAULT_COLLAPSE_FRACTION, DEFAULT_THRESHOLD_PCT } from '../defaults.js';
import type { SequentialDesign } from '../../results/result-types.js';
import { formatP } from '../format.js';
import { armVerdicts, overallVerdict } from '../overall.js';
import { checkDesign, planWarningKind, measuredNoiseCvPct } from '../power.js';
import { shiftStatistics } from '../shift-statistics.js';
import type {
  ArmComparison,
  Better,
  CellComparison,
  CurveComparison,
  PrimaryTest,
  RunComparison,
  SequentialLook,
} from '../comparison-types.js';
import { gatingCells, markUnstableCells } from '../unstable.js';
import { decideVerdict } from '../verdict.js';
import { floorOf, withHistoryFloor } from './history-threshold.js';

export interface CompareRunOptions {
  /** Overall false-alarm rate; DEFAULT_ALPHA (0.05). */
  alpha?: number;
  /** Default practical threshold δ in percent; `workloads[name].threshold` overrides it per workload. */
  thresholdPct?: number;
  /**
   * `thresholdPct` for every workload, their own `threshold` set aside: a threshold asked for this analysis
   * (`pgperf compare --threshold`) wins over the one a workload file recorded, and the report says so.
   */
  thresholdForAll?: boolean;
  /**
   * One metric compared in every cell (`--metric`). Without it each workload's `metrics` (default [tps]) says
   * which metrics gate its cells; PRIMARY_METRIC (tps) is then the metric of `cells` in the comparison. The
   * METRICS entry says which direction is better.
   */
  metric?: MetricName;
  /**
   * A pre-declared schedule of looks (cumulative rounds). The comparison is then the adaptive design's look
   * (adaptiveLook with a Pocock-type α-spending plan over the schedule): it analyses exactly the rounds of
   * that look, cells decided at earlier looks keep their verdicts. `look` defaults to the last look the
   * completed rounds reach.
   */
  sequential?: { schedule: readonly number[]; look?: number };
  /**
   * The adaptive design the run used (results.json `adaptive.plan`, via sequentialDesignFromJson): the comparison is
   * then adaptiveLook(result, plan, { look }).comparison, the verdicts the run loop acted on. Takes
   * precedence over `sequential`; its α replaces `alpha`.
   */
  adaptive?: { plan: SequentialDesign; look?: number };
  /** 'paired' (default): signed-rank on per-round log-ratios; 'unpaired': Mann–Whitney on the runs. */
  test?: 'paired' | 'unpaired';
  /** Run value: the metric as reported (default) or, for tps, the median per-second progress TPS. */
  value?: RunValue;
  /** See DEFAULT_COLLAPSE_FRACTION. */
  collapseFraction?: number;
  /** Seeded bootstrap CI of the ratio of means per cell (off by default: it costs ~1 ms per cell). */
  bootstrap?: { seed: number; resamples?: number };
  /** Up to which client count unchanged instructions may pass an undecided cell (steady-evidence.ts). */
  steadyPass?: SteadyPass;
  /**
   * Noise floors from the runner's nightly history (history-threshold.ts); default the document's own
   * (`analysis.noiseFloors`), so the run loop's looks and every later analysis judge alike.
   */
  noiseFloors?: readonly NoiseFloor[];
  /**
   * Workloads with no timed round by design (unexecuted-code.ts decides their cells afterwards): their
   * cells' missing runs are not warned about.
   */
  untimed?: readonly string[];
}

/** Everything about a document that does not depend on the look. */
export interface RunContext {
  result: RunResult;
  metric: MetricName;
  better: Better;
  /** The metrics a workload's cells are gated on (each a hypothesis of the one Holm family). */
  metricsOf: (workload: string) => readonly MetricName[];
  /** Every gated metric, `metric` first. */
  gatedMetrics: MetricName[];
  alpha: number;
  thresholdPct: number;
  baseline: string | undefined;
  heads: string[];
  cells: CellKey[];
  test: 'paired' | 'unpaired';
  value: RunValue;
  /** The configured threshold per workload (its `threshold`, else the run's). */
  thresholds: (workload: string) => number;
  /** The noise floor of a cell and metric from the runner's nightly history, if recorded. */
  floor: (cell: CellKey, metric: MetricName) => NoiseFloor | undefined;
  collapseFraction: number;
  bootstrap: CompareRunOptions['bootstrap'];
  warnings: string[];
  /** Each head's and workload's instruction judgement, and how far it may pass cells (steady-evidence.ts). */
  steady: SteadyLookup;
  /** Each head's and cell's waits against base's (wait-evidence.ts). */
  waits: WaitLookup;
  /** Each head's and cell's memory against base's (memory-evidence.ts). */
  memory: MemoryLookup;
  /** Whether a statement of a head's workload was planned differently from base (plans.ts). */
  planChanged: (head: string, workload: string) => boolean;
  steadyPass: SteadyPass;
  /** CompareRunOptions.untimed. */
  untimed: ReadonlySet<string>;
}

export function prepareRun(result: RunResult, options: CompareRunOptions = {}): RunContext {
  const metric = options.metric ?? PRIMARY_METRIC;
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  const thresholdPct = options.thresholdPct ?? DEFAULT_THRESHOLD_PCT;
  // The run's own warnings (runs given up, servers restarted) come first: they qualify everything below.
  const warnings: string[] = [...result.warnings];
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
  const metricsOf = options.metric ? () => [metric] : workloadMetrics(result, warnings);
  const own = workloadThresholds(result, thresholdPct, warnings);
  const thresholds = options.thresholdForAll ? () => thresholdPct : own;
  const floors = options.noiseFloors ?? result.analysis?.noiseFloors ?? [];
  const cells = documentCells(result);
  // The metrics some cell gates on, `metric` first (listed also when no cell exists yet, so reports name it).
  const used = new Set(cells.flatMap((c) => metricsOf(c.workload)));
  const gatedMetrics = [
    ...(used.has(metric) || used.size === 0 ? [metric] : []),
    ...[...used].filter((m) => m !== metric),
  ];
  return {
    result,
    metric,
    better: METRICS[metric].better,
    metricsOf,
    gatedMetrics,
    alpha,
    thresholdPct,
    baseline,
    heads: baseline === undefined ? [] : heads,
    cells,
    test: options.test ?? 'paired',
    value: options.value ?? 'final',
    thresholds,
    floor: (cell, m) => floorOf(floors, cell, m),
    collapseFraction: options.collapseFraction ?? DEFAULT_COLLAPSE_FRACTION,
    bootstrap: options.bootstrap,
    steady: steadyLookup(result),
    waits: waitLookup(result),
    memory: memoryLookup(result),
    planChanged: (head, workload) => planChanged(result.plans, workload, head),
    steadyPass: options.steadyPass ?? DEFAULT_STEADY_PASS,
    untimed: new Set(options.untimed ?? []),
    warnings,
  };
}

/** "head\0cellId\0metric": one hypothesis of the Holm family. */
export function hypothesisKey(head: string, cell: CellKey, metric: MetricName): string {
  return `${head}\u0000${cellId(cell)}\u0000${metric}`;
}

/** A hypothesis as a report names it: "cellId" for the comparison's metric, "cellId p99" for another. */
export function hypothesisLabel(ctx: Pick<RunContext, 'metric'>, id: string, metric: MetricName): string {
  return metric === ctx.metric ? id : `${id} ${gatedName(metric)}`;
}

/**
 * The metrics each workload gates on: its `metrics` field as recorded (names such as p99 mapped to metric
 * keys), [tps] when absent (documents written before the field existed).
 */
function workloadMetrics(result: RunResult, warnings: string[]): (workload: string) => MetricName[] {
  const byWorkload = new Map<string, MetricName[]>();
  for (const [name, spec] of Object.entries(result.workloads ?? {})) {
    const value =
      typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>).metrics : undefined;
    if (value === undefined) continue;
    const names = Array.isArray(value) ? value : [];
    const metrics = names.map((n) => (typeof n === 'string' ? metricFromName(n) : undefined));
    if (metrics.length === 0 || metrics.some((m) => m === undefined)) {
      warnings.push(
        `workload '${name}' has metrics ${JSON.stringify(value)}, not a list of ${Object.keys(GATED_METRIC_NAMES).join(', ')}; using tps`,
      );
      continue;
    }
    byWorkload.set(name, [...new Set(metrics as MetricName[])]);
  }
  const fallback = DEFAULT_GATED_METRICS.map((n) => metricFromName(n)!);
  return (workload) => byWorkload.get(workload) ?? fallback;
}

export interface LookSpec {
  /** Only rounds ≤ maxRound enter (Infinity: all). */
  maxRound: number;
  /** The level the tests use (α, or the look's nominal α). */
  alpha: number;
  /** Level of the pass interval (0.9 in a single analysis, 1 − 2·(nominal pass level) at look k). */
  equivalenceLevel: number;
  /** The level the pass interval must have achieved to pass a cell (1 − 2·the α the look spends). */
  passLevel?: number;
  /**
   * Cells decided at an earlier look, by hypothesisKey: they keep that comparison. Regressions and
   * improvements left Holm's family (rejected); the others stay in it with p = 1 (conservative).
   */
  frozen: ReadonlyMap<string, CellComparison>;
}

/**
 * One analysis of the rounds ≤ spec.maxRound: per head arm and cell the statistics and verdict, with Holm
 * across every head arm and cell that is still open (a single family, so the chance of any false
 * regression or improvement over all arms and cells is ≤ α). Returns head → cells in document order.
 */
export function analyseLook(ctx: RunContext, spec: LookSpec): Map<string, CellComparison[]> {
  const samples = ctx.result.samples.filter((s) => s.round <= spec.maxRound);
  const runsByMetric = new Map<MetricName, CellRuns>(
    ctx.gatedMetrics.map((metric) => [metric, collectCellRuns(samples, metric, ctx.value)]),
  );
  const statistics = (head: string, cell: CellKey, metric: MetricName, paired: boolean) => {
    const arms = runsByMetric.get(metric)!.get(cellId(cell));
    const baseRuns = arms?.get(ctx.baseline!);
    const headRuns = arms?.get(head);
    const stats = shiftStatistics(runValues(baseRuns), runValues(headRuns), {
      failed: { base: baseRuns?.failed ?? 0, head: headRuns?.failed ?? 0 },
      equivalenceLevel: spec.equivalenceLevel,
      ...(paired && baseRuns && headRuns
        ? { rounds: { base: baseRuns.byRound, head: headRuns.byRound } }
        : {}),
      ...(ctx.bootstrap ? { bootstrap: ctx.bootstrap } : {}),
    });
    const missing = [!baseRuns && `base (${ctx.baseline})`, !headRuns && `head (${head})`].filter(Boolean);
    if (missing.length > 0) stats.unusable = `no runs of this cell in ${missing.join(' or ')}`;
    return stats;
  };
  // One hypothesis per head arm, cell and gated metric, all in one Holm family.
  const measured = ctx.heads.flatMap((head) =>
    ctx.cells.flatMap((cell) =>
      ctx.metricsOf(cell.workload).map((metric) => {
        const key = hypothesisKey(head, cell, metric);
        const frozen = spec.frozen.get(key) ?? null;
        return {
          head,
          cell,
          metric,
          key,
          frozen,
          stats: frozen ? null : statistics(head, cell, metric, ctx.test === 'paired'),
        };
      }),
    ),
  );
  // Too few complete rounds for the paired test to reach the level after Holm at all (its floor 2/2ⁿ ≥ α/m)
  // while the unpaired test's floor is below it: the unpaired test decides. The choice depends on the
  // sizes only, never on the data's outcome, so it keeps the error rates.
  const m =
    measured.filter((x) => x.stats?.p != null).length +
    measured.filter(
      (x) => x.frozen && x.frozen.verdict !== 'regression' && x.frozen.verdict !== 'improvement',
    ).length;
  for (const x of measured) {
    const st = x.stats;
    if (!st || st.test !== 'signed-rank' || st.minAchievableP === null) continue;
    if (st.minAchievableP * m < spec.alpha) continue;
    const unpaired = statistics(x.head, x.cell, x.metric, false);
    if (unpaired.minAchievableP === null || unpaired.minAchievableP * m >= spec.alpha) continue;
    unpaired.notes.push({
      code: 'unpaired-fallback',
      message:
        `${st.pairs} complete round(s) cannot reach α ${formatP(spec.alpha)} over ${m} comparisons with the paired test ` +
        `(smallest p ${formatP(st.minAchievableP)}): the unpaired Mann-Whitney test decides regressions and improvements; ` +
        'the pass question keeps the paired interval',
    });
    // The pass question has its own α, which the paired interval reaches: only the regression test falls back.
    x.stats = { ...unpaired, ciEquivalence: st.ciEquivalence };
  }
  const open = measured.filter((m) => m.stats !== null && m.stats.p !== null);
  // Frozen cells that did not reject H₀ stay in the family with p = 1; rejected ones have left it.
  const stillIn = measured.filter(
    (m) => m.frozen && m.frozen.verdict !== 'regression' && m.frozen.verdict !== 'improvement',
  ).length;
  const adjusted = holmAdjust([...open.map((m) => m.stats!.p!), ...new Array<number>(stillIn).fill(1)]);
  const adjustedByKey = new Map(open.map((m, i) => [m.key, adjusted[i]!]));
  const familySize = open.length + stillIn;

  const byHead = new Map<string, CellComparison[]>(ctx.heads.map((h) => [h, []]));
  for (const m of measured) {
    if (m.frozen) {
      byHead.get(m.head)!.push(m.frozen);
      continue;
    }
    const decided = decideVerdict(m.stats!, {
      alpha: spec.alpha,
      thresholdPct: ctx.thresholds(m.cell.workload),
      better: METRICS[m.metric].better,
      pAdjusted: adjustedByKey.get(m.key) ?? null,
      familySize,
      ...(spec.passLevel !== undefined ? { passLevel: spec.passLevel } : {}),
    });
    const cell: CellComparison = {
      id: cellId(m.cell),
      workload: m.cell.workload,
      clients: m.cell.clients,
      metric: m.metric,
      ...decided,
    };
    const judged = withHistoryFloor(cell, ctx.floor(m.cell, m.metric));
    const evidence = {
      instructions: ctx.steady(m.head, m.cell.workload),
      waits: ctx.waits(m.head, m.cell, ctx.thresholds(m.cell.workload)),
      planChanged: ctx.planChanged(m.head, m.cell.workload),
      memory: ctx.memory(m.head, m.cell),
    };
    byHead.get(m.head)!.push(withSteadyEvidence(judged, evidence, ctx.steadyPass));
  }
  return byHead;
}

/** The RunComparison of an analysed look. */
export function assemble(
  ctx: RunContext,
  byHead: ReadonlyMap<string, CellComparison[]>,
  sequential: SequentialLook | null,
  testAlpha = ctx.alpha,
): RunComparison {
  const warnings = [...ctx.warnings];
  const familySize = [...byHead.values()].flat().filter((c) => c.pAdjusted !== null).length;
  const comparisons: ArmComparison[] = ctx.heads.map((head) => {
    const armCurves = curves(ctx, head);
    // Cells in a collapse region of base's curve are reported but decide nothing (src/core/compare/unstable.ts).
    const all = markUnstableCells(byHead.get(head) ?? [], armCurves);
    const gating = gatingCells(all);
    const label = (c: CellComparison) => hypothesisLabel(ctx, c.id, c.metric);
    // Every gated metric of every stable cell decides the arm's verdict.
    const overall = armVerdicts(
      gating,
      label,
      all.map((c) => c.workload),
    );
    return {
      baseline: ctx.baseline ?? '',
      head,
      verdict: overall.verdict,
      workloadVerdicts: overall.workloadVerdicts,
      decidingCells: overall.deciding,
      likelyRegressionCells: gating
        .filter((c) => c.reasons.some((r) => r.code === 'likely-regression'))
        .map(label),
      unstableCells: [...new Set(all.filter((c) => c.unstable).map((c) => c.id))],
      familySize,
      cells: all.filter((c) => c.metric === ctx.metric),
      otherMetricCells: all.filter((c) => c.metric !== ctx.metric),
      curves: armCurves,
    };
  });
  const data = dataWarnings(ctx, comparisons, sequential);
  warnings.splice(0, warnings.length, ...currentPlanWarnings(warnings, comparisons, data));
  warnings.push(...notSaidYet(warnings, data));
  const overall = overallVerdict(comparisons.map((c) => ({ id: c.head, verdict: c.verdict })));
  const tests = new Set(comparisons.flatMap((c) => c.cells.filter((x) => x.p !== null).map((x) => x.test)));
  const primaryTest: PrimaryTest =
    ctx.test === 'unpaired' || (tests.size === 1 && tests.has('mann-whitney'))
      ? 'mann-whitney'
      : 'signed-rank';
  return {
    metric: ctx.metric,
    gatedMetrics: ctx.gatedMetrics,
    better: ctx.better,
    alpha: ctx.alpha,
    testAlpha,
    thresholdPct: ctx.thresholdPct,
    baseline: ctx.baseline ?? null,
    verdict: overall.verdict,
    decidingArms: overall.deciding,
    comparisons,
    sequential,
    primaryTest,
    likelyRegressions: comparisons.flatMap((c) => c.likelyRegressionCells.map((id) => `${c.head}:${id}`)),
    warnings,
  };
}

/** Ids of the cells of `head` inside a collapse region of either curve (unstable: they do not gate). */
export function unstableCellIds(
  ctx: RunContext,
  head: string,
  cells: readonly CellComparison[],
): Set<string> {
  return new Set(
    markUnstableCells(cells, curves(ctx, head))
      .filter((c) => c.unstable)
      .map((c) => c.id),
  );
}

function curves(ctx: RunContext, head: string): CurveComparison[] {
  const runs = collectCellRuns(ctx.result.samples, 'tps', ctx.value);
  const workloads = [...new Set(ctx.cells.map((c) => c.workload))];
  return workloads.flatMap((workload) => {
    const points = (arm: string) =>
      ctx.cells
        .filter((c) => c.workload === workload)
        .map((c) => ({ clients: c.clients, values: runValues(runs.get(cellId(c))?.get(arm)) }));
    const basePoints = points(ctx.baseline ?? '');
    const headPoints = points(head);
    const base = curveSummary(ctx.baseline ?? '', basePoints, ctx.collapseFraction);
    const headCurve = curveSummary(head, headPoints, ctx.collapseFraction);
    const tolerance = Math.max(
      ctx.thresholds(workload),
      medianNoiseTolerancePct([...basePoints, ...headPoints]),
    );
    return base && headCurve
      ? [compareCurves(workload, base, headCurve, ctx.collapseFraction, tolerance)]
      : [];
  });
}

/**
 * How far two client counts' medians can differ by noise alone, in percent: CURVE_TOLERANCE_Z standard
 * errors of a difference of two medians, 1.2533·σ/√n each (the median's asymptotic SE under normal noise),
 * with σ the median robust spread of ln TPS over the points and n their median run count.
 */
function medianNoiseTolerancePct(points: ReadonlyArray<{ values: readonly number[] }>): number {
  const usable = points
    .map((p) => p.values.filter((v) => Number.isFinite(v) && v > 0))
    .filter((v) => v.length >= 3);
  if (usable.length === 0) return 0;
  const sigma = median(usable.map(robustLogSpread));
  const n = median(usable.map((v) => v.length));
  return 100 * CURVE_TOLERANCE_Z * Math.SQRT2 * MEDIAN_SE_FACTOR * (sigma / Math.sqrt(n));
}

/** Two standard errors: a plateau's argmax wandering by noise stays inside the tolerance ~95% of the time. */
const CURVE_TOLERANCE_Z = 2;
/** √(π/2): the SE of a sample median over the SE of the mean under normal noise. */
const MEDIAN_SE_FACTOR = Math.sqrt(Math.PI / 2);

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

function dataWarnings(
  ctx: RunContext,
  comparisons: readonly ArmComparison[],
  sequential: SequentialLook | null,
): string[] {
  const { result, metric, alpha, thresholdPct } = ctx;
  const warnings: string[] = [];
  const failed = result.samples.filter((s) => s.status !== 'ok').length;
  if (failed > 0) warnings.push(`${failed} failed run(s) were excluded; their failureReason says why`);
  // An untimed workload's cells have no run by design: nothing to warn about.
  const cells = comparisons.flatMap((c) =>
    [...c.cells, ...c.otherMetricCells]
      .filter((cell) => !ctx.untimed.has(cell.workload))
      .map((cell) => ({ head: c.head, cell })),
  );
  const label = ({ head, cell }: (typeof cells)[number]) => {
    const id = hypothesisLabel(ctx, cell.id, cell.metric);
    return comparisons.length > 1 ? `${head}:${id}` : id;
  };
  const unusable = cells.filter(({ cell }) => cell.reasons.some((r) => r.code === 'insufficient-data'));
  if (unusable.length > 0) {
    warnings.push(
      `no test possible for ${unusable.map(label).join(', ')}: fewer than 2 usable runs in an arm`,
    );
  }
  const unstable = cells.filter(({ cell }) => cell.unstable);
  if (unstable.length > 0) {
    warnings.push(
      `${unstable.map(label).join(', ')}: inside a throughput collapse region (more than ` +
        `${Math.round(ctx.collapseFraction * 100)}% below the peak, recovering at more clients), where runs are ` +
        'often bimodal: flagged unstable, their verdicts are shown but do not gate',
    );
  }
  const likely = cells.filter(
    ({ cell }) => !cell.unstable && cell.reasons.some((r) => r.code === 'likely-regression'),
  );
  if (likely.length > 0) {
    warnings.push(
      `regression likely in ${likely.map(label).join(', ')}, too few runs to certify it: add rounds`,
    );
  }
  if (cells.some(({ cell }) => cell.verdict === 'inconclusive')) {
    const paired = ctx.test === 'paired';
    const plan = checkDesign({
      rounds: Math.max(0, ...cells.map(({ cell }) => cell.pairs ?? Math.min(cell.base.n, cell.head.n))),
      cells: Math.max(1, cells.filter(({ cell }) => cell.p !== null).length),
      alpha: sequential ? sequential.perLookAlpha : alpha,
      thresholdPct,
      noiseCvPct: measuredNoiseCvPct(result, metric),
      test: paired ? 'signed-rank' : 'mann-whitney',
    });
    warnings.push(...plan.warnings);
  }
  return warnings;
}

/**
 * `said` without the plan-time warnings of the run loop (checkDesign's, recorded before any round) that the
 * measured run has overtaken: all of them once no cell is undecided (a verdict of -99% needs no advice on
 * rounds), and each kind the data's own check (`data`) says again in other words (the assumed noise's
 * "about 19 rounds" beside the measured noise's "about 44 rounds"). The rest of `said` is kept in order.
 */
function currentPlanWarnings(
  said: readonly string[],
  comparisons: readonly ArmComparison[],
  data: readonly string[],
): string[] {
  const undecided = comparisons.some((c) =>
    [...c.cells, ...c.otherMetricCells].some((cell) => cell.verdict === 'inconclusive'),
  );
  const saidAgain = new Set(data.map(planWarningKind));
  return said.filter((w) => {
    const kind = planWarningKind(w);
    if (kind === undefined) return true;
    if (!undecided) return false;
    // Word for word what the data says (after the "workload NAME: " prefix): kept, and the data's not added.
    return !saidAgain.has(kind) || data.some((d) => w === d || w.endsWith(`: ${d}`));
  });
}

/**
 * The messages not already among `said`, as such or after a "workload NAME: " prefix: the plan check after
 * the run repeats the run loop's plan-time warning word for word when the measured noise changes nothing.
 */
function notSaidYet(said: readonly string[], messages: readonly string[]): string[] {
  return messages.filter(
    (m) => !said.some((s) => s === m || (s.startsWith('workload ') && s.endsWith(`: ${m}`))),
  );
}
