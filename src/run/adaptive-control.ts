/**
 * The run loop's side of the adaptive design (src/core/compare/analysis/adaptive.ts): before each round it takes the
 * scheduled look the completed rounds reach, records it in the results (adaptive: { plan, looks }), and
 * from then on lets only the runs of still-open cells through; it stops at a look that says stop, at the
 * rounds budget (plan.maxRounds) or when the time budget cannot fit another round (the default budget only
 * from the first look on). Pure apart from the clock it is given.
 */
import { adaptiveLook, adaptiveRecord, type SequentialDesign } from '../core/compare/analysis/adaptive.js';
import type { MetricName } from '../core/results/metrics.js';
import type { SteadyPass } from '../core/compare/evidence/steady-evidence.js';
import { cellId, type CellKey, type RunResult } from '../core/results/result-types.js';

export interface AdaptiveBudget {
  /** Seconds of measurement allowed (from the first measured round on). */
  timeBudgetS?: number;
  /** Estimated seconds of one round with every cell open (before any round was timed). */
  estimatedRoundS: number;
  /**
   * Workloads with no timed round (RunRequest.untimedWorkloads): their cells are never open at a look (as
   * every later analysis of the document judges them: core/compare/analysis/unexecuted-code.ts).
   */
  untimed?: readonly string[];
  /** The time budget does not stop the run before its first look (the default budget's rule). */
  untilFirstLook?: boolean;
}

export class AdaptiveControl {
  private open: Set<string> | null = null; // null: every cell open
  private looked = 0;
  private startedMs: number | null = null;

  constructor(
    readonly plan: SequentialDesign,
    private readonly analysis: { thresholdPct: number; metric?: MetricName; steadyPass?: SteadyPass },
    private readonly budget: AdaptiveBudget,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Called before round `round` (1-based). Takes the look that round - 1 completed rounds reach, if any,
   * and returns why to stop, or null to go on.
   */
  beforeRound(result: RunResult, round: number, log: (line: string) => void): string | null {
    this.startedMs ??= this.now();
    const done = round - 1;
    const k = this.plan.schedule.indexOf(done);
    if (k >= 0 && k + 1 > this.looked) {
      const stop = this.look(result, k + 1, log);
      if (stop) return stop;
    }
    if (round > this.plan.maxRounds) return `the rounds budget (${this.plan.maxRounds}) is used up`;
    const { timeBudgetS, untilFirstLook } = this.budget;
    if (timeBudgetS !== undefined && !(untilFirstLook && done < this.plan.schedule[0]!)) {
      const elapsedS = (this.now() - this.startedMs) / 1000;
      const perRoundS = done > 0 ? elapsedS / done : this.budget.estimatedRoundS;
      if (elapsedS + perRoundS > timeBudgetS) {
        return `the time budget (${formatS(timeBudgetS)}) cannot fit round ${round} (about ${formatS(perRoundS)} each, ${formatS(elapsedS)} used)`;
      }
    }
    return null;
  }

  /** After the last round: the look its rounds reach, if not taken yet (so the record ends with it). */
  finish(result: RunResult, roundsDone: number, log: (line: string) => void): void {
    const k = this.plan.schedule.indexOf(roundsDone);
    if (k >= 0 && k + 1 > this.looked) this.look(result, k + 1, log);
  }

  /** Whether the run of this cell is still needed. */
  isOpen(cell: CellKey): boolean {
    return this.open === null || this.open.has(cellId(cell));
  }

  private look(result: RunResult, look: number, log: (line: string) => void): string | null {
    const outcome = adaptiveLook(result, this.plan, {
      look,
      ...this.analysis,
      ...(this.budget.untimed ? { untimed: this.budget.untimed } : {}),
    });
    this.looked = look;
    result.adaptive = adaptiveRecord(this.plan, outcome);
    this.open = new Set(outcome.openCells.map(cellId));
    const decided = outcome.decidedCells.filter((d) => d.look === look);
    log(
      `look ${look} of ${this.plan.schedule.length} at ${outcome.rounds} rounds: ` +
        `${decided.length ? `decided ${decided.map((d) => `${d.label} ${d.verdict}`).join(', ')}` : 'nothing newly decided'}; ` +
        `${outcome.openCells.length} cell(s) still open${outcome.stop ? ` — stop: ${outcome.reason}` : ''}`,
    );
    // Stopped by the answer (every cell decided, or a regression the gate fails whatever follows), not by
    // the budget: good news, said as such.
    this.stoppedByAnswer =
      outcome.stop && (outcome.openCells.length === 0 || look < this.plan.schedule.length);
    return outcome.stop ? outcome.reason : null;
  }

  /** Whether the last stop came from the answer rather than from a budget. */
  stoppedByAnswer = false;
}

function formatS(s: number): string {
  return s >= 120 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`;
}
