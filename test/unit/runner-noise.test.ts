import { describe, expect, it } from 'vitest';
import { estimateNoise } from '../../src/core/compare/power.js';
import { analyseHistory } from '../../src/core/history/history-analysis.js';
import {
  estimateRunnerNoise,
  isCalibrationRun,
  loadRunnerNoise,
  MIN_HISTORY_POINTS,
  runnerId,
  upperNoiseBound,
} from '../../src/flows/compare/noise/runner-noise.js';
import type { RunResult } from '../../src/core/results/result-types.js';
import { robustLogSpread } from '../../src/core/stats/robust-log-spread.js';
import { normalQuantile } from '../../src/core/stats/normal-quantile.js';
import { seededRandom } from '../../src/core/stats/seeded-random.js';
import { DirStore } from '../../src/store/dir/dir-store.js';
import { noiseWarnings } from '../../src/flows/compare/noise/noise-warnings.js';
import { noisyHistory } from './history/noisy-history.js';
import { readFixture } from '../../testkit/store-fixture.js';
import { useTmpDir } from '../helpers/tmp-dir.js';

/** A real results document: base and head of one install, head with synchronous_commit off (an A/B run). */
const real = readFixture();
const cell = { workload: 'select-only', clients: 1 };
const env = real.environment;

/** The real document as an A/A run written before `calibration` was recorded: same install, no overrides. */
function legacyCalibration(startedAt: string, runId: string): RunResult {
  const aa = structuredClone(real);
  aa.arms = aa.arms.map((a, i) => ({ ...a, label: i === 0 ? 'a' : 'b', settingOverrides: {} }));
  aa.samples = aa.samples.map((s) => ({ ...s, arm: s.arm === 'base' ? 'a' : 'b' }));
  return { ...aa, startedAt, runId };
}

/** The captured noisy-runner nights (a 20% step at night 26), measured on the same machine as `real`. */
const history = (nights: number, stepAt = 26) =>
  noisyHistory({ nights, stepAt, clients: [1] }).map((r) => ({ ...r, environment: env }));

const tmp = useTmpDir('pgperf-noise-', { perTest: true });

/** A writable directory store in this test's own temp dir. */
const openStore = () => DirStore.open(tmp(), { warn: () => {}, write: true });

describe('isCalibrationRun', () => {
  it('recognises the recorded flag and older A/A documents, not A/B runs of one install', () => {
    expect(isCalibrationRun(real)).toBe(false); // head has its own settings
    expect(isCalibrationRun(legacyCalibration(real.startedAt, 'x'))).toBe(true);
    expect(isCalibrationRun({ ...real, calibration: true })).toBe(true);
    const otherInstall = legacyCalibration(real.startedAt, 'x');
    otherInstall.arms[1]!.binDir = '/opt/other/bin';
    expect(isCalibrationRun(otherInstall)).toBe(false);
    expect(isCalibrationRun(history(1)[0]!)).toBe(false); // one arm
  });
});

describe('upperNoiseBound', () => {
  it('raises an estimate less the more points are behind it, and never lowers it', () => {
    expect(upperNoiseBound(10, 10)).toBeGreaterThan(upperNoiseBound(10, 30));
    expect(upperNoiseBound(10, 30)).toBeGreaterThan(upperNoiseBound(10, 1000));
    expect(upperNoiseBound(10, 1000)).toBeGreaterThan(10);
    expect(upperNoiseBound(10, 0)).toBe(10);
  });
});

describe('estimateRunnerNoise', () => {
  it('takes the newest calibration of this runner, as the paired test sees it', () => {
    const older = legacyCalibration('2026-11-01T00:00:00Z', 'cal-old');
    const newer = legacyCalibration('2026-11-20T00:00:00Z', 'cal-new');
    // Make the newer calibration measurably different so that which one was used shows.
    newer.samples = newer.samples.map((s, i) =>
      s.arm === 'b' ? { ...s, metrics: { ...s.metrics, tps: s.metrics.tps! * (1 + (i % 3) * 0.05) } } : s,
    );
    const noise = estimateRunnerNoise([older, ...history(40), newer], runnerId(env), [cell]);
    expect(noise.missing).toEqual([]);
    const [n] = noise.cells;
    expect(n).toMatchObject({ id: 'select-only@1', source: 'calibration', runId: 'cal-new', points: 3 });
    expect(n!.perRoundCvPct).toBeCloseTo(estimateNoise(newer, cell).pairedCvPct!, 10);
    // Plans use the estimate raised for the few rounds behind it.
    expect(n!.planningCvPct).toBeCloseTo(upperNoiseBound(n!.perRoundCvPct, 3), 10);
    expect(n!.planningCvPct).toBeGreaterThan(n!.perRoundCvPct);
    expect(n!.perRoundCvPct).not.toBeCloseTo(estimateNoise(older, cell).pairedCvPct!, 3);
    // The run being judged is never its own noise.
    expect(
      estimateRunnerNoise([older, newer], runnerId(env), [cell], { exclude: 'cal-new' }).cells[0]!.runId,
    ).toBe('cal-old');
  });

  it('falls back to the history since the last change point, with the runs it used', () => {
    const runs = history(40);
    const noise = estimateRunnerNoise(runs, runnerId(env), [cell]);
    const [n] = noise.cells;
    expect(n!.source).toBe('history');
    // The planted 20% step is a change point: only the nights after it count.
    const series = analyseHistory(runs).series.find(
      (s) => s.series.key.metric === 'tps' && s.series.key.clients === 1,
    )!;
    const cut = series.changePoints.at(-1)!.index;
    expect(cut).toBeGreaterThan(20);
    const segment = series.series.points.slice(cut);
    expect(n!.points).toBe(segment.length);
    expect(n!.date).toBe(segment[0]!.date);
    const spread = 100 * Math.expm1(robustLogSpread(segment.map((p) => p.median)));
    expect(n!.runCvPct).toBeCloseTo(spread, 10);
    expect(n!.perRoundCvPct).toBeCloseTo(Math.SQRT2 * spread, 10);
    expect(n!.planningCvPct).toBeCloseTo(upperNoiseBound(Math.SQRT2 * spread, segment.length), 10);
    // Across the step the spread would be far larger: the cut matters.
    const all = 100 * Math.expm1(robustLogSpread(series.series.points.map((p) => p.median)));
    expect(all).toBeGreaterThan(2 * spread);
  });

  it('takes a drift out of the history rather than reading it as noise', () => {
    // 50 flat nights, then 15% slower over 35 nights, then 15 nights at the new level; 0.3% noise a run.
    const random = seededRandom(11);
    const noise = () => 0.003 * normalQuantile(Math.min(Math.max(random(), 1e-12), 1 - 1e-12));
    const level = (n: number) => Math.log(0.85) * Math.min(1, Math.max(0, n - 50) / 35);
    const runs = noisyHistory({ clients: [1], nights: 100, stepAt: Infinity }).map((run, night) => ({
      ...run,
      environment: env,
      samples: run.samples.map((s) => ({
        ...s,
        metrics: { ...s.metrics, tps: 50_000 * Math.exp(level(night) + noise()) },
      })),
    }));
    const series = analyseHistory(runs).series.find(
      (s) => s.series.key.metric === 'tps' && s.series.key.clients === 1,
    )!;
    const drift = series.changePoints.at(-1)!;
    expect(drift.shape).toBe('drift');
    const [n] = estimateRunnerNoise(runs, runnerId(env), [cell]).cells;
    expect(n!.source).toBe('history');
    // The runs since the drift began, its ramp taken out: the runner's own noise, not the drift's 15%.
    expect(n!.points).toBe(100 - drift.index);
    expect(n!.runCvPct).toBeLessThan(0.6);
    const raw =
      100 * Math.expm1(robustLogSpread(series.series.points.slice(drift.index).map((p) => p.median)));
    expect(raw).toBeGreaterThan(3);
  });

  it('says how many runs are needed when the history is too short', () => {
    const noise = estimateRunnerNoise(history(MIN_HISTORY_POINTS - 2), runnerId(env), [
      cell,
      { workload: 'select-only', clients: 64 },
    ]);
    expect(noise.cells).toEqual([]);
    expect(noise.missing.map((m) => m.id)).toEqual(['select-only@1', 'select-only@64']);
    expect(noise.missing[0]!.reason).toContain(`${MIN_HISTORY_POINTS - 2} stored run(s)`);
    expect(noise.missing[0]!.reason).toContain(`at least ${MIN_HISTORY_POINTS}`);
    expect(noise.missing[0]!.reason).toContain('pgperf calibrate');
    expect(noise.missing[1]!.reason).toContain('no stored run of it');
  });

  it('ignores calibrations and history of another machine', () => {
    const otherEnv = { ...env, cpuModel: 'Intel Xeon' };
    const foreign = { ...legacyCalibration('2026-11-20T00:00:00Z', 'cal-foreign'), environment: otherEnv };
    const mine = history(40);
    expect(runnerId(otherEnv)).not.toBe(runnerId(env));
    expect(estimateRunnerNoise([foreign, ...mine], runnerId(env), [cell]).cells[0]!.source).toBe('history');
    const none = estimateRunnerNoise(mine, runnerId(otherEnv), [cell]);
    expect(none.cells).toEqual([]);
    expect(none.missing[0]!.reason).toContain('no stored run of it');
    // The settings hash is a run's, not the machine's: an A/B run's settings do not hide the calibration.
    const aa = {
      ...legacyCalibration('2026-11-20T00:00:00Z', 'cal'),
      environment: { ...env, settingsHash: 'x' },
    };
    expect(estimateRunnerNoise([aa], runnerId(env), [cell]).cells[0]!.source).toBe('calibration');
  });
});

describe('loadRunnerNoise', () => {
  it('reads the runs back from a directory store', async () => {
    const store = await openStore();
    await store.save(real);
    await store.save(legacyCalibration('2026-11-20T00:00:00Z', 'cal-stored'));
    const noise = await loadRunnerNoise(store, runnerId(env), [cell]);
    expect(noise.cells[0]).toMatchObject({ source: 'calibration', runId: 'cal-stored' });
    await store.close();
  });
});

describe('noiseWarnings', () => {
  it('warns for the cells of an A/B run whose threshold is below what its rounds resolve here', async () => {
    const store = await openStore();
    const ab = {
      ...real,
      runId: 'ab-run',
      analysis: { alpha: 0.05, thresholdPct: 0.5, metric: 'tps' as const },
    };
    await store.save(ab);
    // No noise stored for this runner yet: nothing to say.
    expect(await noiseWarnings(ab, store)).toEqual([]);
    await store.save(legacyCalibration('2026-11-20T00:00:00Z', 'cal-stored'));
    const warnings = await noiseWarnings(ab, store);
    // 3 rounds over 9 cells cannot reach significance at all: every cell is named, with its noise source.
    expect(warnings).toHaveLength(real.plan.cells.length);
    expect(warnings[0]).toMatch(
      /^smoke@1: the 0\.5% threshold is below what this runner resolves with 3 rounds \(none: they cannot reach significance; [\d.]+% noise per round \([\d.]+% measured, from calibration cal-stored /,
    );
    // A cell the comparison decided did resolve its threshold: no warning for it.
    const decided = new Set([real.plan.cells[0]!].map((c) => `${c.workload}@${c.clients}`));
    const rest = await noiseWarnings(ab, store, decided);
    expect(rest).toHaveLength(real.plan.cells.length - 1);
    expect(rest.some((w) => w.startsWith('smoke@1:'))).toBe(false);
    // An A/A run is the noise, not judged against it; nor is a run judged against itself.
    expect(await noiseWarnings({ ...ab, calibration: true }, store)).toEqual([]);
    // Older documents without `metrics` in their workloads are still judged (TPS gates).
    const old = structuredClone(ab);
    for (const w of Object.values(old.workloads) as Array<Record<string, unknown>>) delete w.metrics;
    expect(await noiseWarnings(old, store)).toHaveLength(real.plan.cells.length);
    await store.close();
  });

  it('names the rounds that would resolve a threshold the planned rounds cannot', async () => {
    const store = await openStore();
    await store.save(legacyCalibration('2026-11-20T00:00:00Z', 'cal-stored'));
    const ab = {
      ...real,
      runId: 'ab-run',
      analysis: { alpha: 0.05, thresholdPct: 50, metric: 'tps' as const },
    };
    ab.workloads = Object.fromEntries(
      Object.entries(ab.workloads).map(([k, w]) => [k, { ...(w as object), rounds: 40 }]),
    );
    const warnings = await noiseWarnings(ab, store);
    // At 40 rounds and a 50% threshold most cells resolve it; any warning names a round count above 40.
    for (const w of warnings)
      expect(Number(/about (\d+) rounds would resolve it/.exec(w)?.[1])).toBeGreaterThan(40);
    expect(warnings.length).toBeLessThan(real.plan.cells.length);
    await store.close();
  });
});
