/**
 * The pgperf:bisect marker of a regression issue: written by the real issue renderer (through the fake
 * API and octokit, as nightly does), read back by mode bisect; bodies that are not pgperf's, or were
 * edited into nonsense, are refused with a message naming the issue and the field.
 */
import { describe, expect, it } from 'vitest';
import {
  bisectMarker,
  jsonMarker,
  markerText,
  parseBisectMarker,
} from '../../../src/core/history/bisect-marker.js';
import {
  BISECT_LABEL,
  seriesMarker,
  syncRegressionIssues,
} from '../../../src/flows/nightly/regression-issues.js';
import { analyseHistory } from '../../../src/core/history/history-analysis.js';
import { UserError } from '../../../src/core/util/errors.js';
import { BISECT_TARGET, useFakeGitHub } from '../../helpers/fake-github-per-test.js';
import { WORKLOAD, commitSha, noisyHistory } from './noisy-history.js';

const fake = useFakeGitHub();

const api = fake.api;

const target = BISECT_TARGET;

describe('the bisect marker', () => {
  it('is written into every regression issue beside the series marker, naming the change point commits', async () => {
    const analysis = analyseHistory(noisyHistory({ nights: 40, stepAt: 26, factor: 0.8, clients: [1] }));
    const done = await syncRegressionIssues(api(), analysis, {});
    expect(done.opened).toHaveLength(1);
    const issue = fake.gh.issues.get(done.opened[0]!)!;
    const s = analysis.series.find((x) => issue.body.includes(seriesMarker(x.series.id)))!;
    const cp = s.changePoints.at(-1)!;
    const parsed = parseBisectMarker(issue.body, 'issue #1');
    expect(parsed).toEqual({
      series: s.series.id,
      workload: WORKLOAD,
      clients: 1,
      metric: 'tps',
      fingerprint: s.series.key.fingerprint,
      good: cp.lastBefore.sha,
      bad: cp.firstAfter.sha,
    });
    // The planted step: the last good night is just before the first slow one.
    expect(parsed.bad).toBe(commitSha(26));
    expect(parsed.good).toBe(commitSha(25));
    expect(issue.body).toContain(`\`${BISECT_LABEL}\``);
  });

  it('names the worst cell of a regression event with two cells, whose series marker the issue carries', async () => {
    const analysis = analyseHistory(noisyHistory({ nights: 40, stepAt: 26, factor: 0.8, clients: [1, 2] }));
    const done = await syncRegressionIssues(api(), analysis, {});
    expect(done.opened).toHaveLength(1);
    const body = fake.gh.issues.get(done.opened[0]!)!.body;
    const parsed = parseBisectMarker(body, 'issue #1');
    const regressed = analysis.series.filter((s) => s.changePoints.at(-1)?.kind === 'regression');
    expect(regressed).toHaveLength(2);
    const size = (s: (typeof regressed)[number]) =>
      Math.abs(Math.log1p(s.changePoints.at(-1)!.relativeChange));
    const worst = regressed.reduce((a, b) => (size(b) > size(a) ? b : a));
    expect(parsed).toMatchObject({ series: worst.series.id, clients: worst.series.key.clients });
    // mode bisect trusts the marker only beside the series marker of the same series.
    expect(body).toContain(seriesMarker(parsed.series));
  });

  it('jsonMarker and markerText round-trip any value, and find the marker among others', () => {
    const value = { a: '--> <!-- x', n: [1, 2] };
    const body = `text\n${jsonMarker('other', { b: 1 })}\n${jsonMarker('thing', value)}\nmore -->`;
    expect(JSON.parse(markerText(body, 'thing')!)).toEqual(value);
    expect(markerText(body, 'missing')).toBeUndefined();
  });

  it('survives values that would end an HTML comment, and text around it', () => {
    const odd = { ...target, workload: 'a --> b <!-- c', series: 'fp/a --> b@4/tps' };
    const marker = bisectMarker(odd);
    expect(marker.indexOf('-->')).toBe(marker.length - 3);
    expect(parseBisectMarker(`hello\n${marker}\nworld -->`, 'issue #2')).toEqual(odd);
  });

  it.each([
    ['no marker at all', 'just a human issue', "issue #7 has no '<!-- pgperf:bisect ...' marker"],
    [
      'a marker that is not JSON',
      '<!-- pgperf:bisect {nope -->',
      'issue #7: the pgperf:bisect marker is not JSON',
    ],
    [
      'a missing commit',
      bisectMarker({ ...target, good: '' }),
      "issue #7: the pgperf:bisect marker's 'good' must be a commit sha, got \"\"",
    ],
    [
      'a sha that is an option',
      bisectMarker({ ...target, bad: '--upload-pack=x' }),
      "issue #7: the pgperf:bisect marker's 'bad' must be a commit sha",
    ],
    [
      'a zero client count',
      bisectMarker({ ...target, clients: 0 }),
      "issue #7: the pgperf:bisect marker's 'clients' must be a whole number >= 1, got 0",
    ],
    [
      'a client count past the bound (an edited issue body)',
      bisectMarker({ ...target, clients: 999999999 }),
      "issue #7: the pgperf:bisect marker's 'clients' must be a whole number from 1 to 10000, got 999999999",
    ],
    [
      'an unknown metric',
      bisectMarker({ ...target, metric: 'speed' as 'tps' }),
      "issue #7: the pgperf:bisect marker's 'metric' must be a metric pgperf records (e.g. tps), got \"speed\"",
    ],
    [
      'a JSON array',
      '<!-- pgperf:bisect [1] -->',
      'issue #7: the pgperf:bisect marker must be a JSON object',
    ],
  ])('refuses %s, naming the issue and the field', (_what, body, message) => {
    expect(() => parseBisectMarker(body, 'issue #7')).toThrow(UserError);
    expect(() => parseBisectMarker(body, 'issue #7')).toThrow(message);
  });
});
