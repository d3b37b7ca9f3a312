/**
 * The nightly alert issues on GitHub (one per machine, core/report/nightly/alert-event.ts renders them): opened
 * when a machine has alerts (missing nights, vanished cells), kept current while it does, reopened when
 * they come back, closed with a note when a night has none. Only issues this login opened are touched.
 */
import type { GitHubApi, IssueSummary } from '../../github/api.js';
import { tryIssueSync } from './regression-issues.js';
import {
  alertBody,
  alertMachine,
  alertTitle,
  alertsClearedNote,
} from '../../core/report/nightly/alert-event.js';
import type { NightAlert } from '../../core/history/night-watch.js';
import type { IssueLinks, IssueSync, SyncOutcome } from '../../core/report/nightly/regression-event.js';

/** The label every alert issue carries (also how they are listed back). */
export const ALERT_LABEL = 'pgperf-alert';

export async function syncAlertIssues(
  api: GitHubApi,
  alerts: readonly NightAlert[],
  machines: readonly string[],
  links: IssueLinks = {},
): Promise<SyncOutcome> {
  const [login, existing] = await Promise.all([api.viewerLogin(), api.listIssues(ALERT_LABEL)]);
  const mine = existing.filter((i) => i.userLogin === login).sort((a, b) => a.number - b.number);
  const outcome: SyncOutcome = {
    opened: [],
    updated: [],
    closed: [],
    ignored: existing.filter((i) => i.userLogin !== login).map((i) => i.number),
  };
  const issueOf = (machine: string): IssueSummary | undefined => {
    const of = mine.filter((i) => alertMachine(i.body) === machine);
    return of.find((i) => i.state === 'open') ?? of.at(-1);
  };
  for (const machine of machines) {
    const own = alerts.filter((a) => a.fingerprint === machine);
    const issue = issueOf(machine);
    if (own.length > 0) {
      const title = alertTitle(machine);
      const body = alertBody(machine, own, links);
      if (!issue) {
        outcome.opened.push((await api.createIssue({ title, body, labels: [ALERT_LABEL] })).number);
      } else if (issue.state === 'closed' || issue.body !== body || issue.title !== title) {
        await api.updateIssue(issue.number, { title, body, state: 'open' });
        outcome.updated.push(issue.number);
      }
    } else if (issue?.state === 'open') {
      await api.createComment(issue.number, alertsClearedNote(machine, links));
      await api.updateIssue(issue.number, { state: 'closed' });
      outcome.closed.push(issue.number);
    }
  }
  return outcome;
}

/** syncAlertIssues, with an API failure returned as what could not be done and why (never thrown). */
export async function trySyncAlertIssues(
  api: GitHubApi,
  alerts: readonly NightAlert[],
  machines: readonly string[],
  links: IssueLinks = {},
): Promise<IssueSync> {
  return tryIssueSync('the alert issues were', () => syncAlertIssues(api, alerts, machines, links));
}
