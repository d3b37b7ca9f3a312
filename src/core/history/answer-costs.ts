/**
 * What each answer of the history cost (#38: "the history site plots cost per answer over time"): one
 * point per run that recorded its cost (src/core/results/answer-cost.ts), oldest first, with the runs left
 * out counted by why, so a chart can say what it does not show. A runner canary's run is the nightly's
 * check of the machine, not an answer about a commit; runs still running have no cost yet.
 */
import type { AnswerCost } from '../results/result-types.js';
import type { HistoryRun } from './series.js';

export interface AnswerCostPoint {
  /** The store's run id, else the run's start time (as a series point names its run). */
  runId: string;
  /** The measured commit; null when the run recorded none. */
  sha: string | null;
  /** When the run started (ISO 8601); points are ordered by it. */
  date: string;
  cost: AnswerCost;
}

export interface AnswerCosts {
  /** Oldest first. */
  points: AnswerCostPoint[];
  /** Runs whose document records no cost (written before pgperf recorded it, or stopped by a signal). */
  withoutCost: number;
  /** Runner canary runs: not answers. */
  canaries: number;
}

export function answerCosts(runs: readonly HistoryRun[]): AnswerCosts {
  const points: AnswerCostPoint[] = [];
  let withoutCost = 0;
  let canaries = 0;
  for (const run of runs) {
    if (run.status === 'running') continue;
    if (run.source?.canary) canaries++;
    else if (!run.cost) withoutCost++;
    else
      points.push({
        runId: run.runId ?? run.startedAt,
        sha: run.source?.head?.sha ?? null,
        date: run.startedAt,
        cost: run.cost,
      });
  }
  points.sort((a, b) => a.date.localeCompare(b.date) || a.runId.localeCompare(b.runId));
  return { points, withoutCost, canaries };
}
