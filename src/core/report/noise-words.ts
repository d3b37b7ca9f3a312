/**
 * How a cell's noise is said wherever it appears: the noise design `pgperf plan` prints
 * (terminal/noise-design-text.ts) and the comparison's warning of a threshold below what the rounds resolve
 * (flows/compare/noise/noise-design.ts).
 */
import type { NoiseEstimate } from '../compare/noise-design-types.js';

/** Where a cell's noise came from, for a report line: "calibration RUN (DATE, 5 rounds)" or "history (8 runs since DATE)". */
export function noiseSourceText(n: NoiseEstimate): string {
  const day = n.date.slice(0, 10);
  return n.source === 'calibration'
    ? `calibration ${n.runId} (${day}, ${n.points} rounds)`
    : `history (${n.points} runs since ${day})`;
}

/** "9.8% noise per round (7.6% measured, from calibration ID (2026-11-20, 10 rounds), raised to its 80% upper bound)". */
export function planningText(n: NoiseEstimate): string {
  return (
    `${n.planningCvPct.toFixed(1)}% noise per round (${n.perRoundCvPct.toFixed(1)}% measured, from ` +
    `${noiseSourceText(n)}, raised to its 80% upper bound)`
  );
}
