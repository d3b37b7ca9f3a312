/**
 * learnNoiseFloors on a nightly history made from real pgbench runs of a noisy runner
 * (test/unit/history/noisy-history.ts, test/fixtures/history/README.md says how).
 */
import { describe, expect, it } from 'vitest';
import {
  learnNoiseFloors,
  MIN_FLOOR_RUNS,
  type FloorCell,
} from '../../src/flows/compare/noise/noise-floors.js';
import { runnerId } from '../../src/flows/compare/noise/runner-noise.js';
import { noiseFloorPct } from '../../src/core/stats/noise-floor.js';
import { buildSeries } from '../../src/core/history/series.js';
import { noisyHistory, WORKLOAD } from './history/noisy-history.js';

const cells: FloorCell[] = [
  { workload: WORKLOAD, clients: 1, metrics: ['tps', 'latencyAvgMs'] },
  { workload: WORKLOAD, clients: 2, metrics: ['tps', 'instructions'] },
];

describe('noise floors from the nightly history of a runner', () => {
  const history = noisyHistory({ nights: 30 });
  const runner = runnerId(history[0]!.environment);

  it('learns one floor per cell and timed metric, over the runner nightly runs', () => {
    const floors = learnNoiseFloors(history, runner, cells);
    expect(floors.map((f) => `${f.workload}@${f.clients} ${f.metric}`)).toEqual([
      `${WORKLOAD}@1 tps`,
      `${WORKLOAD}@1 latencyAvgMs`,
      `${WORKLOAD}@2 tps`,
    ]);
    const series = buildSeries(history).find((s) => s.key.clients === 1 && s.key.metric === 'tps')!;
    expect(floors[0]).toEqual({
      workload: WORKLOAD,
      clients: 1,
      metric: 'tps',
      floorPct: noiseFloorPct(series.points.map((p) => p.median))!.floorPct,
      runs: 30,
      from: '2026-10-01T02:00:00.000Z',
      to: '2026-10-30T02:00:00.000Z',
    });
    // The real runner's night-to-night noise at 2 clients is far above 2%.
    expect(floors[2]!.floorPct).toBeGreaterThan(10);
  });

  it('needs MIN_FLOOR_RUNS nightly runs of the cell', () => {
    const short = noisyHistory({ nights: MIN_FLOOR_RUNS - 1 });
    expect(learnNoiseFloors(short, runner, cells)).toEqual([]);
    expect(learnNoiseFloors(noisyHistory({ nights: MIN_FLOOR_RUNS }), runner, cells)).toHaveLength(3);
  });

  it("reads only this runner's one-arm runs, never the excluded run, A/B runs or other runners", () => {
    expect(learnNoiseFloors(history, 'another-runner', cells)).toEqual([]);
    // Two-arm runs (a PR's base and head) are no nightly history.
    const ab = history.map((r) => ({ ...r, arms: [...r.arms, { ...r.arms[0]!, label: 'other' }] }));
    expect(learnNoiseFloors(ab, runner, cells)).toEqual([]);
    const oneLess = learnNoiseFloors(history, runner, cells, { exclude: history.at(-1)!.runId! });
    expect(oneLess[0]!.runs).toBe(29);
  });
});
