/**
 * Regression events grouped across workloads and machines (core/history/regression-groups.ts) and what
 * the nightly does with them (planIssueActions): one issue naming every cell whose commit ranges overlap,
 * adopted (not duplicated) by the issue an earlier night opened, and the largest cell bisected without a
 * label within the weekly budget counted from the issues' state markers. Histories: the captured noisy runs
 * (noisy-history.ts) as two workloads or two machines (two-workloads.ts), with planted steps.
 */
import { describe, expect, it } from 'vitest';
import { analyseHistory } from '../../../src/core/history/history-analysis.js';
import { judgeHistory } from '../../../src/core/history/nightly-judgement.js';
import { groupRegressions } from '../../../src/core/history/regression-groups.js';
import { parseBisectMarker } from '../../../src/core/history/bisect-marker.js';
import type { HistoryRun } from '../../../src/core/history/series.js';
import type { IssueSummary } from '../../../src/github/api.js';
import {
  parseEventState,
  planIssueActions,
  seriesMarker,
  type IssueAction,
} from '../../../src/flows/nightly/regression-issues.js';
import { commitSha } from './noisy-history.js';
import { OTHER, WORKLOAD, twoMachines, twoWorkloads } from './two-workloads.js';

const FP = 'kvm2-haltpoll-fx';
const series = (workload: string, clients: number, fp = FP) => `${fp}/${workload}@${clients}/tps`;
/** Tonight: night 40's run, 02:00 UTC on 2026-11-10. */
const NOW = new Date(Date.UTC(2026, 10, 10, 3, 0, 0));

const plan = (runs: HistoryRun[], existing: IssueSummary[] = [], autoBisectPerWeek = 2, now = NOW) =>
  planIssueActions(analyseHistory(runs), existing, 'pgperf-bot', {}, { now, autoBisectPerWeek });

/** An issue as GitHub lists it back from a plan's open action. */
const listed = (action: IssueAction | undefined, number: number, state: IssueSummary['state'] = 'open') => {
  if (action?.kind !== 'open') throw new Error(`expected an open action, got ${action?.kind}`);
  return { number, title: action.title, body: action.body, state, userLogin: 'pgperf-bot' };
};

describe('groupRegressions', () => {
  it('joins the cells of two workloads regressing the same night into one group, the largest first; keeps a later step apart', () => {
    const same = groupRegressions(judgeHistory(analyseHistory(twoWorkloads(40, 26, 26))));
    expect(same).toHaveLength(1);
    expect(same[0]!.regressed.map((c) => c.series.key.workload)).toEqual([OTHER, OTHER, WORKLOAD, WORKLOAD]);
    const apart = groupRegressions(judgeHistory(analyseHistory(twoWorkloads(40, 12, 30))));
    expect(apart.map((g) => [...new Set(g.regressed.map((c) => c.series.key.workload))])).toEqual([
      [OTHER],
      [WORKLOAD],
    ]);
  });
});

describe('planIssueActions: one issue per regression event across workloads and machines', () => {
  it('two workloads regressing on the same night open one issue naming both; its bisection starts without a label', () => {
    const actions = plan(twoWorkloads(40, 26, 26));
    expect(actions).toHaveLength(1);
    const open = actions[0]!;
    if (open.kind !== 'open') throw new Error(open.kind);
    expect(open.title).toMatch(
      /^Performance regression: tpcb-like \+ select-only, 4 cells \(worst tpcb-like TPS at /,
    );
    for (const s of [series(WORKLOAD, 1), series(WORKLOAD, 2), series(OTHER, 1), series(OTHER, 2)]) {
      expect(open.body).toContain(seriesMarker(s));
    }
    expect(open.body).toMatch(
      /\*\*tpcb-like\*\* and \*\*select-only\*\* on the machine kvm2-haltpoll-fx regressed over the same commits in 4 cells \(largest: \*\*tpcb-like\*\* TPS at/,
    );
    expect(open.body).toMatch(/\| \*\*select-only\*\* TPS at 1 client \| -\d+\.\d%/);
    // The largest cell is bisected: the marker mode bisect reads, the request, and its record in the state.
    const marker = parseBisectMarker(open.body, 'the issue');
    expect(marker).toMatchObject({ workload: OTHER, fingerprint: FP, metric: 'tps' });
    expect(open.bisect).toEqual(marker);
    expect(parseEventState(open.body)?.bisected).toEqual({
      at: NOW.toISOString(),
      series: marker.series,
      good: marker.good,
      bad: marker.bad,
    });
    expect(open.body).toContain('🔎 pgperf started the bisection of the largest cell, **tpcb-like** TPS at');
  });

  it('one workload regressing on two machines over the same commits: one issue listing both machines', () => {
    const [open, ...rest] = plan(twoMachines(40, 26, 26));
    expect(rest).toEqual([]);
    expect(open?.kind).toBe('open');
    const body = (open as { body: string }).body;
    expect(body).toContain(seriesMarker(series(WORKLOAD, 1, 'fp-b')));
    expect(body).toContain(seriesMarker(series(WORKLOAD, 1)));
    expect(body).toMatch(/\*\*select-only\*\* \(2 machines\) regressed over the same commits in 4 cells/);
    expect(body).toMatch(/\| \*\*select-only\*\* TPS at 2 clients on fp-b \|/);
  });

  it('regressions over different commits are two issues, each with its own bisection while the budget lasts', () => {
    const actions = plan(twoWorkloads(40, 12, 30));
    expect(actions.map((a) => [a.kind, 'bisect' in a ? a.bisect?.workload : undefined])).toEqual([
      ['open', OTHER],
      ['open', WORKLOAD],
    ]);
    const one = plan(twoWorkloads(40, 12, 30), [], 1);
    expect(one.map((a) => ('bisect' in a ? a.bisect?.workload : undefined))).toEqual([OTHER, undefined]);
    // The one held back says so, and how to bisect it now.
    const held = one[1] as Extract<IssueAction, { kind: 'open' }>;
    expect(held.held).toBe(
      'the budget of 1 automatic bisection a week is spent (1 started since 2026-11-10)',
    );
    expect(held.body).toContain('⏸️ The automatic bisection of TPS at');
    expect(held.body).toContain('or now with the label `pgperf-bisect`');
    expect(parseEventState(held.body)?.bisected).toBeUndefined();
  });

  it('counts the week from the bisections the issues record: an older one frees the budget, a recent one spends it, none is started twice', () => {
    const earlier = listed(plan(twoWorkloads(30, 12, 26))[0], 400);
    expect(parseEventState(earlier.body)?.bisected?.at).toBe(NOW.toISOString());
    const tonight = twoWorkloads(40, 12, 30);
    // Six days later the budget of one is still spent by issue 400 (tpcb-like, still regressed: updated).
    const sixDays = new Date(NOW.getTime() + 6 * 86_400_000);
    const spent = plan(tonight, [earlier], 1, sixDays);
    expect(
      spent.map((a) => [a.kind, 'bisect' in a ? a.bisect?.workload : '-', 'held' in a && !!a.held]),
    ).toEqual([
      ['update', '-', false],
      ['open', '-', true],
    ]);
    // Eight days later it is free again; issue 400 is never bisected twice.
    const free = plan(tonight, [earlier], 1, new Date(NOW.getTime() + 8 * 86_400_000));
    expect(free.map((a) => [a.kind, 'bisect' in a ? a.bisect?.workload : '-'])).toEqual([
      ['update', '-'],
      ['open', WORKLOAD],
    ]);
    // 0 turns it off: no request, no record, no note.
    const off = plan(tonight, [], 0);
    expect(off.every((a) => !('bisect' in a && a.bisect) && !('held' in a && a.held))).toBe(true);
    expect(off.map((a) => ('body' in a ? a.body : '')).join('')).not.toMatch(/🔎|⏸️|"bisected"/);
  });

  it("adopts the open issue of an earlier night when another workload's cells join its range: updated, not duplicated", () => {
    // Night 30: only select-only had regressed (at 26); its per-workload issue is open.
    const first = listed(plan(twoWorkloads(31, 26, Infinity), [], 0)[0], 500);
    expect(parseEventState(first.body)).toMatchObject({ event: `${FP}/${WORKLOAD}` });
    // An issue of the one-issue-per-workload format, before grouping: the same, without its header text.
    const actions = plan(twoWorkloads(40, 26, 26), [first], 0);
    expect(actions).toEqual([expect.objectContaining({ kind: 'update', issue: 500, reopen: false })]);
    const body = (actions[0] as { body: string }).body;
    expect(body).toContain(seriesMarker(series(OTHER, 2)));
    expect(body).toContain(seriesMarker(series(WORKLOAD, 2)));
  });

  it('merges two open issues whose cells now share a range into the older one', () => {
    const a = listed(plan(twoWorkloads(31, 26, Infinity), [], 0)[0], 500);
    const b = listed(plan(twoWorkloads(40, Infinity, 26), [], 0)[0], 501);
    const actions = plan(twoWorkloads(40, 26, 26), [a, b], 0);
    expect(actions.map((x) => [x.kind, 'issue' in x ? x.issue : undefined])).toEqual([
      ['update', 500],
      ['merge', 501],
    ]);
    const merge = actions[1] as Extract<IssueAction, { kind: 'merge' }>;
    expect(merge.into).toBe(500);
    expect(parseEventState(merge.body)?.cells).toEqual([]);
    // The next night: 501 is closed and tracks nothing; 500 alone is kept.
    const update = actions[0] as Extract<IssueAction, { kind: 'update' }>;
    const after = plan(
      twoWorkloads(40, 26, 26),
      [
        { ...a, title: update.title, body: update.body },
        { ...b, body: merge.body, state: 'closed' },
      ],
      0,
    );
    expect(after).toEqual([]);
  });

  it("the bisection searches the largest cell's change point: last good night 25, first bad night 26", () => {
    const actions = plan(twoWorkloads(40, 26, 26));
    const target = parseBisectMarker((actions[0] as { body: string }).body, 'x');
    expect(target.good).toBe(commitSha(25));
    expect(target.bad).toBe(commitSha(26));
  });
});
