/**
 * Nightly notifications: one GitHub issue per series whose latest change point is a regression, found
 * again on every run by a hidden marker with the series id (like the PR comment), so re-runs update it
 * instead of opening duplicates. When a later change point brings the series back (an improvement after
 * the regression) the issue is closed with a note; a new regression in a series whose issue was closed
 * reopens that issue. Only issues the token's own login opened are touched. Improvements are not issues:
 * they are listed in the job summary (renderHistoryMarkdown).
 *
 * Each body also carries a pgperf:bisect marker (bisect-marker.ts): the series and the change point's commits,
 * read back by the Action's `mode: bisect` when the issue is labeled `pgperf-bisect`.
 *
 * The decision is a pure function of the analysis and the existing issues (planIssueActions); the
 * executor (syncRegressionIssues) only carries it out.
 */
import type { HistoryAnalysis, SeriesAnalysis, SeriesChangePoint } from '../history/analyse.js';
import type { GitHubApi, IssueSummary } from './api.js';
import { bisectMarker } from '../history/bisect-marker.js';

/** The label every regression issue carries (also how they are listed back). */
export const REGRESSION_LABEL = 'pgperf-regression';

/** Added to a regression issue, it asks the Action's `mode: bisect` to bisect the issue's commits. */
export const BISECT_LABEL = 'pgperf-bisect';

const MARKER_PREFIX = '<!-- pgperf:series=';

/** `<!-- pgperf:series=<id> -->`, percent-encoded so an id can never end the comment early. */
export function seriesMarker(seriesId: string): string {
  return `${MARKER_PREFIX}${encodeURIComponent(seriesId)} -->`;
}

export interface IssueLinks {
  /** e.g. https://github.com/postgres/postgres: commits link to <repoUrl>/commit/<sha>. */
  repoUrl?: string;
  /** The workflow run that found it. */
  runUrl?: string;
}

export type IssueAction =
  | { kind: 'open'; seriesId: string; title: string; body: string }
  | { kind: 'update'; seriesId: string; issue: number; title: string; body: string; reopen: boolean }
  | { kind: 'close'; seriesId: string; issue: number; note: string };

/**
 * What to do: open an issue for a series that regressed and has none, update (and reopen) the one it has,
 * close an open one whose series recovered. Issues whose body is unchanged are left alone.
 */
export function planIssueActions(
  analysis: HistoryAnalysis,
  existing: readonly IssueSummary[],
  login: string,
  links: IssueLinks = {},
): IssueAction[] {
  const mine = existing.filter((i) => i.userLogin === login);
  const actions: IssueAction[] = [];
  for (const s of analysis.series) {
    if (s.status !== 'analysed') continue;
    const id = s.series.id;
    const marker = seriesMarker(id);
    // The oldest matching issue wins, should a race ever have opened two.
    const issue = mine.filter((i) => i.body.includes(marker)).sort((a, b) => a.number - b.number)[0];
    const latest = s.changePoints.at(-1);
    if (latest?.kind === 'regression') {
      const title = issueTitle(s, latest);
      const body = issueBody(s, latest, links);
      if (!issue) actions.push({ kind: 'open', seriesId: id, title, body });
      else if (issue.body !== body || issue.title !== title || issue.state === 'closed') {
        actions.push({
          kind: 'update',
          seriesId: id,
          issue: issue.number,
          title,
          body,
          reopen: issue.state === 'closed',
        });
      }
    } else if (issue && issue.state === 'open' && latest?.kind === 'improvement') {
      actions.push({
        kind: 'close',
        seriesId: id,
        issue: issue.number,
        note: recoveryNote(s, latest, links),
      });
    }
  }
  return actions;
}

export interface SyncOutcome {
  opened: number[];
  updated: number[];
  closed: number[];
}

/** "1 opened, 0 updated, 2 closed", for a log line or a summary. */
export function describeSync(outcome: SyncOutcome): string {
  return `${outcome.opened.length} opened, ${outcome.updated.length} updated, ${outcome.closed.length} closed`;
}

/** Carries out planIssueActions against the API. */
export async function syncRegressionIssues(
  api: GitHubApi,
  analysis: HistoryAnalysis,
  links: IssueLinks = {},
): Promise<SyncOutcome> {
  const [login, existing] = await Promise.all([api.viewerLogin(), api.listIssues(REGRESSION_LABEL)]);
  const outcome: SyncOutcome = { opened: [], updated: [], closed: [] };
  for (const action of planIssueActions(analysis, existing, login, links)) {
    if (action.kind === 'open') {
      const issue = await api.createIssue({
        title: action.title,
        body: action.body,
        labels: [REGRESSION_LABEL],
      });
      outcome.opened.push(issue.number);
    } else if (action.kind === 'update') {
      await api.updateIssue(action.issue, {
        title: action.title,
        body: action.body,
        ...(action.reopen ? { state: 'open' as const } : {}),
      });
      outcome.updated.push(action.issue);
    } else {
      await api.createComment(action.issue, action.note);
      await api.updateIssue(action.issue, { state: 'closed' });
      outcome.closed.push(action.issue);
    }
  }
  return outcome;
}

function issueTitle(s: SeriesAnalysis, cp: SeriesChangePoint): string {
  const k = s.series.key;
  return `Performance regression: ${k.workload} at ${k.clients} client${k.clients === 1 ? '' : 's'}, ${k.metric} ${pct(cp.relativeChange)} (first bad ${short(cp.firstAfter.sha)})`;
}

function issueBody(s: SeriesAnalysis, cp: SeriesChangePoint, links: IssueLinks): string {
  const k = s.series.key;
  const good = cp.lastBefore.sha;
  const bad = cp.firstAfter.sha;
  return [
    seriesMarker(s.series.id),
    // Without both commits there is nothing to bisect: no marker, and mode bisect says so.
    ...(good && bad ? [bisectMarker({ series: s.series.id, ...k, good, bad })] : []),
    `**${k.workload}** at **${k.clients}** client${k.clients === 1 ? '' : 's'} (${k.metric}) changed by **${pct(cp.relativeChange)}** ` +
      `[95% CI ${pct(cp.ciLower)}, ${pct(cp.ciUpper)}], p ${cp.p.toExponential(1)}.`,
    '',
    `| | commit | date | median |`,
    `| --- | --- | --- | --- |`,
    `| last good | ${commit(cp.lastBefore.sha, links)} | ${cp.lastBefore.date.slice(0, 10)} | ${round(cp.lastBefore.median)} |`,
    `| first bad | ${commit(cp.firstAfter.sha, links)} | ${cp.firstAfter.date.slice(0, 10)} | ${round(cp.firstAfter.median)} |`,
    '',
    `Mean before ${round(cp.before)}, after ${round(cp.after)}; series \`${s.series.id}\` on the machine ` +
      `fingerprint \`${k.fingerprint}\`.${links.runUrl ? ` Found by [this run](${links.runUrl}).` : ''}`,
    '',
    'This issue is updated by every nightly run and closed when the series recovers.' +
      (good && bad
        ? ` Add the label \`${BISECT_LABEL}\` to find the first bad commit between the two (pgperf mode bisect).`
        : ''),
  ].join('\n');
}

function recoveryNote(s: SeriesAnalysis, cp: SeriesChangePoint, links: IssueLinks): string {
  return (
    `Recovered: \`${s.series.id}\` changed by ${pct(cp.relativeChange)} at ${commit(cp.firstAfter.sha, links)} ` +
    `(${cp.firstAfter.date.slice(0, 10)}), after the regression this issue tracked. Closing.` +
    (links.runUrl ? ` ([run](${links.runUrl}))` : '')
  );
}

function commit(sha: string | null, links: IssueLinks): string {
  if (!sha) return '(no commit recorded)';
  return links.repoUrl ? `[\`${short(sha)}\`](${links.repoUrl}/commit/${sha})` : `\`${short(sha)}\``;
}

const short = (sha: string | null) => (sha ? sha.slice(0, 10) : 'unknown');
const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}%`;
const round = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(4));
