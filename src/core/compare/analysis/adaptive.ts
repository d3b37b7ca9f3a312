/**
 * Adaptive rounds (a group-sequential design): the run loop looks at the data after each scheduled block
 * of rounds, stops every cell as soon as it is decided (regression, improvement, or no-change by
 * equivalence), keeps measuring only the undecided cells, and stops at the budget. The overall chance of
 * any false regression or improvement stays ≤ α across the looks, the cells and the head arms:
 *
 * - across looks: a Lan–DeMets α-spending function (O'Brien–Fleming- or Pocock-type) gives each look the
 *   α spent since the previous one (perLookLevels); Bonferroni over looks makes this valid for any test;
 * - across cells and head arms: Holm at each look over every hypothesis not yet rejected (cells decided as
 *   no-change stay in the family with p = 1). This is the sequentially rejective Bonferroni procedure
 *   over (look, hypothesis), a closed test, so its family-wise error is ≤ α (Maurer & Bretz, Statistics in
 *   Biopharmaceutical Research 5 (2013) 311-320);
 * - passing is its own question with its own α (passLevels): non-inferiority, "head is not worse than base
 *   by δ or more", one-sided, asked of every cell at every look with the pass α that look spends: the
 *   1 − 2·α_pass,k interval's bound on the worse side beyond −δ passes the cell ('not-worse', or 'no-change'
 *   when the interval lies inside ±δ, which is TOST equivalence at the same level). A false pass is a wrong
 *   answer about one cell (a regressed cell waved through), so its α is per cell (DEFAULT_PASS_ALPHA 0.1,
 *   `--pass-alpha`), spent over the looks by Bonferroni (the sizes the exact test actually used add up to
 *   ≤ it); it is front-loaded, so an unchanged patch is decided in about ten rounds, while the regression
 *   question keeps α and O'Brien–Fleming spending.
 *
 * Everything here is pure: a look is recomputed from the results document and the plan alone (the verdicts
 * of earlier looks are recomputed too, exactly, from their own rounds), so the run loop keeps no state.
 */
import type { CellKey, RunResult } from '../../results/result-types.js';
import { cellId } from '../../results/result-types.js';
import { perLookLevels, SPENDING_FUNCTIONS, type SpendingFunction } from '../../stats/alpha-spending.js';
import type { MetricName } from '../../results/metrics.js';
import {
  analyseLook,
  assemble,
  hypothesisKey,
  hypothesisLabel,
  prepareRun,
  unstableCellIds,
  type CompareRunOptions,
} from './analysis.js';
import { DEFAULT_ALPHA, DEFAULT_PASS_ALPHA } from '../defaults.js';
import { minRoundsFor, pairedMinRounds } from '../power.js';
import { signedRankCiIndex } from '../../stats/walsh-hodges-lehmann.js';
import type { CellComparison, PrimaryTest, ReasonCode, RunComparison, Verdict } from '../comparison-types.js';
import type { SequentialDesign, AdaptiveLookOutcome, AdaptiveRecord } from '../../results/result-types.js';
import { unchangedHeadsOf } from '../../results/unchanged-heads.js';
export type { SequentialDesign, AdaptiveLookOutcome, AdaptiveRecord };

export interface SequentialDesignInput {
  /** Cumulative rounds at each look, strictly increasing; DEFAULT_SCHEDULE ([6, 10, 15, 20, 30]). */
  schedule?: readonly number[];
  /** Overall false-alarm rate; DEFAULT_ALPHA. */
  alpha?: number;
  /** DEFAULT_SPENDING ('obrien-fleming') unless given. */
  spending?: SpendingFunction;
  /** The budget in rounds; looks beyond it are dropped and a final look at maxRounds is added. Default: the
   * last scheduled look. */
  maxRounds?: number;
  /** The primary test (sets the fewest rounds a first look needs); 'signed-rank' by default. */
  test?: PrimaryTest;
  /** One-sided α per cell of the pass question, spent over the looks; DEFAULT_PASS_ALPHA. */
  passAlpha?: number;
}

/**
 * The default looks (cumulative rounds): a first look at 6 rounds, where the signed-rank test can first reach
 * α 0.05 at all, then growing blocks up to 30 (bench/adaptive-sim.ts evaluates this schedule).
 */
export const DEFAULT_SCHEDULE: readonly number[] = [6, 10, 15, 20, 30];

/** O'Brien–Fleming-type spending: keeps nearly the whole α for the last look, so a design that runs to its
 * budget loses almost no power against a fixed design, while large effects still stop early. */
export const DEFAULT_SPENDING: SpendingFunction = 'obrien-fleming';

/**
 * Validates and fixes an adaptive design before any run. Throws RangeError naming the bad value: a schedule
 * that is empty, not integers or not strictly increasing; a first look below the rounds the test needs to
 * reach α at all (6 for the signed-rank test at α 0.05: 2/2⁶ = 0.031); maxRounds below the first look; α
 * outside (0, 1); an unknown spending function.
 *
 * @example designSequential({ schedule: [6, 10, 15, 20, 30] }).lookAlpha // [1.2e-5, 0.00068, 0.0049, 0.0108, 0.0336]
 */
export function designSequential(input: SequentialDesignInput): SequentialDesign {
  return buildPlan(input, true);
}

function buildPlan(input: SequentialDesignInput, checkFirstLook: boolean): SequentialDesign {
  const alpha = input.alpha ?? DEFAULT_ALPHA;
  const spending = input.spending ?? DEFAULT_SPENDING;
  const test = input.test ?? 'signed-rank';
  const passAlpha = input.passAlpha ?? DEFAULT_PASS_ALPHA;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(passAlpha > 0 && passAlpha < 0.5)) {
    throw new RangeError(`the pass alpha must be in (0, 0.5), got ${passAlpha}`);
  }
  if (!SPENDING_FUNCTIONS.includes(spending)) {
    throw new RangeError(
      `spending must be one of ${SPENDING_FUNCTIONS.join(', ')}, got '${String(spending)}'`,
    );
  }
  const s = input.schedule ?? DEFAULT_SCHEDULE;
  const bad = s.findIndex((r, i) => !Number.isInteger(r) || r < 1 || (i > 0 && r <= s[i - 1]!));
  if (s.length === 0 || bad >= 0) {
    throw new RangeError(
      `the schedule must be strictly increasing positive round counts, e.g. [6, 10, 15, 20, 30]; got [${s.join(', ')}]` +
        (bad >= 0 ? ` (look ${bad + 1}: ${s[bad]})` : ''),
    );
  }
  const first = s[0]!;
  const needed = test === 'signed-rank' ? pairedMinRounds(1, alpha) : minRoundsFor(test, 1, alpha);
  if (checkFirstLook && first < needed) {
    throw new RangeError(
      `the first look at ${first} rounds is below the ${needed} rounds the ${test} test needs to reach α ${alpha} at all`,
    );
  }
  const maxRounds = input.maxRounds ?? s[s.length - 1]!;
  if (!Number.isInteger(maxRounds) || maxRounds < first) {
    throw new RangeError(`maxRounds must be an integer ≥ the first look (${first} rounds), got ${maxRounds}`);
  }
  const schedule = s.filter((r) => r < maxRounds);
  schedule.push(maxRounds);
  const informationFractions = schedule.map((r) => r / maxRounds);
  const lookAlpha = perLookLevels(spending, alpha, informationFractions);
  let spent = 0;
  const cumulativeAlpha = lookAlpha.map((a) => (spent += a));
  const pass = passLevels(passAlpha, schedule, test);
  return {
    schedule,
    maxRounds,
    alpha,
    spending,
    test,
    informationFractions,
    cumulativeAlpha,
    lookAlpha,
    passAlphaTotal: passAlpha,
    passAlpha: pass.spent,
    equivalenceLevels: pass.nominal.map((a) => 1 - 2 * a),
    method: 'bonferroni-spent-increments',
  };
}

/** Rounds by which the pass question has spent PASS_HORIZON_SHARE of its α (when the budget is longer). */
export const PASS_HORIZON_ROUNDS = 10;
/**
 * Share of the pass α spent by PASS_HORIZON_ROUNDS: most of it early, because an unchanged patch should be
 * passed within about ten rounds (bench/adaptive-sim.ts: median 10 at round-shared 3% noise, δ 2%); the rest,
 * spent linearly up to the budget, lets later looks still pass a noisier cell.
 */
const PASS_HORIZON_SHARE = 0.85;

/**
 * The pass question's one-sided levels per look. Cumulative pass α by n rounds (N the last look):
 * α·s·n/H up to H = PASS_HORIZON_ROUNDS, then linear from α·s to α at N (s = PASS_HORIZON_SHARE; linear
 * to α at N when N ≤ H). Look k tests at `nominal[k]` = that cumulative α minus what earlier looks spent;
 * what a look spends (`spent[k]`) is the size the exact signed-rank interval actually has at its rounds
 * (below the nominal level: the test is discrete, 1/64 at 6 rounds), so the unused rest carries to the next
 * look and Σ spent ≤ α (Bonferroni over the looks). A cell with fewer complete rounds than the look has a
 * different size: it passes only if its interval is at least as wide as the planned one (never above the
 * α the plan spent). The rank-sum (unpaired) plan spends its nominal levels.
 */
export function passLevels(
  alpha: number,
  schedule: readonly number[],
  test: PrimaryTest,
): { nominal: number[]; spent: number[] } {
  const last = schedule[schedule.length - 1]!;
  const h = Math.min(PASS_HORIZON_ROUNDS, last);
  const share = last > h ? PASS_HORIZON_SHARE : 1;
  const cumulative = (n: number) =>
    n >= last
      ? alpha
      : n <= h
        ? (alpha * share * n) / h
        : alpha * (share + ((1 - share) * (n - h)) / (last - h));
  const nominal: number[] = [];
  const spent: number[] = [];
  let used = 0;
  for (const n of schedule) {
    const level = Math.max(0, cumulative(n) - used);
    let size = level;
    if (test === 'signed-rank' && level > 0) {
      const { achievedLevel } = signedRankCiIndex(n, 1 - 2 * level);
      // Below the floor the interval cannot reach the level: the look cannot pass anything, spends nothing.
      size = achievedLevel >= 1 - 2 * level - 1e-12 ? (1 - achievedLevel) / 2 : 0;
    }
    nominal.push(level);
    spent.push(size);
    used += size;
  }
  return { nominal, spent };
}

export interface AdaptiveLookOptions extends Pick<
  CompareRunOptions,
  'thresholdPct' | 'metric' | 'value' | 'collapseFraction' | 'bootstrap' | 'steadyPass' | 'untimed'
> {
  /** 1-based look; default: the last look whose rounds the document's samples reach. */
  look?: number;
  /** Stop everything once a regression is certified (the gate's answer cannot change); default true. */
  stopOnRegression?: boolean;
}

/** One decided hypothesis (head arm × cell × gated metric), frozen at the look that decided it. */
export interface DecidedCell {
  head: string;
  cell: CellKey;
  /** cellId(cell). */
  id: string;
  metric: MetricName;
  /** How reports name it: the cell id, followed by the metric's short name when it is not the comparison's. */
  label: string;
  verdict: Exclude<Verdict, 'inconclusive'>;
  /** The look that decided it (1-based). */
  look: number;
  reason: ReasonCode;
}

export interface AdaptiveLookResult {
  look: number;
  rounds: number;
  /** The comparison at this look: decided cells carry their verdict of the look that decided them. */
  comparison: RunComparison;
  /** Cells with at least one head arm or gated metric still undecided: unless `stop`, measure them (every
   * arm) in the rounds up to nextRounds; a cell is decided only when every gated metric of it is. */
  openCells: CellKey[];
  /** Every decided hypothesis so far. */
  decidedCells: DecidedCell[];
  /** Rounds to reach before the next look; null when stopping. */
  nextRounds: number | null;
  stop: boolean;
  reason: string;
  /** This look and every earlier one, for results.json (adaptive: { plan, looks }). */
  history: AdaptiveLookOutcome[];
}

/**
 * Analyses look `look` of an adaptive plan on a results document: exactly the rounds ≤ schedule[look − 1],
 * earlier looks replayed on their own rounds so that a cell decided at an earlier look keeps that verdict
 * (frozen) and leaves the family, Holm across every open head arm × cell at the look's nominal level, TOST
 * equivalence at the look's level. Says which cells stay open and whether to stop: nothing open, the last
 * look, or (stopOnRegression) a certified regression.
 *
 * Throws RangeError when the look does not exist or the document has not reached the first look.
 */
export function adaptiveLook(
  result: RunResult,
  plan: SequentialDesign,
  options: AdaptiveLookOptions = {},
): AdaptiveLookResult {
  const recorded = result.samples.reduce((max, s) => Math.max(max, s.round), 0);
  const look = options.look ?? lookAtRounds(plan.schedule, recorded);
  if (!Number.isInteger(look) || look < 1 || look > plan.schedule.length) {
    throw new RangeError(
      options.look === undefined
        ? `${recorded} round(s) recorded, before the first look at ${plan.schedule[0]} rounds`
        : `look must be between 1 and ${plan.schedule.length}, got ${look}`,
    );
  }
  const ctx = prepareRun(result, {
    ...options,
    alpha: plan.alpha,
    test: plan.test === 'signed-rank' ? 'paired' : 'unpaired',
  });
  const unchanged = new Set(unchangedHeadsOf(result).map((c) => c.head));
  const frozen = new Map<string, CellComparison>();
  const decidedCells: DecidedCell[] = [];
  const history: AdaptiveLookOutcome[] = [];
  let byHead = new Map<string, CellComparison[]>();
  let stopReason: string | null = null;
  const openCellIds: Array<Set<string>> = [];
  for (let k = 1; k <= look; k++) {
    const rounds = plan.schedule[k - 1]!;
    byHead = analyseLook(ctx, {
      maxRound: rounds,
      alpha: plan.lookAlpha[k - 1]!,
      equivalenceLevel: plan.equivalenceLevels[k - 1]!,
      ...(plan.passAlpha ? { passLevel: 1 - 2 * plan.passAlpha[k - 1]! } : {}),
      frozen,
    });
    const decidedNow: AdaptiveLookOutcome['decided'] = [];
    const open: string[] = [];
    const openIds = new Set<string>();
    openCellIds.push(openIds);
    for (const [head, cells] of byHead) {
      // A head that runs base's code with base's settings is never measured: the claim decides its cells.
      if (unchanged.has(head)) continue;
      for (const c of cells) {
        const key = hypothesisKey(head, c, c.metric);
        // An untimed workload's cells are decided without rounds: never open, never decided by a look.
        if (frozen.has(key) || ctx.untimed.has(c.workload)) continue;
        const label = hypothesisLabel(ctx, c.id, c.metric);
        if (c.verdict === 'inconclusive') {
          open.push(`${head}:${label}`);
          openIds.add(c.id);
          continue;
        }
        frozen.set(key, c);
        decidedNow.push({ id: `${head}:${label}`, verdict: c.verdict });
        decidedCells.push({
          head,
          cell: { workload: c.workload, clients: c.clients },
          id: c.id,
          metric: c.metric,
          label,
          verdict: c.verdict,
          look: k,
          reason: c.reasons[0]!.code,
        });
      }
    }
    // A regression in an unstable cell (a collapse region) does not gate, so it cannot end the run either.
    const unstable = new Map([...byHead].map(([head, cells]) => [head, unstableCellIds(ctx, head, cells)]));
    const regressed = decidedCells.filter(
      (d) => d.verdict === 'regression' && !unstable.get(d.head)?.has(d.id),
    );
    stopReason =
      open.length === 0
        ? `every cell decided at look ${k} of ${plan.schedule.length} (${rounds} rounds)`
        : (options.stopOnRegression ?? true) && regressed.length > 0
          ? `regression certified at look ${k} (${regressed.map((d) => `${d.head}:${d.label}`).join(', ')}); the gate's answer cannot change`
          : k === plan.schedule.length
            ? `the budget of ${plan.maxRounds} rounds is spent: ${open.length} cell(s) stay undecided`
            : null;
    history.push({
      look: k,
      rounds,
      lookAlpha: plan.lookAlpha[k - 1]!,
      equivalenceLevel: plan.equivalenceLevels[k - 1]!,
      decided: decidedNow,
      open,
      stop: stopReason !== null,
      reason:
        stopReason ?? `${open.length} cell(s) undecided at look ${k}; continue to ${plan.schedule[k]} rounds`,
    });
    if (stopReason !== null && k < look) {
      // The design stopped here; later looks of this document are not part of it.
      return finish(k);
    }
  }
  return finish(look);

  function finish(k: number): AdaptiveLookResult {
    const outcome = history[k - 1]!;
    const comparison = assemble(
      ctx,
      byHead,
      {
        schedule: [...plan.schedule],
        look: k,
        looks: plan.schedule.length,
        perLookAlpha: plan.lookAlpha[k - 1]!,
        spending: plan.spending,
      },
      plan.lookAlpha[k - 1]!,
    );
    const openIds = openCellIds[k - 1]!;
    return {
      look: k,
      rounds: plan.schedule[k - 1]!,
      comparison,
      openCells: ctx.cells.filter((c) => openIds.has(cellId(c))),
      decidedCells,
      nextRounds: outcome.stop ? null : plan.schedule[k]!,
      stop: outcome.stop,
      reason: outcome.reason,
      history: history.slice(0, k),
    };
  }
}

/** The record to store after a look (replaces the previous one: history holds every look so far). */
export function adaptiveRecord(plan: SequentialDesign, look: AdaptiveLookResult): AdaptiveRecord {
  return { plan, looks: look.history };
}

/**
 * An SequentialDesign read back from results.json, recomputed from its declared inputs (schedule, maxRounds,
 * alpha, spending, test, passAlphaTotal) so a hand-edited level cannot loosen the design. Throws RangeError naming the field.
 */
export function sequentialDesignFromJson(value: unknown): SequentialDesign {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const field = (name: string, ok: boolean) => {
    if (!ok) throw new RangeError(`adaptive.plan.${name} is missing or invalid: ${JSON.stringify(v[name])}`);
  };
  field('schedule', Array.isArray(v.schedule) && v.schedule.every((r) => typeof r === 'number'));
  field('maxRounds', typeof v.maxRounds === 'number');
  field('alpha', typeof v.alpha === 'number');
  field('spending', SPENDING_FUNCTIONS.includes(v.spending as SpendingFunction));
  field('test', v.test === 'signed-rank' || v.test === 'mann-whitney');
  field('passAlphaTotal', v.passAlphaTotal === undefined || typeof v.passAlphaTotal === 'number');
  return buildPlan(
    {
      schedule: v.schedule as number[],
      maxRounds: v.maxRounds as number,
      alpha: v.alpha as number,
      spending: v.spending as SpendingFunction,
      test: v.test as PrimaryTest,
      // Plans written before the pass α was its own setting passed at the plan's α.
      passAlpha: (v.passAlphaTotal as number | undefined) ?? (v.alpha as number),
    },
    false,
  );
}

/** The last look (1-based) whose cumulative rounds are ≤ `rounds`; 0 before the first look. */
export function lookAtRounds(schedule: readonly number[], rounds: number): number {
  let look = 0;
  schedule.forEach((r, i) => {
    if (r <= rounds) look = i + 1;
  });
  return look;
}

/**
 * compareRun's `sequential` option: the adaptive design's look with Pocock-type spending over the given
 * schedule (the former Pocock constant-level design's closest spending-function counterpart). Documents that
 * have not reached the first look are analysed at the first look's level with a warning.
 */
export function adaptiveCompare(
  result: RunResult,
  options: CompareRunOptions,
  spec: NonNullable<CompareRunOptions['sequential']>,
): RunComparison {
  const test = options.test === 'unpaired' ? 'mann-whitney' : 'signed-rank';
  const plan = buildPlan(
    { schedule: spec.schedule, alpha: options.alpha ?? DEFAULT_ALPHA, spending: 'pocock', test },
    false,
  );
  const recorded = result.samples.reduce((max, s) => Math.max(max, s.round), 0);
  const look = spec.look ?? Math.max(1, lookAtRounds(plan.schedule, recorded));
  const r = adaptiveLook(result, plan, { ...options, look, stopOnRegression: false });
  if (spec.look === undefined && lookAtRounds(plan.schedule, recorded) === 0) {
    r.comparison.warnings.push(
      `${recorded} round(s) completed, before the first scheduled look at ${plan.schedule[0]} rounds`,
    );
  }
  return r.comparison;
}
