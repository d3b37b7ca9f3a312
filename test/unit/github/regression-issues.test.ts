/**
 * Nightly regression issues against a recording fake of the REST API on 127.0.0.1, through the real
 * octokit client: one issue per regressed series, no duplicates on re-runs, others' issues left alone,
 * closed with a note when the series recovers. Histories are built from real captured pgbench runs
 * (test/unit/history/noisy-history.ts) with planted steps.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { octokitApi } from '../../../src/github/octokit-api.js';
import {
  REGRESSION_LABEL,
  seriesMarker,
  syncRegressionIssues,
} from '../../../src/github/regression-issues.js';
import { analyseHistory } from '../../../src/history/analyse.js';
import { startFakeGitHub, type FakeGitHub } from '../../helpers/fake-github.js';
import { noisyHistory } from '../history/noisy-history.js';

let gh: FakeGitHub;
beforeEach(async () => {
  gh = await startFakeGitHub();
});
afterEach(async () => {
  await gh.close();
});

const api = () =>
  octokitApi({ token: 't', baseUrl: gh.url, owner: 'pg', repo: 'postgres', retry: { retries: 0 } });
const links = { repoUrl: 'https://github.com/postgres/postgres' };
const writes = () => gh.requests.filter((r) => r.method !== 'GET');

/** Regressed at night 26 (-20%); with `recoverAt`, back to the old level from that night on. */
function history(nights: number, recoverAt?: number) {
  const runs = noisyHistory({ nights, stepAt: 26, factor: 0.8 });
  if (recoverAt === undefined) return runs;
  return runs.map((run, night) =>
    night < recoverAt
      ? run
      : {
          ...run,
          samples: run.samples.map((s) => ({ ...s, metrics: { tps: s.metrics.tps! / 0.8 } })),
        },
  );
}

describe('syncRegressionIssues', () => {
  it('opens one issue per regressed series, and a re-run neither duplicates nor rewrites them', async () => {
    const analysis = analyseHistory(history(40));
    const regressed = analysis.series.filter((s) => s.changePoints.at(-1)?.kind === 'regression');
    expect(regressed.length).toBeGreaterThan(0);
    const first = await syncRegressionIssues(api(), analysis, links);
    expect(first.opened).toHaveLength(regressed.length);
    const issues = [...gh.issues.values()];
    for (const s of regressed) {
      const issue = issues.find((i) => i.body.includes(seriesMarker(s.series.id)))!;
      expect(issue.labels).toEqual([{ name: REGRESSION_LABEL }]);
      expect(issue.title).toMatch(
        new RegExp(`^Performance regression: select-only at ${s.series.key.clients} client`),
      );
      expect(issue.body).toContain(`${links.repoUrl}/commit/${s.changePoints.at(-1)!.firstAfter.sha}`);
    }
    const before = writes().length;
    const again = await syncRegressionIssues(api(), analysis, links);
    expect(again).toEqual({ opened: [], updated: [], closed: [] });
    expect(writes()).toHaveLength(before);
    expect(gh.issues.size).toBe(regressed.length);
  });

  it("leaves a look-alike issue by someone else alone and opens pgperf's own", async () => {
    const analysis = analyseHistory(history(40));
    const s = analysis.series.find((x) => x.changePoints.at(-1)?.kind === 'regression')!;
    gh.issues.set(1, {
      number: 1,
      title: 'copied',
      body: `${seriesMarker(s.series.id)} quoted by a human`,
      state: 'open',
      labels: [{ name: REGRESSION_LABEL }],
      user: { login: 'someone-else' },
    });
    const out = await syncRegressionIssues(api(), analysis, links);
    expect(out.updated).not.toContain(1);
    expect(gh.issues.get(1)!.body).toBe(`${seriesMarker(s.series.id)} quoted by a human`);
    expect(out.opened.length).toBeGreaterThan(0);
  });

  it('closes the issue with a note when the series recovers, and reopens it on a new regression', async () => {
    await syncRegressionIssues(api(), analyseHistory(history(40)), links);
    const recovered = analyseHistory(history(60, 45));
    const back = recovered.series.filter((s) => s.changePoints.at(-1)?.kind === 'improvement');
    expect(back.length).toBeGreaterThan(0);
    const out = await syncRegressionIssues(api(), recovered, links);
    expect(out.closed.length).toBeGreaterThan(0);
    for (const number of out.closed) {
      expect(gh.issues.get(number)!.state).toBe('closed');
      expect(gh.comments.get(number)?.at(-1)?.body).toMatch(/^Recovered: /);
    }
    // The regression returns: the same issue is reopened, not a new one.
    const count = gh.issues.size;
    const out2 = await syncRegressionIssues(api(), analyseHistory(history(40)), links);
    expect(gh.issues.size).toBe(count);
    expect(out2.updated).toEqual(expect.arrayContaining(out.closed));
    for (const number of out.closed) expect(gh.issues.get(number)!.state).toBe('open');
  });
});
