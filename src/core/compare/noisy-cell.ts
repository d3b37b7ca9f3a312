/**
 * Unstable on this runner: a cell whose A/A-style spread (what base against itself shows per round; see
 * ShiftStatistics.aaSpreadPct) exceeds its threshold is marked with a 'noisy-cell' note, as ClickHouse's
 * comparison marks queries whose chance difference exceeds its report threshold. One round there cannot tell
 * a change of the threshold's size from noise, so a verdict needs many rounds and a rerun may disagree.
 *
 * Unlike a collapse region (unstable.ts), the mark does not take the cell out of the gate: its verdict comes
 * from a test at its own α over all the rounds, and a regression it certifies is no less real for the noise.
 * Leaving it out would let a noisy runner turn a regression into a green gate.
 */
import { medianAbsoluteDeviation } from 'simple-statistics';
import { MAD_TO_SD, robustLogSpread } from '../stats/robust-log-spread.js';
import { MIN_NOISE_ROUNDS } from './power.js';
import type { Note } from './comparison-types.js';

/**
 * The A/A-style spread in percent: paired, from the per-round ln(head/base) (`logRatios`); unpaired, √2 ×
 * base's own robust run-to-run spread (the SD of the difference of two independent base runs). Null below
 * MIN_NOISE_ROUNDS values.
 *
 * @example aaSpreadPct({ logRatios: [0.01, -0.01, 0.02, 0, -0.02] }) // ≈ 1.5: the MAD is 0.01
 */
export function aaSpreadPct(
  values: { logRatios: readonly number[] } | { base: readonly number[] },
): number | null {
  const pct = (spread: number) => 100 * Math.expm1(spread);
  if ('logRatios' in values) {
    const d = values.logRatios;
    return d.length < MIN_NOISE_ROUNDS ? null : pct(MAD_TO_SD * medianAbsoluteDeviation([...d]));
  }
  return values.base.length < MIN_NOISE_ROUNDS ? null : pct(Math.SQRT2 * robustLogSpread(values.base));
}

/** The 'noisy-cell' note when the spread exceeds the threshold; undefined otherwise. */
export function noisyCellNote(
  spreadPct: number | null,
  thresholdPct: number,
  paired: boolean,
): Note | undefined {
  if (spreadPct === null || spreadPct <= thresholdPct) return undefined;
  const of = paired ? 'head against base per round, beyond the change' : 'base against itself';
  return {
    code: 'noisy-cell',
    message:
      `unstable on this runner: an A/A-style spread of ${spreadPct.toFixed(1)}% (${of}) exceeds the ` +
      `${thresholdPct}% threshold; one round cannot tell such a change from noise, so the verdict rests on many ` +
      'rounds (pgperf calibrate measures the runner)',
  };
}
