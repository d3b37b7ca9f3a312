/**
 * Nightly regression issues against a recording fake of the REST API on 127.0.0.1, through the real
 * octokit client: one issue per regression event of a workload listing its cells, updated while the
 * regression persists (cells added, no duplicate), closed with a comment linking the recovery, a new issue
 * for a new event, the old per-series issues superseded. The rules that need no API (hand-closed issues
 * respected, others' issues left alone, escaping) are tested on the plan alone (planIssueActions). Histories are built from real captured pgbench runs (test/unit/history/noisy-history.ts) with
 * planted steps, at 1 and 2 clients.
 */
import { describe, expect, it } from 'vitest';
import type { IssueSummary } from '../../../src/github/api.js';
import {
  REGRESSION_LABEL,
  describeSync,
  parseEventState,
  planIssueActions,
  seriesMarker,
  syncRegressionIssues,
  type IssueAction,
} from '../../../src/flows/nightly/regression-issues.js';
import { analyseHistory } from '../../../src/core/history/history-analysis.js';
import { parseBisectMarker } from '../../../src/core/history/bisect-marker.js';
import type { HistoryRun } from '../../../src/core/history/series.js';
import { useFakeGitHub } from '../../helpers/fake-github-per-test.js';
import { WORKLOAD, commitSha, noisyHistory } from '../history/noisy-history.js';

const fake = useFakeGitHub();

const api = fake.api;
const REPO = 'https://github.com/postgres/postgres';
const links = (run = 777) => ({ repoUrl: REPO, runUrl: `${REPO}/actions/runs/${run}` });
const writes = () => fake.gh.requests.filter((r) => r.method !== 'GET');
const FP = 'kvm2-haltpoll-fx';
const cell = (clients: number) => `${FP}/${WORKLOAD}@${clients}/tps`;

/**
 * The real runs at 1 and 2 clients, each night's TPS scaled by `level(night, clients)` (1: as captured).
 */
function shaped(nights: number, level: (night: number, clients: number) => number): HistoryRun[] {
  return noisyHistory({ nights, stepAt: Infinity }).map((run, night) => ({
    ...run,
    samples: run.samples.map((s) => ({
      ...s,
      metrics: { ...s.metrics, tps: s.metrics.tps! * level(night, s.clients) },
    })),
  }));
}

/** Both client counts 20% slower from night 26; with `recoverAt`, back to the old level from then on. */
const regressed = (nights: number, recoverAt = Infinity) =>
  shaped(nights, (night) => (night >= 26 && night < recoverAt ? 0.8 : 1));

const sync = (runs: HistoryRun[], run = 777) => syncRegressionIssues(api(), analyseHistory(runs), links(run));

/** The plan alone (no API): what pgperf-bot would do with these issues. */
const plan = (runs: HistoryRun[], existing: IssueSummary[] = []) =>
  planIssueActions(analyseHistory(runs), existing, 'pgperf-bot', links());

/** The issue pgperf-bot opens for `runs`, as GitHub would list it back (number 500, in `state`). */
function openedFor(runs: HistoryRun[], state: IssueSummary['state'] = 'open'): IssueSummary {
  const [action] = plan(runs);
  if (action?.kind !== 'open') throw new Error(`expected an open action, got ${action?.kind}`);
  return { number: 500, title: action.title, body: action.body, state, userLogin: 'pgperf-bot' };
}

describe('syncRegressionIssues', () => {
  it('two client counts of one workload regressing: one issue listing both cells, with the worst for bisect', async () => {
    const done = await sync(regressed(40));
    expect(done).toEqual({ opened: [500], updated: [], closed: [], ignored: [] });
    const issue = fake.gh.issues.get(500)!;
    expect(issue.labels).toEqual([{ name: REGRESSION_LABEL }]);
    expect(issue.title).toMatch(
      /^Performance regression: select-only, 2 cells \(worst TPS at [12] clients? -\d+\.\d%, first bad [0-9a-f]{10}\)$/,
    );
    // Both cells, each with its change-point delta and CI, and the commits linked.
    for (const clients of [1, 2]) {
      expect(issue.body).toContain(seriesMarker(cell(clients)));
      expect(issue.body).toMatch(
        new RegExp(
          `\\| TPS at ${clients} clients? \\| -\\d+\\.\\d% \\[-\\d+\\.\\d+%, -\\d+\\.\\d+%\\] \\|.*\\| 🔴 regressed \\|`,
        ),
      );
    }
    expect(issue.body).toContain(`${REPO}/commit/${commitSha(26)}`);
    expect(issue.body).toContain('**select-only** on the machine kvm2-haltpoll-fx regressed in 2 cells');
    expect(parseEventState(issue.body)).toMatchObject({
      event: `${FP}/${WORKLOAD}`,
      state: 'open',
      cells: [expect.objectContaining({ metric: 'tps' }), expect.objectContaining({ metric: 'tps' })],
    });
    // mode bisect reads one cell: the worst, whose series marker is in the body too.
    const target = parseBisectMarker(issue.body, 'issue #500');
    expect([cell(1), cell(2)]).toContain(target.series);
    expect(issue.title).toContain(`worst TPS at ${target.clients} client`);
    expect(target).toMatchObject({ workload: WORKLOAD, metric: 'tps', fingerprint: FP });

    // The same history again: nothing to write.
    const before = writes().length;
    expect(await sync(regressed(40))).toEqual({ opened: [], updated: [], closed: [], ignored: [] });
    expect(writes()).toHaveLength(before);
  });

  it('the next nightly with the regression persisting updates the same issue; a cell that regresses later is added', async () => {
    // Night 31: only 1 client has regressed so far.
    await sync(shaped(32, (night, clients) => (night >= 26 && clients === 1 ? 0.8 : 1)));
    const [first] = [...fake.gh.issues.values()];
    expect(first!.title).toMatch(/select-only, 1 cell \(worst TPS at 1 client/);
    expect(first!.body).not.toContain(seriesMarker(cell(2)));

    // Nights later, 2 clients regressed too: the same issue lists both, no new issue.
    const done = await sync(regressed(41), 778);
    expect(done).toEqual({ opened: [], updated: [first!.number], closed: [], ignored: [] });
    expect(fake.gh.issues.size).toBe(1);
    const issue = fake.gh.issues.get(first!.number)!;
    expect(issue.title).toMatch(/select-only, 2 cells/);
    expect(issue.body).toContain(seriesMarker(cell(1)));
    expect(issue.body).toContain(seriesMarker(cell(2)));
    expect(issue.body).toContain(
      'Updated by [this run](https://github.com/postgres/postgres/actions/runs/778)',
    );
    expect(fake.gh.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/issues'))).toHaveLength(1);
  });

  it('a cell that recovered while another persists stays listed as recovered, and the issue open', () => {
    const issue = openedFor(regressed(40));
    const actions = plan(
      shaped(60, (night, clients) => (night >= 26 && (night < 45 || clients === 2) ? 0.8 : 1)),
      [issue],
    );
    expect(actions).toEqual([expect.objectContaining({ kind: 'update', issue: 500, reopen: false })]);
    const update = actions[0] as Extract<IssueAction, { kind: 'update' }>;
    expect(update.title).toMatch(/select-only, 1 cell \(worst TPS at 2 clients/);
    expect(update.body).toMatch(/\| TPS at 2 clients \|.*\| 🔴 regressed \|/);
    expect(update.body).toMatch(
      new RegExp(
        `\\| TPS at 1 client \\|.*\\| 🟢 recovered \\+\\d+\\.\\d% at \\[\`${commitSha(45).slice(0, 10)}\`\\]`,
      ),
    );
    expect(update.body).toContain(seriesMarker(cell(1)));
  });

  it('every cell recovered: closed with a comment linking the recovery; the same change point back reopens it; a new regression is a new issue', async () => {
    await sync(regressed(40));
    const recovered = await sync(regressed(60, 45), 790);
    expect(recovered).toEqual({ opened: [], updated: [], closed: [500], ignored: [] });
    const issue = fake.gh.issues.get(500)!;
    expect(issue.state).toBe('closed');
    expect(parseEventState(issue.body)?.state).toBe('recovered');
    const note = fake.gh.comments.get(500)!.at(-1)!.body;
    expect(note).toMatch(
      /^\*\*Recovered\*\*: no cell of \*\*select-only\*\* on kvm2-haltpoll-fx is regressed any more/,
    );
    // The commit and the stored run where each cell came back, and the run that found it.
    for (const clients of [1, 2]) {
      expect(note).toContain(`- TPS at ${clients} client${clients === 1 ? '' : 's'}: +`);
    }
    expect(note).toContain(`(${REPO}/commit/${commitSha(45)})`);
    expect(note).toContain('stored run night-045');
    expect(note).toContain(`Found by [this run](${REPO}/actions/runs/790)`);

    // The recovery is not there any more (the same change point is the latest again): the same issue, reopened.
    const back = await sync(regressed(40));
    expect(back).toEqual({ opened: [], updated: [500], closed: [], ignored: [] });
    expect(fake.gh.issues.get(500)!.state).toBe('open');
    await sync(regressed(60, 45));

    // Regressed again at night 65: a new event, a new issue; the recovered one stays closed.
    const again = await sync(shaped(80, (n) => ((n >= 26 && n < 45) || n >= 65 ? 0.8 : 1)));
    expect(again.opened).toHaveLength(1);
    expect(fake.gh.issues.get(500)!.state).toBe('closed');
    const fresh = fake.gh.issues.get(again.opened[0]!)!;
    expect(fresh.body).toContain(`${REPO}/commit/${commitSha(65)}`);
    expect(fake.gh.issues.size).toBe(2);
  });

  it('an issue closed by hand while the regression persists stays closed, and no duplicate is opened', () => {
    const actions = plan(regressed(41), [openedFor(regressed(40), 'closed')]);
    expect(actions).toEqual([expect.objectContaining({ kind: 'update', issue: 500, reopen: false })]);
  });

  it("leaves a look-alike issue by someone else alone and opens pgperf's own", () => {
    const copied = { ...openedFor(regressed(40)), number: 1, userLogin: 'someone-else' };
    const actions = plan(regressed(40), [copied]);
    expect(actions).toEqual([expect.objectContaining({ kind: 'open' })]);
  });

  it('says which labelled issues it ignored because this login did not open them', async () => {
    const copied = openedFor(regressed(40));
    fake.gh.issues.set(3, {
      number: 3,
      title: copied.title,
      body: copied.body,
      state: 'open',
      labels: [{ name: REGRESSION_LABEL }],
      user: { login: 'someone-else' },
    });
    const done = await sync(regressed(40));
    expect(done).toMatchObject({ opened: [expect.any(Number)], ignored: [3] });
    expect(fake.gh.issues.get(3)!.body).toBe(copied.body);
    expect(describeSync(done)).toBe(
      `1 opened, 0 updated, 0 closed, 1 ignored (labelled by hand or opened by another account: #3)`,
    );
  });

  it('closes the open issues of the earlier one-issue-per-series format in favour of the event issue', async () => {
    for (const [number, clients] of [
      [10, 1],
      [11, 2],
    ] as const) {
      fake.gh.issues.set(number, {
        number,
        title: `Performance regression: select-only at ${clients} client`,
        body: `${seriesMarker(cell(clients))}\nold format`,
        state: 'open',
        labels: [{ name: REGRESSION_LABEL }],
        user: { login: 'pgperf-bot' },
      });
    }
    const done = await sync(regressed(40));
    expect(done.opened).toHaveLength(1);
    expect(done.closed).toEqual([10, 11]);
    for (const number of [10, 11]) {
      expect(fake.gh.issues.get(number)!.state).toBe('closed');
      expect(fake.gh.comments.get(number)!.at(-1)!.body).toMatch(
        new RegExp(`^Superseded by #${done.opened[0]}: `),
      );
    }
  });

  it('escapes the workload name and the commits from the store in the title and the body', () => {
    const name = 'evil|`x`_*[y](http://e)@team<b>';
    const runs = regressed(40).map(
      (run) =>
        JSON.parse(
          JSON.stringify(run)
            .replaceAll(`"${WORKLOAD}"`, JSON.stringify(name))
            .replaceAll(commitSha(26), 'not-a-sha](http://evil)'),
        ) as HistoryRun,
    );
    const issue = openedFor(runs);
    const escaped = 'evil&#124;&#96;x&#96;&#95;&#42;&#91;y&#93;(http:&#8203;//e)&#64;&#8205;team&lt;b&gt;';
    // A title is plain text on GitHub: the name as it is, with a zero-width joiner after the @.
    expect(issue.title).toContain('evil|`x`_*[y](http://e)@\u200dteam<b>');
    expect(issue.body).toContain(`**${escaped}**`);
    const visible = issue.body.replace(/<!-- pgperf:[^\n]* -->\n/g, '');
    for (const raw of [name, '@team', '<b>', 'not-a-sha](http://evil)']) expect(visible).not.toContain(raw);
    expect(visible).toContain('not-a-sha&#93;(http:&#8203;//evil)');
    // The markers round-trip the raw values (they are data, not markup).
    expect(parseEventState(issue.body)?.event).toBe(`${FP}/${name}`);
  });
});
