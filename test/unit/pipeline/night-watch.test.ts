/**
 * The runner's side of the nightly history (src/core/history/night-watch.ts) on nights made from real pgbench
 * runs of a noisy runner (test/unit/history/noisy-history.ts): a runner canary that moved the same night marks
 * that night's regression suspect (pending, not failed, said in the report and the issue); missing nights
 * and vanished cells are alerts that keep the night from reading green.
 */
import { describe, expect, it } from 'vitest';
import { analyseHistory, type HistoryAnalysis } from '../../../src/core/history/history-analysis.js';
import type { HistoryRun } from '../../../src/core/history/series.js';
import { judgeHistory } from '../../../src/core/history/nightly-judgement.js';
import { watchNights, nightOf } from '../../../src/core/history/night-watch.js';
import {
  markSuspects,
  nightlyDecision,
  type NightlyOutcome,
} from '../../../src/flows/nightly/nightly-flow.js';
import { nightlyReport } from '../../../src/core/report/nightly/nightly-report.js';
import { eventCells, issueBody } from '../../../src/core/report/nightly/regression-event.js';
import { noisyHistory } from '../history/noisy-history.js';

/** The canary's nights: the same machine, a frozen build (source.canary), its own run ids. */
function canaryOf(runs: readonly HistoryRun[]): HistoryRun[] {
  return runs.map((r) => ({
    ...r,
    runId: `canary-${r.runId}`,
    source: { ...r.source, head: { ref: 'canary' }, canary: true },
  }));
}

function outcomeOf(analysis: HistoryAnalysis, now: Date, expectEveryHours?: number): NightlyOutcome {
  const watch = watchNights(analysis, { now, ...(expectEveryHours ? { expectEveryHours } : {}) });
  markSuspects(analysis, watch);
  return {
    run: {} as NightlyOutcome['run'],
    source: {},
    analysis,
    judgement: judgeHistory(analysis),
    undecided: [],
    watch,
  };
}

const last = (runs: readonly HistoryRun[]) => new Date(runs.at(-1)!.startedAt);

describe('the runner canary', () => {
  it('a regression on the night the canary moved too is suspect: pending, said in the report and the issue', () => {
    const head = noisyHistory({ nights: 40, stepAt: 26 });
    // The frozen build slowed down the same night: the runner changed, not PostgreSQL.
    const canary = canaryOf(noisyHistory({ nights: 40, stepAt: 26, factor: 0.75 }));
    const analysis = analyseHistory([...head, ...canary]);
    const outcome = outcomeOf(analysis, last(head));
    // Both of the canary's cells (1 and 2 clients) moved that night.
    expect(outcome.watch!.canaryShifts.map((c) => c.night)).toEqual([
      nightOf(head[26]!.startedAt),
      nightOf(head[26]!.startedAt),
    ]);
    // The canary's own series are no regression event of PostgreSQL.
    expect(outcome.judgement!.events.map((e) => e.workload)).toEqual(['select-only']);
    expect(outcome.watch!.suspect.size).toBe(outcome.judgement!.regressed.length);

    const decision = nightlyDecision(outcome, 'regression');
    expect(decision).toMatchObject({ outcome: 'pending', exitCode: 0 });
    expect(decision.headline.lead).toBe('Suspect regression: runner drift');
    expect(decision.status.state).toBe('pending');
    expect(nightlyDecision(outcome, 'inconclusive').outcome).toBe('failed');

    const report = nightlyReport(outcome, decision);
    expect(report).toContain('suspect: the runner canary (a frozen build) moved');
    expect(report.split('\n')[0]).toBe('## pgperf nightly: ❔ Pending: Suspect regression: runner drift');
    expect(report).toMatch(
      /Runner canary .*canary:select-only(@|&#64;)1\/tps: latest change point -2\d\.\d% on /,
    );
    const event = outcome.judgement!.events[0]!;
    const body = issueBody(event, eventCells(event, []), 'open', {});
    expect(body).toMatch(/⚠️ TPS at [12] clients?: suspect: the runner canary \(a frozen build\) moved/);
  });

  it('a canary that held still leaves the regression a regression', () => {
    const head = noisyHistory({ nights: 40, stepAt: 26 });
    const canary = canaryOf(noisyHistory({ nights: 40, stepAt: Infinity }));
    const outcome = outcomeOf(analyseHistory([...head, ...canary]), last(head));
    expect(outcome.watch!.suspect.size).toBe(0);
    expect(nightlyDecision(outcome, 'regression')).toMatchObject({ outcome: 'failed', exitCode: 1 });
  });
});

describe('missing nights and vanished cells', () => {
  it('a gap of three nights is an alert naming them; the night is pending, not green', () => {
    const nights = noisyHistory({ nights: 30, stepAt: Infinity }).filter((_, i) => i < 20 || i > 22);
    const outcome = outcomeOf(analyseHistory(nights), last(nights), 24);
    expect(outcome.watch!.alerts).toEqual([
      expect.objectContaining({
        kind: 'missing-nights',
        nights: 3,
        message: expect.stringMatching(
          /^3 expected nightly run\(s\) on .* did not happen between 2026-10-20 and 2026-10-24$/,
        ),
      }),
    ]);
    const decision = nightlyDecision(outcome, 'regression');
    expect(decision).toMatchObject({ outcome: 'pending', exitCode: 0 });
    expect(decision.headline.lead).toBe('1 alert');
    expect(nightlyReport(outcome, decision)).toContain('⚠️ Alert: 3 expected nightly run(s)');
    // Without a cadence nothing is expected, so nothing is missing.
    expect(outcomeOf(analyseHistory(nights), last(nights)).watch!.alerts).toEqual([]);
  });

  it('no run since: checked against now', () => {
    const nights = noisyHistory({ nights: 30, stepAt: Infinity });
    const later = new Date(last(nights).getTime() + 4 * 86_400_000);
    const [alert] = outcomeOf(analyseHistory(nights), later, 24).watch!.alerts;
    expect(alert).toMatchObject({ kind: 'missing-nights', nights: 3 });
    expect(alert!.message).toMatch(/^no nightly run on .* since 2026-10-30: 3 expected run\(s\) missing$/);
  });

  it('a client count the latest nights no longer measure vanished from its series', () => {
    const both = noisyHistory({ nights: 28, stepAt: Infinity, clients: [1, 2] });
    const oneOnly = noisyHistory({ nights: 30, stepAt: Infinity, clients: [1] }).slice(28);
    const nights = [...both, ...oneOnly];
    const alerts = outcomeOf(analyseHistory(nights), last(nights), 24).watch!.alerts;
    expect(alerts.map((a) => a.kind)).toEqual(['vanished-cell']);
    expect(alerts[0]!.message).toMatch(
      /select-only@2\/tps was not measured by the last 2 run\(s\) of its machine/,
    );
  });
});
