/**
 * The statistical design of a comparison on this runner, as plain values: each cell's noise, what its rounds
 * resolve at that noise, and the design `pgperf plan` prints (core/report/terminal/noise-design-text.ts).
 * Computed in src/flows/compare/noise.
 */
import type { CellKey } from '../results/result-types.js';

/** One cell's noise on this runner, from a calibration or the history (flows/compare/noise/runner-noise.ts). */
export interface NoiseEstimate extends CellKey {
  /** cellId: "workload@clients". */
  id: string;
  source: 'calibration' | 'history';
  /** Calibration: its run id; history: the newest point's run id. */
  runId: string;
  /** Calibration: when it started; history: the first point of the segment used. */
  date: string;
  /** Calibration: rounds with both arms; history: points used. */
  points: number;
  /** SD of ln(b/a) per round as a CV in percent (calibration only). */
  pairedCvPct: number | null;
  /** Run-to-run CV in percent (within an arm for a calibration; between runs' medians for history). */
  runCvPct: number | null;
  /** SD of ln(head/base) per round as measured, as a CV in percent: paired, else √2 × run CV. */
  perRoundCvPct: number;
  /** perRoundCvPct raised to its one-sided 80% upper bound for the points behind it (upperNoiseBound): what
   * plans and warnings use, so that a rough estimate does not promise power it cannot give. */
  planningCvPct: number;
}

/** A cell the store holds no usable noise for. */
export interface MissingNoise extends CellKey {
  id: string;
  /** Why no estimate: names what is missing and how many points/rounds are needed. */
  reason: string;
}

/** What one cell's planned rounds resolve at its noise (flows/compare/noise/noise-design.ts). */
export interface CellResolution {
  noise: NoiseEstimate;
  /** The rounds planned (an adaptive design's budget). */
  rounds: number;
  thresholdPct: number;
  /** The smallest change (percent, either direction) the planned rounds resolve with `power`; +∞ if none. */
  resolvablePct: number;
  /** Fewest rounds that resolve the threshold (the recommendation); null beyond 1000. */
  recommendedRounds: number | null;
  /** The threshold is below what the planned rounds resolve. */
  belowResolvable: boolean;
}

/** The noise design of `pgperf plan` (flows/compare/noise/runner-design.ts): every cell's resolution, and the cells without noise. */
export interface NoiseDesign {
  /** The runner id noise was looked up for (this machine). */
  runner: string;
  /** Where the rounds come from, as a run's plan line says it ("rounds: adaptive (...)"). */
  roundsText: string;
  store: string;
  alpha: number;
  power: number;
  /** Hypotheses Holm adjusts over. */
  hypotheses: number;
  cells: Array<CellResolution & { id: string }>;
  missing: MissingNoise[];
}
