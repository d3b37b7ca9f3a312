/**
 * Progress of a long run, for people: which run of how many, round k of n, cell, arm, the TPS just
 * measured, elapsed time and an estimate of the time left.
 */
import { formatDuration } from '../core/util/duration.js';

export interface ProgressEvent {
  kind: 'warmup' | 'measured';
  round: number;
  rounds: number;
  /** A run of the confirmation block (its rounds are the block's own). */
  confirmation?: boolean;
  cell: string;
  arm: string;
  tps?: number;
  failure?: string;
}

export class ProgressTracker {
  private done = 0;
  private doneSeconds = 0;
  private overheadSeconds = 0;
  private readonly started: number;

  /** `plannedSeconds`: the sum of all planned run durations (measured and warm-up). */
  constructor(
    private plannedRuns: number,
    private plannedSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  /** Records a finished run that was planned to take `plannedS` and took `actualS` wall-clock seconds. */
  finished(plannedS: number, actualS: number): void {
    this.done++;
    this.doneSeconds += plannedS;
    this.overheadSeconds += Math.max(0, actualS - plannedS);
  }

  /** A retry adds a run that was not planned. */
  addRun(seconds: number): void {
    this.plannedRuns++;
    this.plannedSeconds += seconds;
  }

  /** Estimated seconds left: planned run time left plus the per-run overhead seen so far. */
  remainingSeconds(): number {
    const runsLeft = Math.max(0, this.plannedRuns - this.done);
    const overheadPerRun = this.done > 0 ? this.overheadSeconds / this.done : 2;
    return Math.max(0, this.plannedSeconds - this.doneSeconds) + runsLeft * overheadPerRun;
  }

  line(e: ProgressEvent): string {
    const elapsed = (this.now() - this.started) / 1000;
    const what =
      e.kind === 'warmup'
        ? 'warm-up'
        : `${e.confirmation ? 'confirmation round' : 'round'} ${e.round}/${e.rounds}`;
    const result = e.failure ? `FAILED: ${e.failure}` : e.tps !== undefined ? `${formatTps(e.tps)} tps` : '';
    return `[${this.done}/${this.plannedRuns}] ${what}  ${e.cell}  ${e.arm}  ${result}  (elapsed ${formatDuration(elapsed)}, ~${formatDuration(this.remainingSeconds())} left)`;
  }
}

export function formatTps(tps: number): string {
  return tps >= 100 ? Math.round(tps).toLocaleString('en-US') : tps.toFixed(1);
}
