/**
 * What an answer cost (docs/decision.md, "Answers at their cost"): the wall seconds of this job by stage —
 * builds, counted runs (instructions, plans, profiles), timed rounds — and how many timed rounds were
 * measured. Recorded in results.json, carried into decision.json and said on every surface, so a user sees
 * what each answer took and the history can follow it.
 */
import { formatDuration } from '../util/duration.js';
import type { AnswerCost, RunResult } from './result-types.js';

export type { AnswerCost } from './result-types.js';

/** The cost of `result`'s answer from the stage times the pipeline measured (the rounds from its samples). */
export function answerCost(
  result: Pick<RunResult, 'samples'>,
  seconds: Omit<AnswerCost, 'timedRounds'>,
): AnswerCost {
  const rounds = new Set(result.samples.map((s) => s.round));
  const round1 = (x: number) => Math.round(x * 10) / 10;
  return {
    buildS: round1(seconds.buildS),
    countedS: round1(seconds.countedS),
    timedRounds: rounds.size,
    timedS: round1(seconds.timedS),
    wallS: round1(seconds.wallS),
  };
}

/** "answered in 3m12s: build 41s, counted runs 1m10s, 5 timed rounds 1m20s" — the line every surface prints. */
export function costText(cost: AnswerCost): string {
  const parts = [
    ...(cost.buildS >= 0.5 ? [`build ${formatDuration(cost.buildS)}`] : []),
    ...(cost.countedS >= 0.5 ? [`counted runs ${formatDuration(cost.countedS)}`] : []),
    cost.timedRounds > 0
      ? `${cost.timedRounds} timed round${cost.timedRounds === 1 ? '' : 's'} ${formatDuration(cost.timedS)}`
      : 'no timed rounds',
  ];
  return `answered in ${formatDuration(cost.wallS)}: ${parts.join(', ')}`;
}
