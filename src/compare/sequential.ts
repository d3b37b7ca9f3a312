/**
 * Sequential extension without "re-run until significant": rounds are added on a schedule declared before
 * the first look (e.g. 6, 12, 18), and every look tests at Pocock's constant per-look α so that the chance
 * of any false alarm over all looks stays at α (statistics.md §2.6: looks at 0.05 each give 0.10–0.12).
 * Holm still applies across cells within each look. This module is the pure decision; the run loop calls it.
 */
import { normalCdf } from '../stats/normal-cdf.js';
import { MAX_LOOKS, pocockCriticalValue } from '../stats/pocock-critical-value.js';
import type { RunComparison, SequentialLook } from './types.js';

/** Pocock's per-look α for `looks` equally spaced looks: 0.0294, 0.0221, 0.0182 for 2, 3, 4 at α = 0.05. */
export function perLookAlpha(looks: number, alpha: number): number {
  return looks <= 1 ? alpha : 2 * normalCdf(-pocockCriticalValue(looks, alpha));
}

/** Throws RangeError unless the schedule is 1…MAX_LOOKS strictly increasing positive integers. */
export function validateSchedule(schedule: readonly number[]): void {
  const ok =
    schedule.length >= 1 &&
    schedule.length <= MAX_LOOKS &&
    schedule.every((r, i) => Number.isInteger(r) && r >= 1 && (i === 0 || r > schedule[i - 1]!));
  if (!ok) {
    throw new RangeError(
      `a sequential schedule is 1 to ${MAX_LOOKS} strictly increasing round counts, e.g. [6, 12, 18]; got [${schedule.join(', ')}]`,
    );
  }
}

/**
 * The look a number of completed rounds corresponds to: the last scheduled look with at most that many
 * rounds (1-based), or 0 if the first look has not been reached.
 */
export function lookAtRounds(schedule: readonly number[], rounds: number): number {
  let look = 0;
  schedule.forEach((r, i) => {
    if (r <= rounds) look = i + 1;
  });
  return look;
}

/** The sequential state of a look, as a comparison records it. */
export function sequentialLook(schedule: readonly number[], look: number, alpha: number): SequentialLook {
  validateSchedule(schedule);
  if (!Number.isInteger(look) || look < 1 || look > schedule.length) {
    throw new RangeError(`look must be between 1 and ${schedule.length}, got ${look}`);
  }
  return {
    schedule: [...schedule],
    look,
    looks: schedule.length,
    perLookAlpha: perLookAlpha(schedule.length, alpha),
  };
}

export interface SequentialDecisionInput {
  /** A comparison computed with compareRun(…, { sequential }) at this look. */
  comparison: Pick<RunComparison, 'comparisons' | 'sequential'>;
  /** Total rounds the time budget allows; further looks beyond it are not taken. */
  budgetRounds?: number;
}

export interface SequentialDecision {
  action: 'stop' | 'continue';
  look: number;
  looks: number;
  perLookAlpha: number;
  /** Cumulative rounds to reach before the next look; null when stopping. */
  nextRounds: number | null;
  reason: string;
}

/**
 * Stop or continue after a look. Stops when a regression is established (any arm 'regression' or 'mixed':
 * the gate's answer cannot change), when no cell is inconclusive, at the last look, or when the budget
 * cannot reach the next look. Otherwise continues to the next scheduled round count; the per-look α stays
 * the same at every look, as Pocock's design requires.
 */
export function decideSequential(input: SequentialDecisionInput): SequentialDecision {
  const state = input.comparison.sequential;
  if (!state) throw new RangeError('the comparison was not computed with a sequential schedule');
  const base = { look: state.look, looks: state.looks, perLookAlpha: state.perLookAlpha };
  const stop = (reason: string): SequentialDecision => ({
    ...base,
    action: 'stop',
    nextRounds: null,
    reason,
  });
  const arms = input.comparison.comparisons;
  const regressed = arms.filter((a) => a.verdict === 'regression' || a.verdict === 'mixed');
  if (regressed.length > 0) {
    return stop(
      `regression established at look ${state.look} of ${state.looks} (${regressed.map((a) => a.head).join(', ')})`,
    );
  }
  const open = arms.flatMap((a) => a.cells.filter((c) => c.verdict === 'inconclusive'));
  if (open.length === 0) return stop(`every cell decided at look ${state.look} of ${state.looks}`);
  if (state.look >= state.looks) {
    return stop(
      `last scheduled look (${state.look} of ${state.looks}): ${open.length} cell(s) stay inconclusive`,
    );
  }
  const nextRounds = state.schedule[state.look]!;
  if (input.budgetRounds !== undefined && nextRounds > input.budgetRounds) {
    return stop(
      `the budget of ${input.budgetRounds} rounds cannot reach look ${state.look + 1} (${nextRounds} rounds)`,
    );
  }
  return {
    ...base,
    action: 'continue',
    nextRounds,
    reason: `${open.length} cell(s) inconclusive at look ${state.look} of ${state.looks}; continue to ${nextRounds} rounds`,
  };
}
