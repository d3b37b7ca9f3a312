import { describe, expect, it } from 'vitest';
import { analyseHistory } from '../../../src/history/analyse.js';
import { judgeHistory, renderNightlySummary } from '../../../src/history/nightly.js';
import type { HistoryRun } from '../../../src/history/series.js';
import { commitSha, noisyHistory, WORKLOAD } from './noisy-history.js';

const SERIES = `kvm2-haltpoll-fx/${WORKLOAD}@1/tps`;

/** The real runs with a 20% slowdown from night 14 that is undone from night 28 on. */
function recovered(): HistoryRun[] {
  return noisyHistory({ clients: [1], stepAt: 14 }).map((run, night) =>
    night < 28
      ? run
      : {
          ...run,
          samples: run.samples.map((s) => ({ ...s, metrics: { ...s.metrics, tps: s.metrics.tps! / 0.8 } })),
        },
  );
}

describe('judgeHistory', () => {
  it('calls a series regressed while its latest change point is a regression', () => {
    const judged = judgeHistory(analyseHistory(noisyHistory({ clients: [1] })));
    expect(judged.verdict).toBe('regression');
    expect(judged.regressed.map((s) => s.series.id)).toEqual([SERIES]);
    expect(judged.improved).toEqual([]);
  });

  it('a series that recovered is no longer regressed; its recovery is an improvement', () => {
    const judged = judgeHistory(analyseHistory(recovered()));
    expect(judged.regressed).toEqual([]);
    expect(judged.improved.map((s) => s.series.id)).toEqual([SERIES]);
    expect(judged.verdict).toBe('improvement');
  });

  it('no change in the same real runs without the step', () => {
    const judged = judgeHistory(analyseHistory(noisyHistory({ clients: [1], stepAt: Infinity })));
    expect(judged).toEqual({ verdict: 'no-change', regressed: [], improved: [] });
  });
});

describe('renderNightlySummary', () => {
  it('puts the verdict first, lists the regressed series with the first bad commit, then the history', () => {
    const analysis = analyseHistory(noisyHistory({ clients: [1] }));
    const text = renderNightlySummary(analysis, judgeHistory(analysis), {
      measured: 'master @ 0123456789',
      notes: ['Regression issues: 1 opened, 0 updated, 0 closed (#500).'],
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe('## pgperf nightly: 🔴 1 series regressed');
    expect(text).toContain('Measured master @ 0123456789.');
    const regressed = lines.find((l) => l.startsWith(`- ${WORKLOAD} at 1 client (tps): -`))!;
    expect(regressed).toContain(`since ${commitSha(26).slice(0, 10)}`);
    expect(text.indexOf('Regression issues: 1 opened')).toBeLessThan(text.indexOf('### Performance history'));
    expect(text).not.toContain('**Improved**');
  });

  it('says no series regressed and lists the improvements', () => {
    const analysis = analyseHistory(recovered());
    const text = renderNightlySummary(analysis, judgeHistory(analysis));
    expect(text.split('\n')[0]).toBe('## pgperf nightly: ✅ no series regressed');
    expect(text).toMatch(/\*\*Improved\*\* \(latest change point\):\n- select-only at 1 client \(tps\): \+/);
    expect(text).not.toContain('**Regressed**');
  });
});
