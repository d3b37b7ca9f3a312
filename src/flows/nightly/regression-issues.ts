/**
 * Nightly notifications: one GitHub issue per regression event of a workload. An event is a workload on
 * one machine (fingerprint) with one or more regressed cells (client counts × metrics whose latest change
 * point is a regression); its issue lists every cell with its change-point delta. While the regression
 * persists the same issue is updated (cells that regress later are added, the others updated), never
 * duplicated; when no cell of the workload is regressed any more the issue is closed with a comment that
 * links the recovery (the commit and the stored run where each cell came back). Only issues the token's own
 * login opened are touched. Improvements are not issues: they are listed in the job summary.
 *
 * Each body carries hidden markers: the event's state (`<!-- pgperf:regression {json} -->`: the workload and
 * the cells it tracks, each with the first bad run and commit of its change point, and whether pgperf closed
 * it as recovered), a series marker per cell (`<!-- pgperf:series=<id> -->`), and the pgperf:bisect marker
 * of the worst cell (bisect-marker.ts), read back by the Action's `mode: bisect` when the issue is labeled
 * `pgperf-bisect`. A closed issue whose tracked change point is the latest regression again is the same
 * event: reopened when pgperf had closed it as recovered, left closed (its body kept current) when someone
 * closed it by hand. Issues of the earlier one-issue-per-series format are closed in favour of the event's.
 *
 * The decision is a pure function of the analysis and the existing issues (planIssueActions); the
 * executor (syncRegressionIssues) only carries it out. The markers and the text are
 * core/report/nightly/regression-event.ts.
 */
import type { HistoryAnalysis } from '../../core/history/history-analysis.js';
import { judgeHistory, type WorkloadStanding } from '../../core/history/nightly-judgement.js';
import {
  eventCells,
  issueBody,
  issueTitle,
  parseEventState,
  recoveryNote,
  seriesMarker,
  supersededNote,
  type EventState,
  type IssueLinks,
  type IssueSync,
  type SyncOutcome,
} from '../../core/report/nightly/regression-event.js';
import { GitHubApiError, apiFailureHint, type GitHubApi, type IssueSummary } from '../../github/api.js';

export {
  BISECT_LABEL,
  describeSync,
  parseEventState,
  seriesMarker,
  type IssueLinks,
  type IssueSync,
  type SyncOutcome,
} from '../../core/report/nightly/regression-event.js';

/** The label every regression issue carries (also how they are listed back). */
export const REGRESSION_LABEL = 'pgperf-regression';

export type IssueAction =
  | { kind: 'open'; event: string; title: string; body: string }
  | { kind: 'update'; event: string; issue: number; title: string; body: string; reopen: boolean }
  /** Every cell recovered: the comment, then the issue closed (its body marked recovered, when given). */
  | { kind: 'close'; event: string; issue: number; body?: string; note: string }
  /** An issue of the one-issue-per-series format, closed pointing at the event's issue (`by`: known yet). */
  | { kind: 'supersede'; event: string; issue: number; by?: number };

/**
 * What to do, workload by workload: open an issue for a new regression event, update the event's issue
 * while it persists (reopen it when pgperf had closed it as recovered and the same change point is back),
 * close it with the recovery note when no cell is regressed any more. Unchanged issues are left alone.
 */
export function planIssueActions(
  analysis: HistoryAnalysis,
  existing: readonly IssueSummary[],
  login: string,
  links: IssueLinks = {},
): IssueAction[] {
  // The oldest issue first, should a race ever have opened two.
  const mine = existing.filter((i) => i.userLogin === login).sort((a, b) => a.number - b.number);
  const states = new Map(mine.map((i) => [i.number, parseEventState(i.body)]));
  const actions: IssueAction[] = [];
  for (const w of judgeHistory(analysis).workloads) {
    const ofEvent = mine.filter((i) => states.get(i.number)?.event === w.id);
    const legacy = mine.filter(
      (i) =>
        i.state === 'open' &&
        !states.get(i.number) &&
        w.series.some((s) => i.body.includes(seriesMarker(s.series.id))),
    );
    if (w.regressed.length > 0) {
      const target =
        ofEvent.find((i) => i.state === 'open') ??
        [...ofEvent].reverse().find((i) => sameEvent(states.get(i.number)!, w));
      const state = target ? states.get(target.number) : undefined;
      const cells = eventCells(w, state?.cells ?? []);
      const title = issueTitle(w);
      const body = issueBody(w, cells, 'open', links);
      if (!target) {
        actions.push({ kind: 'open', event: w.id, title, body });
      } else {
        // Closed by hand while the regression persists: someone's decision; the body is kept current.
        const reopen = target.state === 'closed' && state!.state === 'recovered';
        if (reopen || target.body !== body || target.title !== title) {
          actions.push({ kind: 'update', event: w.id, issue: target.number, title, body, reopen });
        }
      }
      for (const old of legacy) {
        actions.push({
          kind: 'supersede',
          event: w.id,
          issue: old.number,
          ...(target ? { by: target.number } : {}),
        });
      }
      continue;
    }
    for (const issue of ofEvent.filter((i) => i.state === 'open')) {
      const cells = eventCells(w, states.get(issue.number)!.cells);
      actions.push({
        kind: 'close',
        event: w.id,
        issue: issue.number,
        body: issueBody(w, cells, 'recovered', links),
        note: recoveryNote(w, cells, links),
      });
    }
    for (const old of legacy) {
      const s = w.series.find((x) => old.body.includes(seriesMarker(x.series.id)))!;
      const { clients, metric } = s.series.key;
      const cells = eventCells(w, [{ series: s.series.id, clients, metric, run: '', sha: null }]);
      actions.push({ kind: 'close', event: w.id, issue: old.number, note: recoveryNote(w, cells, links) });
    }
  }
  return actions;
}

/** A closed issue tracks this event when one of its cells regressed at the change point the cell has now. */
function sameEvent(state: EventState, w: WorkloadStanding): boolean {
  return w.regressed.some((c) =>
    state.cells.some(
      (t) =>
        t.series === c.series.id &&
        (t.run === c.changePoint.firstAfter.runId ||
          (t.sha !== null && t.sha === c.changePoint.firstAfter.sha)),
    ),
  );
}

/** Carries out planIssueActions against the API. */
export async function syncRegressionIssues(
  api: GitHubApi,
  analysis: HistoryAnalysis,
  links: IssueLinks = {},
): Promise<SyncOutcome> {
  const [login, existing] = await Promise.all([api.viewerLogin(), api.listIssues(REGRESSION_LABEL)]);
  const outcome: SyncOutcome = {
    opened: [],
    updated: [],
    closed: [],
    // Only issues this login opened carry trusted state; the others are left alone, and said so.
    ignored: existing.filter((i) => i.userLogin !== login).map((i) => i.number),
  };
  const openedFor = new Map<string, number>();
  for (const action of planIssueActions(analysis, existing, login, links)) {
    if (action.kind === 'open') {
      const issue = await api.createIssue({
        title: action.title,
        body: action.body,
        labels: [REGRESSION_LABEL],
      });
      openedFor.set(action.event, issue.number);
      outcome.opened.push(issue.number);
    } else if (action.kind === 'update') {
      await api.updateIssue(action.issue, {
        title: action.title,
        body: action.body,
        ...(action.reopen ? { state: 'open' as const } : {}),
      });
      outcome.updated.push(action.issue);
    } else {
      const note =
        action.kind === 'close' ? action.note : supersededNote(action.by ?? openedFor.get(action.event));
      await api.createComment(action.issue, note);
      await api.updateIssue(action.issue, {
        ...(action.kind === 'close' && action.body !== undefined ? { body: action.body } : {}),
        state: 'closed',
      });
      outcome.closed.push(action.issue);
    }
  }
  return outcome;
}

/**
 * syncRegressionIssues, with a failure of the API (a token without issues: write, a rate limit) returned
 * as what could not be done and why, naming the permission, instead of thrown: the night is saved and
 * reported all the same. Anything else still throws.
 */
export async function trySyncRegressionIssues(
  api: GitHubApi,
  analysis: HistoryAnalysis,
  links: IssueLinks = {},
): Promise<IssueSync> {
  return tryIssueSync('the regression issues were', () => syncRegressionIssues(api, analysis, links));
}

/**
 * An issue sync with a failure of the API returned as what could not be done and why, naming the
 * permission (issues: write), instead of thrown; anything else still throws. `what` names the issues and its verb ("the alert issues were").
 */
export async function tryIssueSync(what: string, sync: () => Promise<SyncOutcome>): Promise<IssueSync> {
  try {
    return { done: await sync() };
  } catch (e) {
    if (!(e instanceof GitHubApiError)) throw e;
    const hint = apiFailureHint(e, 'issues: write');
    return { error: `${what} not updated: ${e.message}.${hint ? ` ${hint}` : ''}` };
  }
}
