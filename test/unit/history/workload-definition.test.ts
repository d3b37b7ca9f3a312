/**
 * A series is a workload definition: 16 nightly runs of one named workload whose file was edited after the
 * 8th (tpcb-like -> select-only under the same name) with a large TPS step at the edit. No change point,
 * regression event, issue or bisection crosses the edit, and the nightly summary says once that the
 * workload changed (core/history/definition-segments.ts, core/results/workload-definition.ts).
 */
import { workloadDefinitionHash } from '../../../src/core/results/workload-definition.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyseHistory } from '../../../src/core/history/history-analysis.js';
import { judgeHistory } from '../../../src/core/history/nightly-judgement.js';
import { buildSeries, type HistoryRun } from '../../../src/core/history/series.js';
import { renderNightlySummary } from '../../../src/core/report/nightly/nightly-summary.js';
import { historySiteData } from '../../../src/core/report/history/page-data.js';
import { planIssueActions } from '../../../src/flows/nightly/regression-issues.js';
import { nightlyDecision, type NightlyOutcome } from '../../../src/flows/nightly/nightly-flow.js';
import { verifyBisectTarget } from '../../../src/flows/nightly/verify-bisect-target.js';
import { withCurrentDefinitions } from '../../../src/flows/history/current-definitions.js';
import { learnNoiseFloors } from '../../../src/flows/compare/noise/noise-floors.js';
import { runnerId } from '../../../src/flows/compare/noise/runner-noise.js';
import { definitionHash } from '../../../src/core/results/workload-definition.js';
import { workloadSchema } from '../../../src/drivers/workload.js';
import { DirStore } from '../../../src/store/dir/dir-store.js';
import { WORKLOAD, commitSha, noisyHistory } from './noisy-history.js';

const spec = (over: Record<string, unknown> = {}) =>
  workloadSchema.parse({ name: WORKLOAD, tool: 'pgbench', builtin: 'tpcb-like', clients: [1], ...over });

/** `runs` with night k's workload defined by `define(k)` (and its script texts by `scripts(k)`, if any). */
function defined(
  runs: HistoryRun[],
  define: (night: number) => unknown,
  scripts?: (night: number) => string | undefined,
): HistoryRun[] {
  return runs.map((run, night) => {
    const text = scripts?.(night);
    return {
      ...run,
      workloads: { [WORKLOAD]: define(night) },
      ...(text !== undefined ? { workloadScripts: { [WORKLOAD]: text } } : {}),
    };
  });
}

/** 16 nights; the workload file edited after the 8th (tpcb-like -> select-only) and TPS ten times higher. */
function editedAfterEighth(): HistoryRun[] {
  return defined(noisyHistory({ nights: 16, stepAt: 8, factor: 10, clients: [1] }), (night) =>
    spec(night < 8 ? {} : { builtin: 'select-only' }),
  );
}

/** The same 16 nights, the TPS ten times lower after the edit (what would open an issue and a bisection). */
function slowerAfterEdit(): HistoryRun[] {
  return defined(noisyHistory({ nights: 16, stepAt: 8, factor: 0.1, clients: [1] }), (night) =>
    spec(night < 8 ? { builtin: 'select-only' } : {}),
  );
}

const decisionOf = (analysis: ReturnType<typeof analyseHistory>) =>
  nightlyDecision(
    { analysis, judgement: judgeHistory(analysis), undecided: [] } as unknown as NightlyOutcome,
    'regression',
  );

describe('a workload edited under the same name', () => {
  it('the step at the edit is a change point while the runs record no definition (the control)', () => {
    const runs = slowerAfterEdit().map(({ workloads: _w, ...r }) => ({ ...r, workloads: {} }));
    const judged = judgeHistory(analyseHistory(runs));
    expect(judged.events.map((e) => e.workload)).toEqual([WORKLOAD]);
  });

  it('splits the series at the edit: no change point, regression event or issue crosses it', () => {
    for (const runs of [editedAfterEighth(), slowerAfterEdit()]) {
      const analysis = analyseHistory(runs);
      const tps = analysis.series.find((s) => s.series.key.metric === 'tps')!;
      expect(tps.segments.map((s) => [s.start, s.end])).toEqual([
        [0, 8],
        [8, 16],
      ]);
      expect(tps.series.points[7]!.definition).not.toBe(tps.series.points[8]!.definition);
      expect(analysis.series.flatMap((s) => s.changePoints)).toEqual([]);
      const judged = judgeHistory(analysis);
      expect(judged).toMatchObject({ verdict: 'no-change', regressed: [], improved: [], events: [] });
      expect(planIssueActions(analysis, [], 'pgperf-bot')).toEqual([]);
      expect(decisionOf(analysis)).toMatchObject({ outcome: 'passed', verdict: 'no-change' });
    }
  });

  it('the nightly summary says once that the workload changed and that its history restarts there', () => {
    const analysis = analyseHistory(editedAfterEighth());
    const text = renderNightlySummary(analysis, judgeHistory(analysis), decisionOf(analysis));
    const tps = analysis.series.find((s) => s.series.key.metric === 'tps')!;
    const [before, after] = [tps.series.points[7]!.definition, tps.series.points[8]!.definition];
    const line = `${WORKLOAD}: the workload definition changed on 2026-10-09 (${before} -> ${after}): history restarts there.`;
    expect(text).toContain(line);
    expect(text.split(line)).toHaveLength(2);
    expect(text).not.toContain('+1039');
    expect(text).not.toMatch(/improvement|regression \|/i);
  });

  it('the chart marks where the workload changed', () => {
    const site = historySiteData(analyseHistory(editedAfterEighth()));
    const chart = site.workloads[0]!.charts.find((c) => c.metric === 'tps')!;
    expect(chart.definitionChanges).toEqual([
      { run: 8, date: chart.runs[8]!.date, from: expect.any(String), to: expect.any(String) },
    ]);
    expect(chart.lines[0]!.changePoints).toEqual([]);
  });

  it('a change point inside a segment is still found, at its commit', () => {
    const runs = defined(noisyHistory({ nights: 30, stepAt: 20, factor: 0.8, clients: [1] }), (night) =>
      spec(night < 8 ? {} : { builtin: 'select-only' }),
    );
    const judged = judgeHistory(analyseHistory(runs));
    expect(judged.events).toHaveLength(1);
    expect(judged.events[0]!.regressed[0]!.changePoint.firstAfter.sha).toBe(commitSha(20));
  });

  it('an old regression is not where the series stands after the edit', () => {
    // -20% from night 10 under the first definition, then the file edited on night 24.
    const runs = defined(noisyHistory({ nights: 34, stepAt: 10, factor: 0.8, clients: [1] }), (night) =>
      spec(night < 24 ? {} : { builtin: 'select-only' }),
    );
    const analysis = analyseHistory(runs);
    const tps = analysis.series.find((s) => s.series.key.metric === 'tps')!;
    expect(tps.changePoints.map((c) => c.firstAfter.sha)).toEqual([commitSha(10)]);
    expect(judgeHistory(analysis).events).toEqual([]);
  });

  it('refuses to bisect across the edit', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'definition-bisect-'));
    const store = await DirStore.open(dir, { warn: () => {} });
    try {
      const runs = slowerAfterEdit();
      for (const run of runs) await store.save(run);
      const series = buildSeries(runs).find((s) => s.key.metric === 'tps')!;
      const target = {
        series: series.id,
        workload: WORKLOAD,
        clients: 1,
        metric: 'tps' as const,
        fingerprint: series.key.fingerprint,
        good: commitSha(7),
        bad: commitSha(8),
      };
      await expect(verifyBisectTarget(target, store, 'issue #7')).rejects.toThrow(
        /^issue #7: the workload definition of series .* changed between good .* and bad .* \(on 2026-10-09\): .*nothing is bisected$/,
      );
      await expect(
        verifyBisectTarget({ ...target, good: commitSha(9), bad: commitSha(10) }, store, 'issue #7'),
      ).resolves.toBeUndefined();
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('learns noise floors from the newest definition only', () => {
    const runs = defined(noisyHistory({ nights: 30, stepAt: Infinity, clients: [1] }), (night) =>
      spec(night < 10 ? {} : { builtin: 'select-only' }),
    );
    const runner = runnerId(runs[0]!.environment);
    // The comparison runs the newest definition: only its nights feed the floor.
    const definition = workloadDefinitionHash(spec({ builtin: 'select-only' }));
    const [floor] = learnNoiseFloors(
      runs,
      runner,
      [{ workload: WORKLOAD, clients: 1, metrics: ['tps'], definition }],
      { branch: 'master' },
    );
    expect(floor).toMatchObject({ runs: 20, from: runs[10]!.startedAt });
  });
});

describe('what a definition is', () => {
  const nights = () => noisyHistory({ nights: 4, stepAt: Infinity, clients: [1] });
  const segments = (runs: HistoryRun[]) =>
    buildSeries(runs)
      .find((s) => s.key.metric === 'tps')!
      .points.map((p) => p.definition)
      .filter((d, i, all) => i === 0 || d !== all[i - 1]).length;

  it.each([
    ['the scale', (n: number) => spec({ scale: n < 2 ? 10 : 100 }), 2],
    ['the query mode', (n: number) => spec({ queryMode: n < 2 ? 'prepared' : 'simple' }), 2],
    ['a setting', (n: number) => spec({ settings: n < 2 ? {} : { work_mem: '64MB' } }), 2],
    [
      'the duration (a longer run also measures checkpoints and vacuum)',
      (n: number) => spec({ duration: n < 2 ? 60 : 120 }),
      2,
    ],
    ['the rounds (more samples of one measurement)', (n: number) => spec({ rounds: n < 2 ? 5 : 20 }), 1],
    [
      'the client list (each client count is a series)',
      (n: number) => spec({ clients: n < 2 ? [1] : [1, 4] }),
      1,
    ],
    ['the description', (n: number) => spec({ description: `night ${n}` }), 1],
  ])('%s', (_what, define, expected) => {
    expect(segments(defined(nights(), define))).toBe(expected);
  });

  it('a settings edit starts a segment of the same chart, not a second chart', () => {
    // As a run records it: the edited setting changes the postgresql.conf, so the settings hash in the
    // fingerprint, and with it the fingerprint's id.
    const runs = defined(nights(), (n) => spec(n < 2 ? {} : { settings: { work_mem: '64MB' } })).map(
      (r, n) =>
        n < 2
          ? r
          : {
              ...r,
              fingerprint: {
                id: 'kvm2-settings-2',
                facts: { ...r.fingerprint!.facts, settingsHash: 'edited' },
              },
            },
    );
    const tps = buildSeries(runs).filter((s) => s.key.metric === 'tps');
    expect(tps.map((s) => s.id)).toEqual([`kvm2-settings-2/${WORKLOAD}@1/tps`]);
    expect(segments(runs)).toBe(2);
    // Another machine is another chart still.
    const other = runs.map((r, n) =>
      n < 2 ? { ...r, fingerprint: { id: 'other', facts: { ...r.fingerprint!.facts, cpuCount: '64' } } } : r,
    );
    expect(buildSeries(other).filter((s) => s.key.metric === 'tps')).toHaveLength(2);
  });

  it("the arm's own settings count as the workload's", () => {
    const runs = defined(nights(), () => spec()).map((r, n) =>
      n < 2 ? r : { ...r, arms: [{ ...r.arms[0]!, settingOverrides: { shared_buffers: '1GB' } }] },
    );
    expect(segments(runs)).toBe(2);
  });

  it('a script edited under its name is a change; a run that recorded no script text is not', () => {
    const scripts = spec({ builtin: undefined, scripts: [{ file: '/w/a/bench.sql', weight: 1 }] });
    expect(
      segments(
        defined(
          nights(),
          () => scripts,
          (n) => (n < 2 ? 'aaaa' : 'bbbb'),
        ),
      ),
    ).toBe(2);
    expect(
      segments(
        defined(
          nights(),
          () => scripts,
          (n) => (n < 2 ? undefined : 'bbbb'),
        ),
      ),
    ).toBe(1);
    // Another checkout of the same file: the path is the runner's, not the workload's.
    const moved = spec({ builtin: undefined, scripts: [{ file: '/home/runner/w/bench.sql', weight: 1 }] });
    expect(
      segments(
        defined(
          nights(),
          (n) => (n < 2 ? scripts : moved),
          () => 'aaaa',
        ),
      ),
    ).toBe(1);
  });

  it('a document written before a field existed is read with its default: no change', () => {
    const { vacuum: _dropped, ...older } = spec() as Record<string, unknown>;
    expect(definitionHash(older, {})).not.toBe(definitionHash(spec(), {}));
    const runs = defined(nights(), (n) => (n < 2 ? older : spec())).map(withCurrentDefinitions);
    expect(segments(runs)).toBe(1);
  });
});
