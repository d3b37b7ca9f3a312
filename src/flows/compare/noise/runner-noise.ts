/**
 * This runner's noise per cell, from the results store: what the planner sizes rounds with and what a run
 * checks its threshold against. Noise is a property of the machine and the cell, so runs are matched by
 * the runner id (the fingerprint's machine facts: not the settings hash, builds, client tools or controls,
 * which differ between an A/A calibration and an A/B run of the same runner) and by cell id.
 *
 * Sources, best first:
 * 1. the newest stored A/A calibration of the runner that measured the cell (≥ MIN_NOISE_ROUNDS rounds): the
 *    robust spread of ln(b/a) per round, exactly what the paired test sees (estimateNoise);
 * 2. else the history: the robust spread (1.4826·MAD) of ln(median) over the runs of the cell's TPS series
 *    since its last change point, with at least MIN_HISTORY_POINTS of them; when that change is a drift,
 *    since its start with its ramp taken out (drift-detrend.ts), so a drift is not read as noise. It is a run-to-run spread
 *    between jobs (day-to-day drift included), taken as the run CV; per round √2 × that, as if base and
 *    head were independent (designPower's convention for run CVs).
 * Plans use each estimate raised to its 80% upper bound for the points behind it (upperNoiseBound).
 */
import { estimateNoise, MIN_NOISE_ROUNDS } from '../../../core/compare/power.js';
import { fingerprintId, machineFacts } from '../../../machine/fingerprint.js';
import { analyseSeries, currentChangePoint } from '../../../core/history/history-analysis.js';
import { definitionSegments } from '../../../core/history/definition-segments.js';
import { detrendedMedians } from '../../../core/history/drift-detrend.js';
import { buildSeries, type HistoryRun, type Series } from '../../../core/history/series.js';
import type { MetricName } from '../../../core/results/metrics.js';
import {
  cellId,
  type CellKey,
  type Environment,
  type RunResult,
} from '../../../core/results/result-types.js';
import { DEFAULT_MAX_P, DEFAULT_MIN_SEGMENT, minPointsForDetection } from '../../../core/stats/e-divisive.js';
import { robustLogSpread } from '../../../core/stats/robust-log-spread.js';
import type { MissingNoise, NoiseEstimate } from '../../../core/compare/noise-design-types.js';
import type { ResultStore } from '../../../store/store.js';
import { withCurrentDefinitions } from '../../history/current-definitions.js';

/** Fewest history points since the last change point for a spread (and for change points to be sought). */
export const MIN_HISTORY_POINTS = minPointsForDetection(DEFAULT_MIN_SEGMENT);
/** The newest stored runs of the cells' workloads read for noise (older ones say little about today). */
export const NOISE_RUNS_READ = 200;
/** The metric noise is estimated on: throughput, the primary metric. */
const NOISE_METRIC: MetricName = 'tps';

export interface RunnerNoise {
  /** The runner id (runnerId) the estimates are for. */
  runner: string;
  cells: NoiseEstimate[];
  missing: MissingNoise[];
}

/**
 * A noise estimate from `points` values raised to its one-sided 80% upper bound: × (1 + 0.8416 × 1.166/√points),
 * 1.166/√n being the relative standard error of 1.4826·MAD under normal noise (the MAD's efficiency is 37%).
 * Planning from the bare estimate of a 10-round calibration gave 59-67% power where 80% was stated; from
 * this bound 77-82% (bench/noise-design-sim.ts).
 */
export function upperNoiseBound(cvPct: number, points: number): number {
  return points > 0 ? cvPct * (1 + (Z_80 * MAD_RELATIVE_SE) / Math.sqrt(points)) : cvPct;
}
const Z_80 = 0.8416;
const MAD_RELATIVE_SE = 1.166;

/** The runner a run was measured on: fingerprintId of the machine facts alone. */
export function runnerId(env: Environment): string {
  return fingerprintId(machineFacts(env));
}

/**
 * Whether a stored run is an A/A calibration: recorded (`calibration: true`), or, for documents written before
 * that was recorded, at least two arms of one install (same bin dir, server version and build commit, no
 * per-arm settings) measured in one job (not a stored baseline).
 */
export function isCalibrationRun(run: RunResult): boolean {
  if (run.calibration === true) return true;
  if (run.baseline || run.arms.length < 2) return false;
  const [first] = run.arms;
  const sha = (a: RunResult['arms'][number]) => (a.build as { sha?: unknown } | undefined)?.sha;
  return run.arms.every(
    (a) =>
      a.binDir === first!.binDir &&
      a.serverVersion === first!.serverVersion &&
      sha(a) === sha(first!) &&
      Object.keys(a.settingOverrides ?? {}).length === 0,
  );
}

export interface RunnerNoiseOptions {
  /** A run id to leave out (the run being judged). */
  exclude?: string;
}

/**
 * The noise of each cell on the runner, from stored runs (any order, any runner). Pure.
 *
 * @example estimateRunnerNoise(runs, runnerId(env), [{ workload: 'ro', clients: 1 }]).cells[0]?.perRoundCvPct
 */
export function estimateRunnerNoise(
  runs: readonly RunResult[],
  runner: string,
  cells: readonly CellKey[],
  options: RunnerNoiseOptions = {},
): RunnerNoise {
  const mine = runsOf(runs, runner, options);
  const calibrations = mine.filter(isCalibrationRun);
  // A change in level is a change point, cut off below.
  const series = runnerSeries(mine, runner).filter((s) => s.key.metric === NOISE_METRIC);
  const out: RunnerNoise = { runner, cells: [], missing: [] };
  for (const cell of cells) {
    const id = cellId(cell);
    const key = { workload: cell.workload, clients: cell.clients };
    const fromCalibration = calibrationNoise(calibrations, cell);
    if (fromCalibration) {
      out.cells.push({ ...key, id, ...fromCalibration });
      continue;
    }
    const s = series.find((x) => x.key.workload === cell.workload && x.key.clients === cell.clients);
    const points = s?.points ?? [];
    const analysed =
      s && points.length >= MIN_HISTORY_POINTS
        ? analyseSeries(s, { maxP: DEFAULT_MAX_P, minSegment: DEFAULT_MIN_SEGMENT, minMagnitude: 0 })
        : undefined;
    // Since the newest change point, or the workload's newest definition: no noise across either. A drift
    // bounds the runs by its start, and its ramp is taken out of them: a drift is no noise either.
    const current = analysed ? currentChangePoint(analysed) : undefined;
    const start = Math.max(current?.index ?? 0, definitionSegments(points).at(-1)?.start ?? 0);
    const segment = points.slice(start);
    if (segment.length < MIN_HISTORY_POINTS) {
      const had =
        points.length === 0
          ? 'no stored run of it'
          : start > 0
            ? `${segment.length} run(s) since its last change point (${points[start]!.date})`
            : `${points.length} stored run(s)`;
      out.missing.push({
        ...key,
        id,
        reason:
          `no calibration (A/A) run of ${id} on this runner, and its history has ${had}; ` +
          `at least ${MIN_HISTORY_POINTS} are needed (run pgperf calibrate with the store)`,
      });
      continue;
    }
    const runCvPct = 100 * Math.expm1(robustLogSpread(detrendedMedians(points, start, current)));
    out.cells.push({
      ...key,
      id,
      source: 'history',
      runId: segment.at(-1)!.runId,
      date: segment[0]!.date,
      points: segment.length,
      pairedCvPct: null,
      runCvPct,
      perRoundCvPct: Math.SQRT2 * runCvPct,
      planningCvPct: upperNoiseBound(Math.SQRT2 * runCvPct, segment.length),
    });
  }
  return out;
}

/** The finished runs of a runner with samples (noise is in them), newest first, without the excluded one. */
export function runsOf(
  runs: readonly RunResult[],
  runner: string,
  options: RunnerNoiseOptions = {},
): RunResult[] {
  return runs
    .filter(
      (r) =>
        r.status !== 'running' &&
        r.samples.length > 0 &&
        r.runId !== options.exclude &&
        runnerId(r.environment) === runner,
    )
    .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
}

/**
 * The history series of a runner's runs: every run relabelled with the runner id, so that runs whose
 * settings or builds differ still form one series per cell and metric.
 */
export function runnerSeries(
  runs: readonly RunResult[],
  runner: string,
  metrics?: readonly MetricName[],
): Series[] {
  return buildSeries(
    runs.map((r): HistoryRun => ({ ...r, fingerprint: { id: runner, facts: {} } })),
    metrics,
  );
}

/** The newest calibration (newest first) that measured the cell with enough rounds. */
function calibrationNoise(
  calibrations: readonly RunResult[],
  cell: CellKey,
): Omit<NoiseEstimate, 'id' | 'workload' | 'clients'> | undefined {
  for (const run of calibrations) {
    const noise = estimateNoise(run, cell, NOISE_METRIC);
    if (noise.pairedCvPct === null || noise.rounds < MIN_NOISE_ROUNDS) continue;
    return {
      source: 'calibration',
      runId: run.runId ?? run.startedAt,
      date: run.startedAt,
      points: noise.rounds,
      pairedCvPct: noise.pairedCvPct,
      runCvPct: noise.runCvPct,
      perRoundCvPct: noise.pairedCvPct,
      planningCvPct: upperNoiseBound(noise.pairedCvPct, noise.rounds),
    };
  }
  return undefined;
}

/** What reading noise needs of a store (ResultStore satisfies it). */
export type NoiseStore = Pick<ResultStore, 'list' | 'load'>;

/**
 * The runner's noise per cell from a store: reads the newest NOISE_RUNS_READ complete or interrupted runs
 * of the cells' workloads, then estimateRunnerNoise.
 */
export async function loadRunnerNoise(
  store: NoiseStore,
  runner: string,
  cells: readonly CellKey[],
  options: RunnerNoiseOptions = {},
): Promise<RunnerNoise> {
  return estimateRunnerNoise(await loadRunsOf(store, cells, options), runner, cells, options);
}

/**
 * The newest NOISE_RUNS_READ finished runs of the cells' workloads in a store (any runner) that have samples:
 * the cheap answers decided without timed rounds (same compiled code, the counts decide) say nothing of the
 * noise and must not crowd the timed runs out of the window.
 */
export async function loadRunsOf(
  store: NoiseStore,
  cells: readonly CellKey[],
  options: RunnerNoiseOptions = {},
): Promise<RunResult[]> {
  const workloads = new Set(cells.map((c) => c.workload));
  const listed = (await store.list())
    .filter(
      (r) =>
        r.status !== 'running' &&
        r.samples > 0 &&
        r.id !== options.exclude &&
        r.workloads.some((w) => workloads.has(w)),
    )
    .slice(0, NOISE_RUNS_READ);
  const runs: RunResult[] = [];
  for (const entry of listed) runs.push(withCurrentDefinitions(await store.load(entry.id)));
  return runs;
}
