/**
 * The main rounds: the planned runs in their interleaved order, the first visit of each (cell, arm) after a
 * warm-up; with adaptive rounds, a look between rounds stops decided cells or the whole run. Before the
 * first round the plan is said, with a warning for each workload whose rounds cannot reach a verdict.
 */
import type { Workload } from '../drivers/workload.js';
import { roundsOf } from '../drivers/common/workload-fields.js';
import type { AnalysisSettings } from '../core/results/result-types.js';
import { checkDesign } from '../core/compare/power.js';
import { metricOption } from '../core/compare/metric-option.js';
import type { MetricName } from '../core/results/metrics.js';
import type { SteadyPass } from '../core/compare/evidence/steady-evidence.js';
import type { PlannedRun } from './round-order.js';
import { AdaptiveControl } from './adaptive-control.js';
import { firstVisits, measureRun, type MeasureContext } from './measure-run.js';
import type { RunRequest } from './run-request.js';

/** How a cell is judged, as analyse() judges the document: one metric everywhere only when one was named. */
export interface Judging {
  thresholdPct: number;
  metric?: MetricName;
  steadyPass?: SteadyPass;
}

export function judgingOf(analysis: AnalysisSettings): Judging {
  return {
    thresholdPct: analysis.thresholdPct,
    ...(metricOption(analysis) ? { metric: metricOption(analysis)! } : {}),
    ...(analysis.steadyPass !== undefined ? { steadyPass: analysis.steadyPass } : {}),
  };
}

/** The main rounds as they will be measured. */
export interface RoundSchedule {
  rounds: PlannedRun[][];
  /** The runs that start with an uncounted warm-up. */
  warmupBefore: Set<PlannedRun>;
  /** Runs in all, warm-ups included. */
  runs: number;
  /** Seconds of every run and warm-up planned. */
  plannedSeconds: number;
}

export function scheduleRounds(
  rounds: PlannedRun[][],
  workloadByName: ReadonlyMap<string, Workload>,
): RoundSchedule {
  const plannedRuns = rounds.flat();
  const warmupBefore = firstVisits(plannedRuns, workloadByName);
  const plannedSeconds =
    plannedRuns.reduce((s, r) => s + workloadByName.get(r.workload)!.duration, 0) +
    [...warmupBefore].reduce((s, r) => s + workloadByName.get(r.workload)!.warmup, 0);
  return { rounds, warmupBefore, runs: plannedRuns.length + warmupBefore.size, plannedSeconds };
}

/**
 * Says before spending the time when the plan cannot reach a verdict (issue: power before time). Holm's
 * family: every head arm x cell x gated metric (src/flows/compare/noise/design-check.ts refuses what cannot reach
 * alpha at all, unless forced; here the run only warns). A part of a larger run is not checked here, nor a
 * run of one arm (a nightly run, the runner canary's): it compares nothing, so no plan of its
 * can miss significance.
 */
export function warnUnderpoweredPlan(
  req: RunRequest,
  workloads: readonly Workload[],
  warn: (message: string) => void,
): void {
  const hypotheses =
    Math.max(1, req.arms.length - 1) *
    workloads.reduce((n, w) => n + w.clients.length * (metricOption(req.analysis) ? 1 : w.metrics.length), 0);
  if (req.arms.length < 2) return;
  for (const w of req.partOfRun ? [] : workloads) {
    const check = checkDesign({
      rounds: roundsOf(w),
      cells: hypotheses,
      alpha: req.analysis.alpha,
      thresholdPct: w.threshold ?? req.analysis.thresholdPct,
    });
    for (const message of check.warnings) warn(`workload ${w.name}: ${message}`);
  }
}

/** Measures the main rounds in order; adaptive looks (req.adaptive) may skip decided cells or stop early. */
export async function runRounds(
  req: RunRequest,
  schedule: RoundSchedule,
  ctx: MeasureContext,
  judging: Judging,
): Promise<void> {
  const { logger, signal } = ctx.deps;
  const { result } = ctx.journal;
  const { rounds } = schedule;
  // The plan line said the looks and the budget (rounds-origin.ts).
  const adaptive = req.adaptive
    ? new AdaptiveControl(req.adaptive.plan, judging, {
        ...(req.adaptive.timeBudgetS !== undefined ? { timeBudgetS: req.adaptive.timeBudgetS } : {}),
        estimatedRoundS: schedule.plannedSeconds / Math.max(1, rounds.length),
        // Workloads with no rounds, or only their memory rounds, are never open at a look.
        ...(req.untimedWorkloads || req.memoryRounds
          ? { untimed: [...(req.untimedWorkloads?.names ?? []), ...(req.memoryRounds?.names ?? [])] }
          : {}),
        ...(req.adaptive.byDefault ? { untilFirstLook: true } : {}),
      })
    : null;
  let roundsDone = 0;
  for (const [r, roundRuns] of rounds.entries()) {
    const stop = adaptive?.beforeRound(result, r + 1, (line) => logger.info(line));
    if (stop) {
      const line = `adaptive: stopped before round ${r + 1}: ${stop}`;
      if (adaptive?.stoppedByAnswer) logger.info(line);
      else ctx.journal.warn(line);
      break;
    }
    await logger.group(`Round ${r + 1} of ${rounds.length}`, async () => {
      for (const run of roundRuns) {
        signal?.throwIfAborted();
        if (adaptive && !adaptive.isOpen(run)) continue;
        await measureRun(ctx, run, schedule.warmupBefore.has(run));
      }
    });
    roundsDone = r + 1;
  }
  adaptive?.finish(result, roundsDone, (line) => logger.info(line));
}
