/**
 * The nightly alert issue of a machine through octokit against the fake GitHub API on loopback: opened for
 * a missing night, updated while it lasts, closed with a note when a night has nothing to report, reopened
 * when it comes back; another login's issue is never touched.
 */
import { describe, expect, it } from 'vitest';
import { ALERT_LABEL, syncAlertIssues, trySyncAlertIssues } from '../../../src/flows/nightly/alert-issues.js';
import { alertMachine } from '../../../src/core/report/nightly/alert-event.js';
import type { NightAlert } from '../../../src/core/history/night-watch.js';
import { useFakeGitHubApi } from '../../helpers/fake-github.js';

const { gh, api } = useFakeGitHubApi();

const missing: NightAlert = {
  kind: 'missing-nights',
  fingerprint: 'kvm2',
  from: '2026-10-19T02:00:00.000Z',
  to: '2026-10-23T02:00:00.000Z',
  nights: 3,
  message: '3 expected nightly run(s) on kvm2 did not happen between 2026-10-19 and 2026-10-23',
};

describe('alert issues', () => {
  it('opens one per machine with alerts, updates it, closes it when clear, reopens it when back', async () => {
    const links = { runUrl: 'https://github.com/pg/postgres/actions/runs/1' };
    const opened = await syncAlertIssues(api(), [missing], ['kvm2', 'metal'], links);
    expect(opened).toMatchObject({ opened: [expect.any(Number)], updated: [], closed: [] });
    const issue = gh().issues.get(opened.opened[0]!)!;
    expect(issue.labels.map((l) => l.name)).toEqual([ALERT_LABEL]);
    expect(issue.title).toBe('pgperf: nightly history alerts on kvm2');
    expect(alertMachine(issue.body)).toBe('kvm2');
    expect(issue.body).toContain(
      '- 3 expected nightly run(s) on kvm2 did not happen between 2026-10-19 and 2026-10-23',
    );

    // The same alerts again: nothing to do.
    expect(await syncAlertIssues(api(), [missing], ['kvm2'], links)).toMatchObject({
      opened: [],
      updated: [],
    });
    // Cleared: a note, then closed.
    const cleared = await syncAlertIssues(api(), [], ['kvm2'], links);
    expect(cleared.closed).toEqual([issue.number]);
    expect(gh().issues.get(issue.number)!.state).toBe('closed');
    expect(gh().comments.get(issue.number)!.at(-1)!.body).toMatch(/has nothing to report any more/);
    // Back again: the same issue reopened, not a second one.
    const back = await syncAlertIssues(
      api(),
      [
        {
          ...missing,
          nights: 1,
          message: 'no nightly run on kvm2 since 2026-11-20: 1 expected run(s) missing',
        },
      ],
      ['kvm2'],
      links,
    );
    expect(back).toMatchObject({ opened: [], updated: [issue.number] });
    expect(gh().issues.get(issue.number)!.state).toBe('open');
  });

  it("leaves another login's issue alone, and an API refusal is said, not thrown", async () => {
    gh().login = 'someone-else';
    const result = await syncAlertIssues(api(), [], ['kvm2']);
    expect(result.ignored.length).toBeGreaterThan(0);
    expect(result.closed).toEqual([]);
    gh().login = 'pgperf-bot';
    gh().refuse.push({ method: 'GET', pathPattern: /\/issues$/, status: 403 });
    const refused = await trySyncAlertIssues(api(), [missing], ['kvm2']);
    expect(refused).toEqual({
      error: expect.stringMatching(/^the alert issues were not updated: .*issues: write/),
    });
    gh().refuse.length = 0;
  });
});
