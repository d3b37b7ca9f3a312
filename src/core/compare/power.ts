/**
 * Power before spending time: can the planned rounds ever reach significance after Holm over the planned
 * cells, and how many rounds does the measured (or assumed) noise call for?
 */
import { median } from 'simple-statistics';
import type { CellKey, RunResult } from '../results/result-types.js';
import { cellId } from '../results/result-types.js';
import type { SequentialDesign } from '../results/result-types.js';
import { collectCellRuns } from './cell-runs.js';
import type { MetricName } from '../results/metrics.js';
import { perLookLevels } from '../stats/alpha-spending.js';
import { minAchievableP } from '../stats/min-achievable-p.js';
import { robustLogSpread } from '../stats/robust-log-spread.js';
import { studentTCdf } from '../stats/student-t-cdf.js';
import { studentTQuantile } from '../stats/student-t-quantile.js';
import {
  DEFAULT_ALPHA,
  DEFAULT_ASSUMED_NOISE_CV_PCT,
  DEFAULT_POWER,
  DEFAULT_THRESHOLD_PCT,
} from './defaults.js';
import { formatP } from './format.js';
import type { PrimaryTest } from './comparison-types.js';
import { signedRankMinP } from '../stats/wilcoxon-signed-rank.js';

/**
 * The fewest runs per arm for which the exact Mann–Whitney test can reach p < α/cells, i.e. for which Holm
 * over `cells` tests can call anything significant: 4 for one cell, 6 for 8 cells at α = 0.05.
 */
export function minRunsPerArm(cells: number, alpha: number): number {
  let n = 2;
  while (Math.max(1, cells) * minAchievableP(n, n) >= alpha) n++;
  return n;
}

/**
 * The fewest rounds for which the design can reach p < α/cells at all (Holm's first step). For the paired
 * design that is the unpaired floor 2/C(2n, n), because a cell whose complete rounds cannot bring the
 * signed-rank floor 2/2ⁿ below the level falls back to the rank-sum test (analysis.ts): 4 rounds for one
 * cell at α 0.05, 6 for 8 cells; the signed-rank test alone needs pairedMinRounds (6 and 9).
 */
export function minRoundsFor(test: PrimaryTest, cells: number, alpha: number): number {
  let n = 1;
  while (Math.max(1, cells) * minPFor(test, n) >= alpha) n++;
  return n;
}

/** The fewest complete rounds for which the signed-rank test itself can reach α/cells (2/2ⁿ < α/cells). */
export function pairedMinRounds(cells: number, alpha: number): number {
  let n = 1;
  while (Math.max(1, cells) * signedRankMinP(n) >= alpha) n++;
  return n;
}

/** The smallest p the design can give with n rounds (per arm): the smaller of the two tests' floors for
 * the paired design (see minRoundsFor), the rank-sum floor for the unpaired one. */
export function minPFor(test: PrimaryTest, n: number): number {
  const unpaired = minAchievableP(n, n);
  return test === 'mann-whitney' ? unpaired : Math.min(unpaired, signedRankMinP(n));
}

export interface DesignCheckInput {
  /** Planned rounds (runs per arm and cell). */
  rounds: number;
  /** Planned cells (workload × client count) in one comparison: Holm's family. */
  cells: number;
  alpha?: number;
  /** The primary test; 'signed-rank' (compareRun's default) unless given. */
  test?: PrimaryTest;
  thresholdPct?: number;
  /** Run-to-run noise (CV in percent), measured or assumed; DEFAULT_ASSUMED_NOISE_CV_PCT if absent. */
  noiseCvPct?: number | null;
  power?: number;
}

export interface DesignCheck {
  /** α each look is tested at. */
  testAlpha: number;
  /** Smallest Holm-adjusted p the plan can produce: cells × min exact p. */
  minAdjustedP: number;
  canReachAlpha: boolean;
  /** Fewest rounds for which significance is possible at all. */
  minRounds: number;
  /** Rounds for `power` to detect a change of δ at this noise (never fewer than minRounds). */
  recommendedRounds: number;
  noiseCvPct: number;
  noiseAssumed: boolean;
  warnings: string[];
}

/**
 * Which of checkDesign's warnings a message is, with or without the run loop's "workload NAME: " prefix:
 * 'reach' (can never reach significance), 'power' (the noise needs more rounds); undefined for any other.
 * The patterns follow the wording below.
 */
export function planWarningKind(message: string): 'reach' | 'power' | undefined {
  const text = message.replace(/^workload [^:]*: /, '');
  if (/^\d+ rounds per arm over \d+ cells can never reach significance after Holm /.test(text))
    return 'reach';
  if (/^with \d+(\.\d+)?% run-to-run noise \((assumed|measured)\), detecting a /.test(text)) return 'power';
  return undefined;
}

/**
 * Checks a plan before running it. Warns when the rounds can never reach significance after Holm (5 runs per
 * arm over 8 cells cannot: 8 × 0.0079 > 0.05) and when the noise needs more rounds for the target power.
 */
export function checkDesign(input: DesignCheckInput): DesignCheck {
  const alpha = input.alpha ?? DEFAULT_ALPHA;
  const testAlpha = alpha;
  const test = input.test ?? 'signed-rank';
  const thresholdPct = input.thresholdPct ?? DEFAULT_THRESHOLD_PCT;
  const noiseAssumed = input.noiseCvPct === undefined || input.noiseCvPct === null;
  const noiseCvPct = input.noiseCvPct ?? DEFAULT_ASSUMED_NOISE_CV_PCT;
  const cells = Math.max(1, input.cells);
  const minAdjustedP = Math.min(1, cells * minPFor(test, input.rounds));
  const minRounds = minRoundsFor(test, cells, testAlpha);
  const recommendedRounds = recommendRounds({
    test,
    noiseCvPct,
    thresholdPct,
    cells,
    alpha: testAlpha,
    power: input.power ?? DEFAULT_POWER,
  });
  const warnings: string[] = [];
  const canReachAlpha = minAdjustedP < testAlpha;
  if (!canReachAlpha) {
    warnings.push(
      `${input.rounds} rounds per arm over ${cells} cells can never reach significance after Holm ` +
        `(smallest possible adjusted p ${formatP(minAdjustedP)} ≥ α ${formatP(testAlpha)}); ` +
        `plan at least ${minRounds} rounds`,
    );
  }
  if (recommendedRounds > input.rounds) {
    warnings.push(
      `with ${noiseCvPct.toFixed(1)}% run-to-run noise (${noiseAssumed ? 'assumed' : 'measured'}), detecting a ` +
        `${thresholdPct}% change over ${cells} cells with ${Math.round((input.power ?? DEFAULT_POWER) * 100)}% power ` +
        `needs about ${recommendedRounds} rounds; ${input.rounds} planned`,
    );
  }
  return {
    testAlpha,
    minAdjustedP,
    canReachAlpha,
    minRounds,
    recommendedRounds,
    noiseCvPct,
    noiseAssumed,
    warnings,
  };
}

export interface RecommendRoundsInput {
  test?: PrimaryTest;
  noiseCvPct: number;
  thresholdPct: number;
  cells: number;
  alpha: number;
  power: number;
}

/**
 * Rounds per arm for `power` to find a true change of δ significant at Holm's first step (α/cells), by the
 * two-sample t approximation on ln values, n = smallest with P(T_{2n−2} < δ_ln/(σ_ln·√(2/n))·√(3/π) −
 * t_{1−α/(2·cells)}) ≥ power, where 3/π is the Mann–Whitney test's efficiency relative to t under normal
 * noise (Hodges & Lehmann, 1956). It tracks the exact-test simulation in statistics.md §2.4 within a round
 * (CV 1%, δ 2%, 8 cells: 9 rounds; the table shows 0.69 power at 8 and 0.87 at 10). A change of exactly δ
 * is then significant with that power, but its estimate falls short of δ about half the time, so "regression"
 * is reliably called for changes somewhat beyond δ. Never fewer than minRunsPerArm.
 */
export function recommendRounds(input: RecommendRoundsInput): number {
  const { noiseCvPct, thresholdPct, cells, alpha, power } = input;
  const test = input.test ?? 'signed-rank';
  const sigma = Math.log1p(noiseCvPct / 100);
  const effect = Math.log1p(thresholdPct / 100);
  let n = minRoundsFor(test, cells, alpha);
  if (!(sigma > 0)) return n;
  for (; n < MAX_RECOMMENDED_ROUNDS; n++) {
    // Paired: ln(head/base) per round has SD σ√2 when the runs' noise is independent (an upper bound:
    // noise the round shares cancels), the same standard error as the unpaired difference, on n − 1 df.
    const df = test === 'mann-whitney' ? 2 * n - 2 : n - 1;
    const noncentrality = (effect / (sigma * Math.sqrt(2 / n))) * Math.sqrt(MWU_EFFICIENCY);
    const critical = studentTQuantile(1 - alpha / (2 * cells), df);
    if (studentTCdf(noncentrality - critical, df) >= power) break;
  }
  return n;
}

/**
 * Typical run-to-run noise of a results document, as a CV in percent: the median over cells and arms of
 * the robust spread (1.4826·MAD of ln values) of the usable runs, skipping cells with fewer than 3 runs.
 * The median, not the maximum, so one pathological cell does not dictate the plan for all. Null if no cell
 * has enough runs.
 */
export function measuredNoiseCvPct(result: RunResult, metric: MetricName): number | null {
  const groups = new Map<string, number[]>();
  for (const s of result.samples) {
    const value = s.metrics[metric];
    if (s.status !== 'ok' || value === undefined || !(Number.isFinite(value) && value > 0)) continue;
    const key = `${cellId(s)}\u0000${s.arm}`;
    const list = groups.get(key) ?? [];
    list.push(value);
    groups.set(key, list);
  }
  const spreads = [...groups.values()].filter((v) => v.length >= 3).map(robustLogSpread);
  if (spreads.length === 0) return null;
  spreads.sort((a, b) => a - b);
  const mid = spreads.length >> 1;
  const spread = spreads.length % 2 === 1 ? spreads[mid]! : (spreads[mid - 1]! + spreads[mid]!) / 2;
  return 100 * Math.expm1(spread);
}

/** Mann–Whitney's asymptotic relative efficiency against the t-test under normal data. */
const MWU_EFFICIENCY = 3 / Math.PI;
/** Beyond this the answer is "the noise is too high for this threshold", not a plan. */
const MAX_RECOMMENDED_ROUNDS = 1000;

/** A cell's noise as the primary test sees it. */
export interface CellNoise {
  cell: CellKey;
  /** Rounds with a usable run in the baseline and a head arm, pooled over head arms. */
  rounds: number;
  /**
   * Robust SD of ln(head/base) per round (1.4826·MAD), as a CV in percent: the paired test's noise. Null
   * below MIN_NOISE_ROUNDS rounds.
   */
  pairedCvPct: number | null;
  /** Robust run-to-run CV within an arm (median over arms), in percent; null below MIN_NOISE_ROUNDS runs. */
  runCvPct: number | null;
}

/** Fewer rounds than this give no usable spread (a MAD of two values is half their distance). */
export const MIN_NOISE_ROUNDS = 3;

/**
 * Robust noise of one cell from the runs so far (a pilot: the first rounds, or an A/A calibration): the
 * spread of the per-round log-ratios against the baseline, pooled over head arms (what the paired test
 * sees; the shared part of the noise cancels), and the within-arm run-to-run spread. Failed runs and
 * non-positive values are ignored. The per-round log-ratio includes any real change between the arms, but
 * a constant change does not move its MAD.
 *
 * @example estimateNoise(result, { workload: 'select-only', clients: 1 }).pairedCvPct // e.g. 6.8
 */
export function estimateNoise(result: RunResult, cell: CellKey, metric: MetricName = 'tps'): CellNoise {
  const id = cellId(cell);
  const arms = collectCellRuns(
    result.samples.filter((s) => cellId(s) === id),
    metric,
  ).get(id);
  const [baseline, ...heads] = result.arms.map((a) => a.label);
  const ok = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v) && v > 0;
  const base = baseline === undefined ? undefined : arms?.get(baseline);
  const ratios: number[] = [];
  for (const head of heads) {
    const h = arms?.get(head);
    if (!base || !h) continue;
    for (const [round, b] of base.byRound) {
      const v = h.byRound.get(round);
      if (ok(b) && ok(v)) ratios.push(v / b);
    }
  }
  const spreads = [...(arms?.values() ?? [])]
    .map((a) => [...a.byRound.values()].filter(ok))
    .filter((v) => v.length >= MIN_NOISE_ROUNDS)
    .map(robustLogSpread);
  const pct = (spread: number) => 100 * Math.expm1(spread);
  return {
    cell,
    rounds: ratios.length,
    pairedCvPct: ratios.length >= MIN_NOISE_ROUNDS ? pct(robustLogSpread(ratios)) : null,
    runCvPct: spreads.length > 0 ? pct(median(spreads)) : null,
  };
}

export interface DesignPowerInput {
  /** The adaptive design (its looks, levels and budget). */
  plan: SequentialDesign;
  /** Hypotheses Holm adjusts over: cells × head arms. */
  hypotheses: number;
  /**
   * Per cell: the measured noise (estimateNoise) or null for none. A cell without a measured paired
   * spread uses √2 × its run CV, else √2 × assumedRunCvPct (independent runs: an upper bound).
   */
  cells: ReadonlyArray<{ cell: CellKey; noise: CellNoise | null }>;
  thresholdPct?: number;
  power?: number;
  /** Run-to-run CV assumed where nothing is measured; DEFAULT_ASSUMED_NOISE_CV_PCT. */
  assumedRunCvPct?: number;
}

export interface CellPower {
  cell: CellKey;
  /** SD of ln(head/base) per round used, as a CV in percent. */
  pairedCvPct: number;
  noiseSource: 'measured-paired' | 'measured-runs' | 'assumed';
  /** The smallest change (percent, either direction) detected with `power` within the budget. */
  resolvablePct: number;
  /** Whether a change of δ is resolvable within the budget. */
  thresholdResolvable: boolean;
  /** The budget (max rounds, same looks and spending) at which a change of δ reaches `power`, possibly
   * beyond this plan's; null beyond 1000 rounds. */
  roundsForThreshold: number | null;
}

export interface DesignPower {
  /** False when no look can ever reach significance after Holm: refuse the plan (UserError). */
  canReachAlpha: boolean;
  /** Why the plan is refused, naming the numbers; null when it can reach α. */
  refusal: string | null;
  cells: CellPower[];
  /** One line per cell whose δ is not resolvable within the budget, saying what would be. */
  warnings: string[];
}

/**
 * Power for planning an adaptive run, per cell: the smallest change the design resolves with `power` within
 * its budget at the cell's noise, and the refusal of a design that can never reach significance.
 *
 * Reachability: at look k Holm's first step needs p < α_k/m (m hypotheses); the signed-rank test's floor is
 * 2/2ⁿ at n rounds. If no look has 2/2^{n_k} < α_k/m the plan is refused: with the user's α, spending and
 * hypotheses, not an assumed 0.05.
 *
 * Resolvable change (normal approximation, at the last look alone, so conservative for the design):
 * Δ_ln = (t_{1−a/(2m), n−1} + t_{power, n−1})·σ_d / √(n·3/π), with n = maxRounds, a its look's level, σ_d
 * the SD of ln(head/base) per round and 3/π the signed-rank test's efficiency against the t-test under
 * normal noise (Hodges & Lehmann, 1956). Reported as 100·(e^Δ − 1).
 */
export function designPower(input: DesignPowerInput): DesignPower {
  const { plan } = input;
  const m = Math.max(1, input.hypotheses);
  const power = input.power ?? DEFAULT_POWER;
  const thresholdPct = input.thresholdPct ?? DEFAULT_THRESHOLD_PCT;
  const assumed = input.assumedRunCvPct ?? DEFAULT_ASSUMED_NOISE_CV_PCT;
  const reachable = plan.schedule.some((n, k) => minPFor(plan.test, n) < plan.lookAlpha[k]! / m);
  const refusal = reachable
    ? null
    : `with at most ${plan.maxRounds} rounds the ${plan.test} design's smallest p (${formatP(minPFor(plan.test, plan.maxRounds))}) ` +
      `never falls below a look's α after Holm over ${m} comparisons (last look: ${formatP(plan.lookAlpha.at(-1)! / m)}); ` +
      `raise the budget to at least ${roundsToReach(plan, m)} rounds or compare fewer cells`;
  const last = plan.schedule.length - 1;
  const cells = input.cells.map(({ cell, noise }): CellPower => {
    const [pairedCvPct, noiseSource] =
      noise?.pairedCvPct != null
        ? [noise.pairedCvPct, 'measured-paired' as const]
        : noise?.runCvPct != null
          ? [Math.SQRT2 * noise.runCvPct, 'measured-runs' as const]
          : [Math.SQRT2 * assumed, 'assumed' as const];
    const resolvable = (n: number, level: number) =>
      resolvableChangePct({ test: plan.test, rounds: n, level, hypotheses: m, pairedCvPct, power });
    const resolvablePct = reachable
      ? resolvable(plan.maxRounds, plan.lookAlpha[last]!)
      : Number.POSITIVE_INFINITY;
    // The smallest budget whose last look (the plan's looks cut or extended to it) resolves δ.
    let roundsForThreshold: number | null = null;
    for (let n = plan.schedule[0]!; n < MAX_RECOMMENDED_ROUNDS; n++) {
      if (resolvable(n, lastLookLevel(plan, n)) <= thresholdPct) {
        roundsForThreshold = n;
        break;
      }
    }
    return {
      cell,
      pairedCvPct,
      noiseSource,
      resolvablePct,
      thresholdResolvable: resolvablePct <= thresholdPct,
      roundsForThreshold,
    };
  });
  const warnings = cells
    .filter((c) => reachable && !c.thresholdResolvable)
    .map(
      (c) =>
        `${cellId(c.cell)}: at ${c.pairedCvPct.toFixed(1)}% per-round noise (${c.noiseSource}) ${plan.maxRounds} rounds resolve ` +
        `changes of ${c.resolvablePct.toFixed(1)}% or more, not the ${thresholdPct}% threshold` +
        (c.roundsForThreshold === null ? '' : ` (about ${c.roundsForThreshold} rounds would)`),
    );
  return { canReachAlpha: reachable, refusal, cells, warnings };
}

export interface ResolvableInput {
  test: PrimaryTest;
  /** Rounds of the analysis. */
  rounds: number;
  /** The level the analysis tests at (α, or a look's level). */
  level: number;
  /** Hypotheses Holm adjusts over. */
  hypotheses: number;
  /** SD of ln(head/base) per round, as a CV in percent. */
  pairedCvPct: number;
  power: number;
}

/**
 * The smallest change (percent, either direction) one analysis after `rounds` rounds finds significant at
 * Holm's first step with `power` (designPower's formula, see there); +∞ when those rounds can never reach
 * level/m.
 */
export function resolvableChangePct(input: ResolvableInput): number {
  const { test, rounds: n, level, power } = input;
  const m = Math.max(1, input.hypotheses);
  if (minPFor(test, n) >= level / m) return Number.POSITIVE_INFINITY;
  const df = Math.max(1, n - 1);
  const z = studentTQuantile(1 - level / (2 * m), df) + studentTQuantile(power, df);
  return 100 * Math.expm1((z * Math.log1p(input.pairedCvPct / 100)) / Math.sqrt(n * MWU_EFFICIENCY));
}

/** The fewest rounds for which one analysis resolves a change of thresholdPct (resolvableChangePct);
 * null beyond 1000 rounds. */
export function roundsToResolve(
  input: Omit<ResolvableInput, 'rounds'> & { thresholdPct: number },
): number | null {
  for (let n = 1; n < MAX_RECOMMENDED_ROUNDS; n++) {
    if (resolvableChangePct({ ...input, rounds: n }) <= input.thresholdPct) return n;
  }
  return null;
}

/** The last look's level of the plan's looks and spending cut or extended to a budget of n rounds. */
function lastLookLevel(plan: SequentialDesign, n: number): number {
  const looks = [...plan.schedule.filter((r) => r < n), n];
  return perLookLevels(
    plan.spending,
    plan.alpha,
    looks.map((r) => r / n),
  ).at(-1)!;
}

/** The fewest maximum rounds for which the plan's looks (cut or extended to it) could reach α over m. */
function roundsToReach(plan: SequentialDesign, m: number): number {
  for (let n = plan.schedule[0]!; n < MAX_RECOMMENDED_ROUNDS; n++) {
    const looks = [...plan.schedule.filter((r) => r < n), n];
    const levels = perLookLevels(
      plan.spending,
      plan.alpha,
      looks.map((r) => r / n),
    );
    if (looks.some((r, k) => minPFor(plan.test, r) < levels[k]! / m)) return n;
  }
  return MAX_RECOMMENDED_ROUNDS;
}
