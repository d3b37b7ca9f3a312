/**
 * learnNoiseFloors on a nightly history made from real pgbench runs of a noisy runner
 * (test/unit/history/noisy-history.ts, test/fixtures/history/README.md says how), each night recording the
 * workload definition it ran.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../src/core/compare/analysis/recorded-analysis.js';
import { decideRun } from '../../src/flows/compare/pipeline/decide-run.js';
import { syntheticRun } from '../../testkit/synthetic-run.js';
import {
  learnNoiseFloors,
  MIN_FLOOR_RUNS,
  type FloorCell,
} from '../../src/flows/compare/noise/noise-floors.js';
import { runnerId } from '../../src/flows/compare/noise/runner-noise.js';
import { noiseFloorPct } from '../../src/core/stats/noise-floor.js';
import { buildSeries, type HistoryRun } from '../../src/core/history/series.js';
import { workloadDefinitionHash } from '../../src/core/results/workload-definition.js';
import { noisyHistory, WORKLOAD, type NoisyHistoryOptions } from './history/noisy-history.js';

/** The workload the fixture's nights ran, as a results document records it. */
const DEFINITION = {
  name: WORKLOAD,
  tool: 'pgbench',
  builtin: 'select-only',
  mode: 'prepared',
  scale: 1,
  clients: [1, 2],
  duration: 8,
  warmup: 0,
  rounds: 5,
  settings: {},
  metrics: ['tps'],
};
const definition = workloadDefinitionHash(DEFINITION);
const master = { branch: 'master' };

/** The fixture's nights, each recording `spec` as its definition of the workload. */
function nights(options: NoisyHistoryOptions, spec: unknown = DEFINITION): HistoryRun[] {
  return noisyHistory(options).map((r) => ({ ...r, workloads: { [WORKLOAD]: spec } }));
}

const cells: FloorCell[] = [
  { workload: WORKLOAD, clients: 1, metrics: ['tps', 'latencyAvgMs'], definition },
  { workload: WORKLOAD, clients: 2, metrics: ['tps', 'instructions'], definition },
];

describe('noise floors from the nightly history of a runner', () => {
  const history = nights({ nights: 30 });
  const runner = runnerId(history[0]!.environment);

  it('learns one floor per cell and timed metric, over the runner nightly runs, saying which runs', () => {
    const floors = learnNoiseFloors(history, runner, cells, master);
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
      firstRunId: 'night-000',
      lastRunId: 'night-029',
      branch: 'master',
      definition,
    });
    // The real runner's night-to-night noise at 2 clients is far above 2%.
    expect(floors[2]!.floorPct).toBeGreaterThan(10);
  });

  it('needs MIN_FLOOR_RUNS nightly runs of the cell', () => {
    const short = nights({ nights: MIN_FLOOR_RUNS - 1 });
    expect(learnNoiseFloors(short, runner, cells, master)).toEqual([]);
    expect(learnNoiseFloors(nights({ nights: MIN_FLOOR_RUNS }), runner, cells, master)).toHaveLength(3);
  });

  it("reads only this runner's one-arm runs, never the excluded run, A/B runs, canaries or other runners", () => {
    expect(learnNoiseFloors(history, 'another-runner', cells, master)).toEqual([]);
    // Two-arm runs (a PR's base and head) are no nightly history.
    const ab = history.map((r) => ({ ...r, arms: [...r.arms, { ...r.arms[0]!, label: 'other' }] }));
    expect(learnNoiseFloors(ab, runner, cells, master)).toEqual([]);
    // A runner canary is a frozen build measured beside the night, whatever its ref says.
    const canaries = history.map((r) => ({ ...r, source: { ...r.source!, canary: true as const } }));
    expect(learnNoiseFloors(canaries, runner, cells, master)).toEqual([]);
    const oneLess = learnNoiseFloors(history, runner, cells, {
      ...master,
      exclude: history.at(-1)!.runId!,
    });
    expect(oneLess[0]!.runs).toBe(29);
    expect(oneLess[0]!.lastRunId).toBe('night-028');
  });

  it('reads only nightly runs of the branch the comparison comes from', () => {
    expect(learnNoiseFloors(history, runner, cells, { branch: 'REL_17_STABLE' })).toEqual([]);
    // A comparison that names no branch reads only nights that name none, and the reverse.
    expect(learnNoiseFloors(history, runner, cells, { branch: null })).toEqual([]);
    const unnamed = history.map((r) => ({ ...r, source: { head: { sha: r.source!.head!.sha! } } }));
    expect(learnNoiseFloors(unnamed, runner, cells, master)).toEqual([]);
    expect(learnNoiseFloors(unnamed, runner, cells, { branch: null })[0]).toMatchObject({
      branch: null,
      runs: 30,
    });
    // 20 nights of another branch among 30 of master: the floor is master's 30.
    const mixed = [
      ...history,
      ...nights({ nights: 20, factor: 0.5, stepAt: 0 }).map((r) => ({
        ...r,
        runId: `other-${r.runId}`,
        source: { head: { ref: 'feature' } },
      })),
    ];
    expect(learnNoiseFloors(mixed, runner, cells, master)).toEqual(
      learnNoiseFloors(history, runner, cells, master),
    );
  });

  it('reads only nightly runs of the same workload definition: a changed script or duration under one name starts over', () => {
    const before = nights({ nights: 30 }, { ...DEFINITION, builtin: 'tpcb-like' });
    // The same name, another script: its nights are another workload's noise.
    expect(learnNoiseFloors(before, runner, cells, master)).toEqual([]);
    expect(
      learnNoiseFloors(nights({ nights: 30 }, { ...DEFINITION, duration: 60 }), runner, cells, master),
    ).toEqual([]);
    expect(
      learnNoiseFloors(
        nights({ nights: 30 }, { ...DEFINITION, settings: { shared_buffers: '1GB' } }),
        runner,
        cells,
        master,
      ),
    ).toEqual([]);
    // 30 nights of the old definition, then 12 of the new one: the floor is the new one's 12.
    const changed = [
      ...before.map((r) => ({
        ...r,
        runId: `old-${r.runId}`,
        startedAt: r.startedAt.replace('2026-10', '2026-08'),
      })),
      ...nights({ nights: MIN_FLOOR_RUNS }),
    ];
    expect(learnNoiseFloors(changed, runner, cells, master)[0]).toMatchObject({
      runs: MIN_FLOOR_RUNS,
      firstRunId: 'night-000',
      definition,
    });
    // What does not change a timed run changes no definition: rounds, client counts, the threshold, the
    // counted evidence, the description.
    const same = nights(
      { nights: 30 },
      {
        ...DEFINITION,
        rounds: 20,
        clients: [1, 2, 4],
        threshold: 5,
        instructions: true,
        plans: true,
        description: 'renamed',
      },
    );
    expect(learnNoiseFloors(same, runner, cells, master)).toEqual(
      learnNoiseFloors(history, runner, cells, master),
    );
    // A night that recorded no definition of the workload is no history of it.
    expect(learnNoiseFloors(noisyHistory({ nights: 30 }), runner, cells, master)).toEqual([]);
  });
});

describe('a store poisoned with alternating nights (#40 item 2)', () => {
  it('14 one-arm nights alternating 1x and 0.5x TPS cannot turn a -99% head into anything but FAILED', () => {
    // Whoever can write to the store writes these: every other night at half the TPS.
    const poisoned = nights({ nights: 14 }).map((night, i) =>
      i % 2 === 0
        ? night
        : {
            ...night,
            samples: night.samples.map((s) => ({
              ...s,
              metrics: { ...s.metrics, tps: s.metrics.tps! * 0.5 },
            })),
          },
    );
    const floors = learnNoiseFloors(poisoned, runnerId(poisoned[0]!.environment), cells, master);
    const tps = floors.find((f) => f.clients === 1 && f.metric === 'tps')!;
    // The history is as wild as it was made: the learned floor is far beyond any threshold.
    expect(tps.floorPct).toBeGreaterThan(50);
    const judged = (effect: number) => {
      const result = syntheticRun({
        seed: 3,
        rounds: 12,
        workloads: { [WORKLOAD]: [1] },
        effect: (arm) => (arm === 'head' ? effect : 1),
      });
      const doc = {
        ...result,
        analysis: { alpha: 0.05, thresholdPct: 2, metric: 'tps' as const, noiseFloors: [tps] },
      };
      return decideRun(doc, analyse(doc));
    };
    for (const effect of [0.01, 0.001]) expect(judged(effect).outcome, `head at ${effect}x`).toBe('failed');
    // The cap (5x the threshold) is what holds: a change beyond it fails, one inside it is not called one.
    expect(judged(0.85).outcome).toBe('failed');
    expect(judged(0.95).outcome).not.toBe('failed');
  });
});
