/**
 * A cell's nightly history in its verdict: a change smaller than the history's noise floor
 * (src/core/stats/noise-floor.ts, recorded before the run as `analysis.noiseFloors`) is not called a
 * regression or an improvement; the cell says so and stays inconclusive. A pass keeps the configured
 * threshold.
 *
 * Why the regression side only: a same-job comparison's test answers for the noise inside the job, but it
 * sees one build per arm, so a build's own offset (code layout, alignment) looks like an effect of the
 * patch, and a stored baseline's test also misses the day-to-day offset between jobs. Adjacent nightly
 * runs are exactly two builds on two days: a change between them below the floor happens here without
 * cause, so calling one a regression is a false alarm. Raising the pass threshold to the floor instead
 * would pass real regressions smaller than the floor: a false green. bench/noise-floor-sim.ts measures
 * both against the configured threshold alone.
 */
import type { NoiseFloor } from '../../results/result-types.js';
import { FLOOR_FENCE_IQR } from '../../stats/noise-floor.js';
import { formatPct } from '../format.js';
import { PCT_TOLERANCE } from '../defaults.js';
import type { CellComparison, Note } from '../comparison-types.js';

/** A floor over this many times the configured threshold marks the cell noisy. */
export const NOISY_FLOOR_FACTOR = 2;
/**
 * A floor is applied up to this many times the configured threshold: a history noisier than that caps it
 * there, and the cell is marked too noisy to gate finer. Whoever can write to the results store writes
 * the history; uncapped, a history of alternating nights would hide any regression (a -99% head passed as
 * "inside the noise floor of 175%").
 */
export const MAX_FLOOR_FACTOR = 5;

/** The cell judged with its history's floor, with a note saying where the floor came from. */
export function withHistoryFloor(cell: CellComparison, floor: NoiseFloor | undefined): CellComparison {
  if (!floor) return cell;
  const t = cell.thresholdPct;
  const learned = roundUp(floor.floorPct);
  const history =
    `${floor.runs} nightly runs on this runner (${floor.from.slice(0, 10)} to ${floor.to.slice(0, 10)}${provenance(floor)}) ` +
    `differ from night to night by up to ${learned}% without cause (Q3 + ${FLOOR_FENCE_IQR}·IQR of their changes)`;
  const capped = learned > MAX_FLOOR_FACTOR * t;
  const floorPct = capped ? MAX_FLOOR_FACTOR * t : learned;
  const note: Note = capped
    ? {
        code: 'noisy-history',
        message:
          `too noisy on this runner's history to gate finer: ${history}, over ${MAX_FLOOR_FACTOR}x the ${t}% ` +
          `threshold, so the floor is capped there: a change must reach ${floorPct}% to be called a regression here, a pass still needs ±${t}%`,
      }
    : floorPct > NOISY_FLOOR_FACTOR * t
      ? {
          code: 'noisy-history',
          message:
            `noisy on this runner's history: ${history}, over ${NOISY_FLOOR_FACTOR}x the ${t}% threshold; ` +
            `a change must reach ${floorPct}% to be called a regression here, a pass still needs ±${t}%`,
        }
      : floorPct > t
        ? {
            code: 'threshold-from-history',
            message: `${history}: a change must reach ${floorPct}% to be called a regression here, a pass still needs ±${t}%`,
          }
        : {
            code: 'threshold-from-history',
            // One wording for every such cell, so a table groups them into one line.
            message: `this runner's nightly history puts the noise floor below the ${t}% threshold`,
          };
  const notes = [...cell.notes, note];
  if (floorPct <= t || cell.deltaPct === null || Math.abs(cell.deltaPct) >= floorPct - PCT_TOLERANCE) {
    return { ...cell, notes };
  }
  const decided = cell.verdict === 'regression' || cell.verdict === 'improvement';
  const likely = cell.reasons.some((r) => r.code === 'likely-regression');
  if (!decided && !likely) return { ...cell, notes };
  return {
    ...cell,
    notes,
    verdict: 'inconclusive',
    reasons: [
      {
        code: 'inside-noise-floor',
        message:
          `the change ${formatPct(cell.deltaPct)} is beyond the ${t}% threshold but inside this runner's noise ` +
          `floor of ${floorPct}%: ${history}`,
      },
      ...cell.reasons.filter(
        (r) => r.code !== 'likely-regression' && r.code !== 'significant-beyond-threshold',
      ),
    ],
  };
}

/**
 * Which runs a floor came from, as recorded (older documents recorded none of it): "; runs A to B of
 * branch master, workload definition 0123456789abcdef".
 */
function provenance(floor: NoiseFloor): string {
  const parts = [
    floor.firstRunId !== undefined && floor.lastRunId !== undefined
      ? `runs ${floor.firstRunId} to ${floor.lastRunId}`
      : undefined,
    floor.branch === undefined
      ? undefined
      : floor.branch === null
        ? 'of no branch'
        : `of branch ${floor.branch}`,
    floor.definition !== undefined ? `workload definition ${floor.definition}` : undefined,
  ].filter((p) => p !== undefined);
  return parts.length > 0 ? `; ${parts.join(', ')}` : '';
}

/** Floors are shown and applied at one decimal, rounded up (a floor of 3.04% reads 3.1%). */
function roundUp(pct: number): number {
  return Math.ceil(pct * 10) / 10;
}

/** The floor recorded for a cell and metric, if any. */
export function floorOf(
  floors: readonly NoiseFloor[],
  cell: { workload: string; clients: number },
  metric: string,
): NoiseFloor | undefined {
  return floors.find(
    (f) => f.workload === cell.workload && f.clients === cell.clients && f.metric === metric,
  );
}
