import { describe, expect, it } from 'vitest';
import { analyseHistory } from '../../../src/core/history/history-analysis.js';
import { judgeHistory } from '../../../src/core/history/nightly-judgement.js';
import { renderNightlySummary } from '../../../src/core/report/nightly/nightly-summary.js';
import type { HistoryRun } from '../../../src/core/history/series.js';
import { commitSha, noisyHistory, WORKLOAD } from './noisy-history.js';
import { nightlyDecision, type NightlyOutcome } from '../../../src/flows/nightly/nightly-flow.js';
import type { HistoryAnalysis } from '../../../src/core/history/history-analysis.js';

/** The night's decision of an analysed history (nothing undecided), as the nightly flow makes it. */
function decisionOf(analysis: HistoryAnalysis) {
  const outcome = { analysis, judgement: judgeHistory(analysis), undecided: [] } as unknown as NightlyOutcome;
  return nightlyDecision(outcome, 'regression');
}

const FP = 'kvm2-haltpoll-fx';
const SERIES = `${FP}/${WORKLOAD}@1/tps`;

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
  it('calls a series regressed while its latest change point is a regression: an open event of its workload', () => {
    const judged = judgeHistory(analyseHistory(noisyHistory({ clients: [1] })));
    expect(judged.verdict).toBe('regression');
    expect(judged.regressed.map((s) => s.series.id)).toEqual([SERIES]);
    expect(judged.improved).toEqual([]);
    expect(judged.events.map((e) => [e.id, e.regressed.map((c) => c.series.id)])).toEqual([
      [`${FP}/${WORKLOAD}`, [SERIES]],
    ]);
  });

  it('two client counts of one workload regressing are one event with two cells, the worst first', () => {
    const judged = judgeHistory(analyseHistory(noisyHistory({ clients: [1, 2] })));
    expect(judged.events).toHaveLength(1);
    const [event] = judged.events;
    expect(event).toMatchObject({ fingerprint: FP, workload: WORKLOAD });
    expect(event!.regressed.map((c) => c.series.key.clients).sort()).toEqual([1, 2]);
    const changes = event!.regressed.map((c) => Math.abs(Math.log1p(c.changePoint.relativeChange)));
    expect(changes[0]).toBeGreaterThanOrEqual(changes[1]!);
  });

  it('a series that recovered is no longer regressed; its recovery is an improvement; no event is open', () => {
    const judged = judgeHistory(analyseHistory(recovered()));
    expect(judged.regressed).toEqual([]);
    expect(judged.improved.map((s) => s.series.id)).toEqual([SERIES]);
    expect(judged.verdict).toBe('improvement');
    expect(judged.events).toEqual([]);
    expect(judged.workloads.map((w) => w.id)).toEqual([`${FP}/${WORKLOAD}`]);
  });

  it('no change in the same real runs without the step', () => {
    const judged = judgeHistory(analyseHistory(noisyHistory({ clients: [1], stepAt: Infinity })));
    expect(judged).toMatchObject({ verdict: 'no-change', regressed: [], improved: [], events: [] });
  });

  it('lists the series too short to analyse', () => {
    const judged = judgeHistory(analyseHistory(noisyHistory({ clients: [1], nights: 3 })));
    expect(judged.unanalysed.map((s) => s.series.id)).toEqual([SERIES]);
    expect(judged.workloads).toEqual([]);
  });
});

describe('renderNightlySummary', () => {
  it('puts the verdict first, lists each regressed workload with its cells and first bad commits, then the history', () => {
    const analysis = analyseHistory(noisyHistory({ clients: [1, 2] }));
    const text = renderNightlySummary(analysis, judgeHistory(analysis), decisionOf(analysis), {
      measured: { ref: 'master', sha: '0123456789abcdef' },
      notes: ['Regression issues: 1 opened, 0 updated, 0 closed (#500).'],
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe('## pgperf nightly: 🔴 Failed: 1 workload regressed (2 cells)');
    expect(text).toContain('Measured master @ 0123456789.');
    expect(text).toContain(`- ${WORKLOAD} on ${FP}: 2 cells`);
    const cell = lines.find((l) => l.startsWith('  - at 1 client (tps): -'))!;
    expect(cell).toContain(`since ${commitSha(26).slice(0, 10)}`);
    expect(lines.some((l) => l.startsWith('  - at 2 clients (tps): -'))).toBe(true);
    expect(text.indexOf('Regression issues: 1 opened')).toBeLessThan(text.indexOf('### Performance history'));
    expect(text).not.toContain('**Improved**');
  });

  it('says no workload regressed and lists the improvements', () => {
    const analysis = analyseHistory(recovered());
    const text = renderNightlySummary(analysis, judgeHistory(analysis), decisionOf(analysis));
    expect(text.split('\n')[0]).toBe('## pgperf nightly: 🚀 Passed: No open regression');
    expect(text).toMatch(/\*\*Improved\*\* \(latest change point\):\n- select-only at 1 client \(tps\): \+/);
    expect(text).not.toContain('**Regressed**');
  });

  it('escapes the ref it names', () => {
    const analysis = analyseHistory(recovered());
    const text = renderNightlySummary(analysis, judgeHistory(analysis), decisionOf(analysis), {
      measured: { ref: 'x|<b>@y' },
    });
    expect(text).toContain('Measured x&#124;&lt;b&gt;&#64;&#8205;y.');
  });
});
