/**
 * The one vocabulary of reason phrases: a few words per reason code (compare/comparison-types.ts ReasonCode) for the
 * verdict column of every table (terminal, markdown, HTML). Change a phrase here and every markup follows.
 * The full sentences stay in each reason's `message` (compare/verdict.ts).
 */
import type { DecisionReason } from '../compare/decision/decision.js';
import type { Better, ReasonCode, SampleComparison } from '../compare/comparison-types.js';

/** Reason code -> phrase, given the cell's threshold (percent) and which direction is better. */
export const REASON_PHRASES: Record<ReasonCode, (thresholdPct: number, better: Better) => string> = {
  'significant-beyond-threshold': (t) => `significant, beyond ±${t}%`,
  'ci-inside-threshold': (t) => `90% CI inside ±${t}%`,
  'not-worse-than-threshold': (t, better) =>
    `not worse: one-sided bound ${better === 'lower' ? 'below +' : 'above -'}${t}%`,
  'significant-below-threshold': (t) => `significant, below ${t}%`,
  'ci-wider-than-threshold': (t) => `CI wider than ±${t}%`,
  'too-few-runs': () => 'too few runs',
  'ci-level-not-reached': () => 'CI level not reached',
  'insufficient-data': () => 'no data',
  'likely-regression': (t, better) =>
    `regression likely (CI beyond ${better === 'lower' ? '+' : '-'}${t}%), too few runs to certify`,
  'baseline-drifted': () => 'stored baseline drifted',
  'same-compiled-code': () => 'same compiled code, not measured',
  'changed-code-not-executed': () => 'changed code not executed, not measured',
  'counts-separated': (t) => `counts beyond ±${t}%, arms apart`,
  'counts-inside-threshold': (t) => `counts inside ±${t}% with their spread`,
  'counts-not-steady': (t) => `counts not steady enough for ±${t}%`,
  'steady-unchanged': () => 'CPU work unchanged, no regression seen',
  'inside-noise-floor': () => "inside this runner's noise floor",
  'memory-beyond-floor': () => 'memory moved beyond its floor',
  'counts-decided': () => 'counts decided, not timed further',
};

/** How a table marks a cell in a collapse region (CellComparison.unstable): reported, not gated. */
export const UNSTABLE_PHRASE = 'unstable, not gated';

/**
 * Why, in a few words: the decisive reason of a regression, improvement or no-change (the first one), every
 * reason of an inconclusive cell.
 */
export function reasonPhrase(
  cell: Pick<SampleComparison, 'verdict' | 'reasons' | 'thresholdPct' | 'better'>,
): string {
  const reasons = cell.verdict === 'inconclusive' ? cell.reasons : cell.reasons.slice(0, 1);
  return reasons.map((r) => REASON_PHRASES[r.code](cell.thresholdPct, cell.better)).join(', ');
}

/**
 * A reason said once for several cells (Decision.reasons): its sentence when every cell has the same one,
 * else the phrase with the first cell's sentence as the example (the numbers differ per cell).
 */
export function reasonSentence(r: DecisionReason): string {
  if (r.uniform) return r.message;
  return `${REASON_PHRASES[r.code](r.thresholdPct, r.better)} (e.g. ${r.cells[0]}: ${r.message})`;
}
