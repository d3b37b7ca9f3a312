/**
 * The triage digest on GitHub (core/report/nightly/triage-digest.ts renders it): one issue (label pgperf-digest)
 * kept current by every nightly run, listing the open regression issues not yet labelled triaged, and a
 * comment on each one left untriaged too long. Only issues this login opened are read or written.
 */
import type { GitHubApi } from '../../github/api.js';
import { REGRESSION_LABEL, tryIssueSync } from './regression-issues.js';
import {
  DIGEST_TITLE,
  digestBody,
  digestOf,
  isDigestBody,
  parseDigestRaised,
  raiseNote,
} from '../../core/report/nightly/triage-digest.js';
import type { IssueLinks, IssueSync, SyncOutcome } from '../../core/report/nightly/regression-event.js';

export const DIGEST_LABEL = 'pgperf-digest';

export async function syncTriageDigest(
  api: GitHubApi,
  now: Date,
  options: { raiseAfterDays?: number; links?: IssueLinks } = {},
): Promise<SyncOutcome> {
  const [login, regressions, digests] = await Promise.all([
    api.viewerLogin(),
    api.listIssues(REGRESSION_LABEL),
    api.listIssues(DIGEST_LABEL),
  ]);
  const mine = digests
    .filter((i) => i.userLogin === login && isDigestBody(i.body))
    .sort((a, b) => a.number - b.number);
  const current = mine.find((i) => i.state === 'open') ?? mine.at(-1);
  const digest = digestOf(
    regressions
      .filter((i) => i.userLogin === login && i.state === 'open')
      .map((i) => ({
        number: i.number,
        title: i.title,
        body: i.body,
        labels: i.labels ?? [],
        ...(i.createdAt ? { createdAt: i.createdAt } : {}),
      })),
    now,
    {
      ...(options.raiseAfterDays !== undefined ? { raiseAfterDays: options.raiseAfterDays } : {}),
      raised: current ? parseDigestRaised(current.body) : {},
    },
  );
  const outcome: SyncOutcome = {
    opened: [],
    updated: [],
    closed: [],
    ignored: digests.filter((i) => i.userLogin !== login).map((i) => i.number),
  };
  for (const entry of digest.raise) await api.createComment(entry.issue, raiseNote(entry));
  const body = digestBody(digest, now, options.links ?? {});
  if (!current) {
    const issue = await api.createIssue({ title: DIGEST_TITLE, body, labels: [DIGEST_LABEL] });
    outcome.opened.push(issue.number);
  } else if (current.body !== body || current.state === 'closed') {
    await api.updateIssue(current.number, { title: DIGEST_TITLE, body, state: 'open' });
    outcome.updated.push(current.number);
  }
  return outcome;
}

/** syncTriageDigest with an API failure returned as what could not be done and why (never thrown). */
export async function trySyncTriageDigest(
  api: GitHubApi,
  now: Date,
  options: { raiseAfterDays?: number; links?: IssueLinks } = {},
): Promise<IssueSync> {
  return tryIssueSync('the triage digest was', () => syncTriageDigest(api, now, options));
}
