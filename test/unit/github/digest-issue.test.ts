/**
 * The triage digest through octokit against the fake GitHub API on loopback: it lists an open, untriaged
 * nightly regression issue (one whose body is the nightly's, with its event marker), drops it to the
 * acknowledged list once labelled pgperf-triaged, and raises one left untriaged too long on its own issue,
 * once per period.
 */
import { describe, expect, it } from 'vitest';
import { DIGEST_LABEL, syncTriageDigest } from '../../../src/flows/nightly/digest-issue.js';
import { REGRESSION_LABEL } from '../../../src/flows/nightly/regression-issues.js';
import { eventStateMarker } from '../../../src/core/report/nightly/regression-event.js';
import { bisectMarker } from '../../../src/core/history/bisect-marker.js';
import {
  TRIAGED_LABEL,
  digestBody,
  digestOf,
  raiseNote,
} from '../../../src/core/report/nightly/triage-digest.js';
import { useFakeGitHubApi } from '../../helpers/fake-github.js';

const fake = useFakeGitHubApi();
const api = fake.api;

const DAY = 86_400_000;

describe('the triage digest', () => {
  it('lists an untriaged regression, raises it once when old, and drops it once acknowledged', async () => {
    const opened = Date.parse('2026-11-20T02:00:00Z');
    const regression = {
      number: 41,
      title: 'pgperf: select-only regressed on kvm2 (1 cell)',
      body: `${eventStateMarker({ event: 'kvm2/select-only', state: 'open', cells: [] })}\nselect-only regressed.`,
      state: 'open' as const,
      labels: [{ name: REGRESSION_LABEL }],
      user: { login: 'pgperf-bot' },
      created_at: new Date(opened).toISOString(),
    };
    fake.gh().issues.set(41, regression);

    // Two days later: listed, not raised yet.
    const first = await syncTriageDigest(api(), new Date(opened + 2 * DAY));
    expect(first.opened).toHaveLength(1);
    const digest = fake.gh().issues.get(first.opened[0]!)!;
    expect(digest.labels.map((l) => l.name)).toEqual([DIGEST_LABEL]);
    expect(digest.body).toContain('**1 untriaged regression**');
    expect(digest.body).toContain('- #41 pgperf: select-only regressed on kvm2 (1 cell) (open 2 days)');
    expect(fake.gh().comments.get(41) ?? []).toEqual([]);

    // Four days after it opened: raised on its own issue, once per period.
    await syncTriageDigest(api(), new Date(opened + 4 * DAY));
    expect(
      fake
        .gh()
        .comments.get(41)!
        .map((c) => c.body),
    ).toEqual([expect.stringMatching(/^This regression has been open and untriaged for 4 days\./)]);
    await syncTriageDigest(api(), new Date(opened + 5 * DAY));
    expect(fake.gh().comments.get(41)).toHaveLength(1);

    // A maintainer labels it triaged: it leaves the untriaged list, acknowledged below.
    regression.labels.push({ name: TRIAGED_LABEL });
    const after = await syncTriageDigest(api(), new Date(opened + 6 * DAY));
    expect(after.updated).toEqual([digest.number]);
    const body = fake.gh().issues.get(digest.number)!.body;
    expect(body).toContain('**0 untriaged regressions**');
    expect(body).toContain('Nothing to triage.');
    expect(body).toMatch(/Acknowledged \(still open until they recover\):\n- #41 /);
    expect(fake.gh().comments.get(41)).toHaveLength(1);
  });

  it('names the commits to look at: the change point between its last good and first bad commit', () => {
    const good = 'a'.repeat(40);
    const bad = 'b'.repeat(40);
    const issue = (number: number, withMarker: boolean) => ({
      number,
      title: `pgperf: regression ${number}`,
      body: [
        eventStateMarker({ event: `kvm2/w${number}`, state: 'open', cells: [] }),
        ...(withMarker
          ? [
              bisectMarker({
                series: `kvm2/w${number}@8/tps`,
                workload: `w${number}`,
                clients: 8,
                metric: 'tps',
                fingerprint: 'kvm2',
                good,
                bad,
              }),
            ]
          : []),
      ].join('\n'),
      labels: [],
      createdAt: '2026-11-20T02:00:00Z',
    });
    const now = new Date('2026-11-25T02:00:00Z');
    const digest = digestOf([issue(1, true), issue(2, false)], now);
    expect(digest.untriaged.map((e) => e.suspects)).toEqual([{ good, bad }, undefined]);
    const body = digestBody(digest, now, { repoUrl: 'https://github.com/postgres/postgres/' });
    expect(body).toContain(
      `- #1 pgperf: regression 1 (open 5 days): [the commits after aaaaaaaaaaaa up to bbbbbbbbbbbb](https://github.com/postgres/postgres/compare/${good}...${bad})`,
    );
    expect(body).toContain('- #2 pgperf: regression 2 (open 5 days)\n');
    // Without the repository's URL: the range as text, no link.
    expect(digestBody(digest, now)).toContain(': the commits after aaaaaaaaaaaa up to bbbbbbbbbbbb\n');
    expect(raiseNote(digest.raise[0]!)).toContain(
      'Its change point lies in the commits after aaaaaaaaaaaa up to bbbbbbbbbbbb.',
    );
  });
});
