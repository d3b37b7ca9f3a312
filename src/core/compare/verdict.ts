/**
 * The per-cell decision rule (statistics.md §2.3), one sign convention for both metric directions:
 *
 * | verdict      | condition                                                    |
 * |--------------|--------------------------------------------------------------|
 * | regression   | p_adj < α and the change is ≥ δ in the worse direction       |
 * | improvement  | p_adj < α and the change is ≥ δ in the better direction      |
 * | no-change    | 90% CI ⊂ (−δ, +δ) (TOST equivalence at 5%), at its full level |
 * | not-worse    | its bound on the worse side is beyond −δ, the other reaches +δ |
 * | inconclusive | otherwise, with the reasons                                  |
 *
 * Passing asks one question, one-sided: is head not worse than base by δ or more (non-inferiority at 5%:
 * the lower bound of the 90% CI above −δ for higher-is-better metrics)? 'no-change' is the part of that
 * answer where the interval also lies below +δ (equivalence); 'not-worse' the rest, so a report never calls
 * a cell unchanged whose interval reaches beyond +δ. Both pass. The interval is the statistics'
 * ciEquivalence: the 90% CI in one analysis, the 1 − 2·α_pass,k CI at look k of an adaptive design (which
 * also says the level it must have achieved, passLevel). An inconclusive cell whose 90% CI lies wholly on
 * the worse side of δ gets the reason 'likely-regression' (first), which a gate fails like a regression.
 *
 * "Worse" is Δ% ≤ −δ for higher-is-better metrics (TPS) and Δ% ≥ +δ for lower-is-better ones (latency).
 */
import { DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT, EQUIVALENCE_LEVEL, PCT_TOLERANCE } from './defaults.js';
import { formatLevel, formatP, formatPct, formatPctInterval } from './format.js';
import { noisyCellNote } from './noisy-cell.js';
import { minRoundsFor } from './power.js';
import type { Better, Note, Reason, SampleComparison, ShiftStatistics } from './comparison-types.js';

export interface VerdictContext {
  alpha?: number;
  thresholdPct?: number;
  better?: Better;
  /** Holm-adjusted p of this cell; the raw p when the comparison stands alone. */
  pAdjusted?: number | null;
  /** Number of tests Holm adjusted over (1 alone). */
  familySize?: number;
  /** The level the pass interval must have achieved to pass (an adaptive look's 1 − 2·spent pass α). */
  passLevel?: number;
}

/** Adds the verdict, its reasons and the α-dependent diagnostics to a comparison's statistics. */
export function decideVerdict(stats: ShiftStatistics, context: VerdictContext = {}): SampleComparison {
  const alpha = context.alpha ?? DEFAULT_ALPHA;
  const thresholdPct = context.thresholdPct ?? DEFAULT_THRESHOLD_PCT;
  const better = context.better ?? 'higher';
  const familySize = context.familySize ?? 1;
  const pAdjusted = context.pAdjusted === undefined ? stats.p : context.pAdjusted;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(thresholdPct > 0 && Number.isFinite(thresholdPct))) {
    throw new RangeError(`the threshold must be a positive percentage, got ${thresholdPct}`);
  }
  const common = { ...stats, better, alpha, thresholdPct, pAdjusted, familySize };
  const { deltaPct, p, minAchievableP } = stats;
  const ci90 = stats.ciEquivalence ?? stats.ci90;
  if (stats.unusable !== null || deltaPct === null || ci90 === null || p === null || pAdjusted === null) {
    const message = stats.unusable ?? 'no test was possible';
    return { ...common, verdict: 'inconclusive', reasons: [{ code: 'insufficient-data', message }] };
  }

  const notes: Note[] = [...stats.notes];
  // Only when the exact test could reach α at all; otherwise the disagreement is just its floor.
  const tDiagnostic = stats.test === 'signed-rank' ? stats.pairedT : stats.welch;
  if (tDiagnostic && tDiagnostic.p < alpha !== p < alpha && (minAchievableP ?? 1) < alpha) {
    const [tName, rankName] =
      stats.test === 'signed-rank'
        ? ['the paired t on log-ratios', 'the signed-rank test']
        : ["Welch's t on logs", 'Mann-Whitney'];
    notes.push({
      code: 'welch-disagrees',
      message: `${tName} (p ${formatP(tDiagnostic.p)}) and ${rankName} (p ${formatP(p)}) disagree at α ${formatP(alpha)}: look for outliers or a bimodal arm`,
    });
  }
  const noisy = noisyCellNote(stats.aaSpreadPct, thresholdPct, stats.test === 'signed-rank');
  if (noisy) notes.push(noisy);
  const withNotes = { ...common, notes };
  const significant = pAdjusted < alpha;
  const gain = better === 'higher' ? deltaPct : -deltaPct; // > 0: head is better
  const direction = better === 'higher' ? 'higher is better' : 'lower is better';
  const testText = `${familySize > 1 ? 'Holm-adjusted ' : ''}p ${formatP(pAdjusted)} < α ${formatP(alpha)}`;

  if (significant && Math.abs(gain) >= thresholdPct - PCT_TOLERANCE) {
    const verdict = gain < 0 ? 'regression' : 'improvement';
    const message = `${testText} and the change ${formatPct(deltaPct)} reaches the ${thresholdPct}% threshold (${direction})`;
    return { ...withNotes, verdict, reasons: [{ code: 'significant-beyond-threshold', message }] };
  }

  const reasons: Reason[] = [];
  if (significant) {
    reasons.push({
      code: 'significant-below-threshold',
      message: `${testText}, but the change ${formatPct(deltaPct)} is smaller than the ${thresholdPct}% threshold`,
    });
  }
  const interval = formatPctInterval(ci90.lowerPct, ci90.upperPct);
  const levelText = formatLevel(ci90.level);
  // The level the interval must have achieved to pass: its own, or the adaptive look's pass level.
  const neededLevel = Math.max(ci90.level, context.passLevel ?? 0);
  const passReached = ci90.achievedLevel >= neededLevel - PCT_TOLERANCE;
  const inside = ci90.lowerPct > -thresholdPct && ci90.upperPct < thresholdPct;
  if (inside && passReached) {
    const message = `the ${levelText} CI ${interval} lies inside ±${thresholdPct}%`;
    return {
      ...withNotes,
      verdict: 'no-change',
      reasons: [{ code: 'ci-inside-threshold', message }, ...reasons],
    };
  }
  const notWorse = better === 'higher' ? ci90.lowerPct > -thresholdPct : ci90.upperPct < thresholdPct;
  if (notWorse && passReached) {
    const bound = better === 'higher' ? ci90.lowerPct : ci90.upperPct;
    const oneSided = formatLevel((1 + ci90.achievedLevel) / 2);
    const message =
      `head is not worse than base by ${thresholdPct}% or more: the one-sided ${oneSided} bound ` +
      `${formatPct(bound)} lies ${better === 'higher' ? 'above -' : 'below +'}${thresholdPct}% (${direction}); ` +
      `the ${levelText} CI ${interval} reaches beyond ${better === 'higher' ? '+' : '-'}${thresholdPct}%, so not 'no change'`;
    return {
      ...withNotes,
      verdict: 'not-worse',
      reasons: [{ code: 'not-worse-than-threshold', message }, ...reasons],
    };
  }
  // The one-sided 95% bound (the 90% interval) lies beyond −δ on the worse side: the data point to a
  // regression that α (after Holm and the look's spending) cannot certify yet. The gate treats it as one.
  const ci90Plain = stats.ci90 ?? ci90;
  const adverse =
    better === 'higher' ? ci90Plain.upperPct <= -thresholdPct : ci90Plain.lowerPct >= thresholdPct;
  if (adverse && ci90Plain.achievedLevel >= EQUIVALENCE_LEVEL - PCT_TOLERANCE) {
    reasons.push({
      code: 'likely-regression',
      message: `regression likely, too few runs to certify: the 90% CI ${formatPctInterval(ci90Plain.lowerPct, ci90Plain.upperPct)} lies wholly beyond ${better === 'higher' ? '-' : '+'}${thresholdPct}%`,
    });
  }
  const smallestP = minAchievableP ?? 1;
  if (!significant && familySize * smallestP >= alpha) {
    const afterHolm =
      familySize > 1 ? `, ${formatP(familySize * smallestP)} after Holm over ${familySize} cells` : '';
    reasons.push({
      code: 'too-few-runs',
      message:
        `with ${sizes(stats)} the smallest possible p is ${formatP(smallestP)}${afterHolm}, ` +
        `never below α ${formatP(alpha)}; at least ${minRoundsFor(stats.test, familySize, alpha)} ${stats.test === 'signed-rank' ? 'rounds with both arms' : 'runs per arm'} are needed`,
    });
  }
  if (!passReached) {
    reasons.push({
      code: 'ci-level-not-reached',
      message: `with ${sizes(stats)} the interval reaches only ${formatLevel(ci90.achievedLevel)} confidence, not ${formatLevel(neededLevel)}`,
    });
  }
  if (!inside) {
    reasons.push({
      code: 'ci-wider-than-threshold',
      message: `the ${levelText} CI ${interval} reaches beyond ±${thresholdPct}%; more runs would narrow it`,
    });
  }
  return { ...withNotes, verdict: 'inconclusive', reasons };
}

/** "9 rounds with both arms" (paired) or "5 and 6 runs" (unpaired). */
function sizes(stats: ShiftStatistics): string {
  return stats.test === 'signed-rank'
    ? `${stats.pairs} round(s) with both arms`
    : `${stats.base.n} and ${stats.head.n} runs`;
}
