import { median, sampleStandardDeviation, mean } from 'simple-statistics';
import { oneSampleT } from '../stats/one-sample-t.js';
import { walshHodgesLehmann } from '../stats/walsh-hodges-lehmann.js';
import { signedRankMinP, wilcoxonSignedRank } from '../stats/wilcoxon-signed-rank.js';
import { bootstrapRatioOfMeans } from '../stats/bootstrap-ratio-of-means.js';
import { hodgesLehmann, type ShiftInterval } from '../stats/hodges-lehmann.js';
import { mannWhitneyU } from '../stats/mann-whitney.js';
import { minAchievableP } from '../stats/min-achievable-p.js';
import { welchT } from '../stats/welch-t.js';
import { BOOTSTRAP_MIN_RUNS, EQUIVALENCE_LEVEL, MIN_RUNS_PER_ARM, REPORT_LEVEL } from './defaults.js';
import { aaSpreadPct } from './noisy-cell.js';
import type { ArmSummary, DeltaInterval, Note, PrimaryTest, ShiftStatistics } from './comparison-types.js';

export interface ShiftStatisticsOptions {
  /** Failed runs per arm, excluded before this point but counted in the summary. */
  failed?: { base: number; head: number };
  /** Add a seeded percentile-bootstrap CI of the ratio of means (only with ≥ 10 runs per arm). */
  bootstrap?: { seed: number; resamples?: number };
  /**
   * The values by round (the same runs as the value arrays): the primary test becomes the signed-rank test
   * on ln(head/base) of the rounds where both arms have a usable value, when there are at least
   * MIN_RUNS_PER_ARM such rounds; otherwise the unpaired test decides (note 'unpaired-fallback').
   */
  rounds?: { base: ReadonlyMap<number, number>; head: ReadonlyMap<number, number> };
  /** Level of the equivalence interval (ciEquivalence); EQUIVALENCE_LEVEL (0.9) by default. */
  equivalenceLevel?: number;
}

/**
 * Everything the verdict needs about one base/head comparison, computed on the usable values. With the
 * values by round (compareRun), the primary test is paired: the exact Wilcoxon signed-rank test on the
 * per-round log-ratios ln(head/base), and the effect is the Walsh-average Hodges–Lehmann estimate with its
 * exact signed-rank intervals (the test's duals). Without rounds (compareSamples) it is the Mann–Whitney
 * p with the two-sample Hodges–Lehmann change of ln values and its distribution-free intervals. Δ% is
 * reported with its 95% and 90% intervals and the equivalence interval; Welch's t on logs (and the paired t)
 * are diagnostics; arm medians and CVs summarise.
 *
 * Non-finite or non-positive values (a TPS of 0 is a failed run, not a measurement) are excluded and
 * counted. Fewer than two usable values in an arm is not an error: the result says why it is unusable.
 */
export function shiftStatistics(
  baseValues: readonly number[],
  headValues: readonly number[],
  options: ShiftStatisticsOptions = {},
): ShiftStatistics {
  const base = usable(baseValues);
  const head = usable(headValues);
  const failed = options.failed ?? { base: 0, head: 0 };
  const notes: Note[] = [];
  if (failed.base + failed.head > 0) {
    notes.push({
      code: 'failed-runs-excluded',
      message: `${failed.base} failed base run(s) and ${failed.head} failed head run(s) excluded`,
    });
  }
  if (base.invalid + head.invalid > 0) {
    notes.push({
      code: 'invalid-values-excluded',
      message: `${base.invalid} base and ${head.invalid} head value(s) excluded as non-finite or not positive`,
    });
  }
  const summaries = { base: summarise(base, failed.base), head: summarise(head, failed.head) };
  const empty = {
    ...summaries,
    test: 'mann-whitney' as PrimaryTest,
    pairs: null,
    deltaPct: null,
    ci95: null,
    ci90: null,
    ciEquivalence: null,
    pairedT: null,
    p: null,
    method: null,
    minAchievableP: null,
    welch: null,
    bootstrap: null,
    aaSpreadPct: null,
    notes,
  };
  const short = (
    [
      ['base', base],
      ['head', head],
    ] as const
  ).filter(([, arm]) => arm.values.length < MIN_RUNS_PER_ARM);
  if (short.length > 0) {
    const which = short.map(([name, arm]) => `${name} has ${arm.values.length} usable run(s)`).join(' and ');
    return { ...empty, unusable: `${which}; at least ${MIN_RUNS_PER_ARM} per arm are needed` };
  }

  const equivalenceLevel = options.equivalenceLevel ?? EQUIVALENCE_LEVEL;
  const logBase = base.values.map(Math.log);
  const logHead = head.values.map(Math.log);
  const welch = welchT(logBase, logHead, REPORT_LEVEL);
  const welchDiagnostic = {
    t: welch.t,
    df: welch.df,
    p: welch.p,
    ci95: {
      level: REPORT_LEVEL,
      achievedLevel: REPORT_LEVEL,
      lowerPct: pct(welch.lower),
      upperPct: pct(welch.upper),
    },
  };
  const ratios = options.rounds ? logRatios(options.rounds.base, options.rounds.head) : null;
  if (ratios && ratios.pairs.length < MIN_RUNS_PER_ARM) {
    notes.push({
      code: 'unpaired-fallback',
      message: `only ${ratios.pairs.length} round(s) with a usable run in both arms: the unpaired Mann-Whitney test decides`,
    });
  } else if (ratios) {
    if (ratios.unpaired > 0) {
      notes.push({
        code: 'unpaired-rounds-dropped',
        message: `${ratios.unpaired} round(s) with a usable run in only one arm left out of the paired analysis`,
      });
    }
    const d = ratios.pairs;
    const sr = wilcoxonSignedRank(d);
    const hl = walshHodgesLehmann(d, [REPORT_LEVEL, EQUIVALENCE_LEVEL, equivalenceLevel]);
    const [ci95, ci90, ciEq] = hl.intervals.map(toPct);
    const t = oneSampleT(d, REPORT_LEVEL);
    if (sr.ties || sr.zeros > 0) {
      notes.push({
        code: 'ties-approximate-ci',
        message:
          'tied or zero log-ratios: p is exact given them, but the intervals’ confidence is approximate',
      });
    }
    return {
      ...empty,
      test: 'signed-rank',
      pairs: d.length,
      deltaPct: pct(hl.shift),
      ci95: ci95!,
      ci90: ci90!,
      ciEquivalence: ciEq!,
      p: sr.p,
      method: sr.method,
      minAchievableP: signedRankMinP(d.length),
      welch: welchDiagnostic,
      pairedT: {
        t: t.t,
        df: t.df,
        p: t.p,
        ci95: {
          level: REPORT_LEVEL,
          achievedLevel: REPORT_LEVEL,
          lowerPct: pct(t.lower),
          upperPct: pct(t.upper),
        },
      },
      bootstrap: bootstrap(base.values, head.values, options.bootstrap),
      unusable: null,
      aaSpreadPct: aaSpreadPct({ logRatios: d }),
    };
  }
  const mwu = mannWhitneyU(base.values, head.values);
  const hl = hodgesLehmann(logBase, logHead, [REPORT_LEVEL, EQUIVALENCE_LEVEL, equivalenceLevel]);
  const [ci95, ci90, ciEq] = hl.intervals.map(toPct);
  if (mwu.ties) {
    notes.push({
      code: 'ties-approximate-ci',
      message: 'tied values: p is exact given the ties, but the intervals’ confidence is approximate',
    });
  }
  return {
    ...empty,
    deltaPct: pct(hl.shift),
    ci95: ci95!,
    ci90: ci90!,
    ciEquivalence: ciEq!,
    p: mwu.p,
    method: mwu.method,
    minAchievableP: minAchievableP(base.values.length, head.values.length),
    welch: welchDiagnostic,
    bootstrap: bootstrap(base.values, head.values, options.bootstrap),
    unusable: null,
    aaSpreadPct: aaSpreadPct({ base: base.values }),
  };
}

/** ln(head/base) of the rounds where both values are usable, and how many rounds had only one. */
export function logRatios(
  base: ReadonlyMap<number, number>,
  head: ReadonlyMap<number, number>,
): { pairs: number[]; unpaired: number } {
  const ok = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v) && v > 0;
  const rounds = [...new Set([...base.keys(), ...head.keys()])].sort((a, b) => a - b);
  const pairs: number[] = [];
  let unpaired = 0;
  for (const r of rounds) {
    const b = base.get(r);
    const h = head.get(r);
    if (ok(b) && ok(h)) pairs.push(Math.log(h / b));
    else if (ok(b) || ok(h)) unpaired++;
  }
  return { pairs, unpaired };
}

interface UsableValues {
  values: number[];
  invalid: number;
}

export function usable(values: readonly number[]): UsableValues {
  const kept = values.filter((v) => Number.isFinite(v) && v > 0);
  return { values: kept, invalid: values.length - kept.length };
}

export function summarise(arm: UsableValues, failed: number): ArmSummary {
  const n = arm.values.length;
  return {
    n,
    failed,
    invalid: arm.invalid,
    median: n > 0 ? median(arm.values) : null,
    cvPct: n >= 2 ? (100 * sampleStandardDeviation(arm.values)) / mean(arm.values) : null,
  };
}

/** A log-ratio as a change in percent. */
export function pct(logRatio: number): number {
  return 100 * Math.expm1(logRatio);
}

function toPct(ci: ShiftInterval): DeltaInterval {
  return {
    level: ci.level,
    achievedLevel: ci.achievedLevel,
    lowerPct: pct(ci.lower),
    upperPct: pct(ci.upper),
  };
}

function bootstrap(
  base: readonly number[],
  head: readonly number[],
  options: ShiftStatisticsOptions['bootstrap'],
): ShiftStatistics['bootstrap'] {
  if (!options || Math.min(base.length, head.length) < BOOTSTRAP_MIN_RUNS) return null;
  const r = bootstrapRatioOfMeans(base, head, { ...options, level: REPORT_LEVEL });
  return {
    ratioOfMeansPct: 100 * (r.ratio - 1),
    ci95: {
      level: REPORT_LEVEL,
      achievedLevel: REPORT_LEVEL,
      lowerPct: 100 * (r.lower - 1),
      upperPct: 100 * (r.upper - 1),
    },
    seed: r.seed,
    resamples: r.resamples,
  };
}
