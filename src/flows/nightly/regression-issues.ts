/**
 * Nightly notifications: one GitHub issue per regression event. An event is every regressed cell (a client
 * count × metric of a workload on a machine, whose latest change point is a regression) whose commit range
 * overlaps another's, across workloads, client counts and machines (core/history/regression-groups.ts): one
 * cause, one issue listing every cell with its change-point delta. While the regression persists the same
 * issue is updated (cells that regress later over the same commits are added, the others updated), never
 * duplicated; when no cell is regressed any more the issue is closed with a comment that links the recovery
 * (the commit and the stored run where each cell came back). Only issues the token's own login opened are
 * touched. Improvements are not issues: they are listed in the job summary.
 *
 * Each body carries hidden markers: the event's state (`<!-- pgperf:regression {json} -->`: the anchor
 * workload, the cells it tracks, each with the first bad run and commit of its change point, whether pgperf
 * closed it as recovered, and the bisection it started on its own), a series marker per cell
 * (`<!-- pgperf:series=<id> -->`), and the pgperf:bisect marker of the largest cell (bisect-marker.ts), read
 * back by the Action's `mode: bisect` when the issue is labeled `pgperf-bisect`. The cells an open issue
 * tracks stay in one group, so an issue of the earlier one-issue-per-workload format is adopted by its
 * group; two open issues whose cells now share a range are merged into the older. A closed issue whose
 * tracked change point is the latest regression again is the same event: reopened when pgperf had closed it
 * as recovered, left closed (its body kept current) when someone closed it by hand. Issues of the earlier
 * one-issue-per-series format are closed in favour of the event's.
 *
 * Without being asked, the largest cell of an event is bisected once per issue, within a weekly budget
 * (IssuePlanOptions.autoBisectPerWeek) counted from the bisections the issues' state markers record; the
 * label still starts one at any time.
 *
 * The decision is a pure function of the analysis and the existing issues (planIssueActions); the
 * executor (syncRegressionIssues) only carries it out. The markers and the text are
 * core/report/nightly/regression-event.ts.
 */
import type { HistoryAnalysis } from '../../core/history/history-analysis.js';
import { judgeHistory } from '../../core/history/nightly-judgement.js';
import { groupRegressions, type RegressionGroup } from '../../core/history/regression-groups.js';
import type { BisectTarget } from '../../core/history/bisect-marker.js';
import {
  bisectCell,
  bisectTargetOf,
  eventCells,
  issueBody,
  issueTitle,
  mergedNote,
  parseEventState,
  recoveryNote,
  seriesMarker,
  supersededNote,
  withEventState,
  type AutoBisection,
  type EventState,
  type IssueLinks,
  type IssueSync,
  type SyncOutcome,
  type TrackedCell,
} from '../../core/report/nightly/regression-event.js';
import { GitHubApiError, apiFailureHint, type GitHubApi, type IssueSummary } from '../../github/api.js';

export {
  BISECT_LABEL,
  describeSync,
  parseEventState,
  seriesMarker,
  type BisectionRequest,
  type IssueLinks,
  type IssueSync,
  type SyncOutcome,
} from '../../core/report/nightly/regression-event.js';

/** The label every regression issue carries (also how they are listed back). */
export const REGRESSION_LABEL = 'pgperf-regression';

/** Automatic bisections a week when the input or flag is not given. */
export const DEFAULT_AUTO_BISECT_PER_WEEK = 2;

/** The window the automatic bisections are counted in. */
const WEEK_MS = 7 * 24 * 3600 * 1000;

/** What the issue bisected tonight without a label, or why not (the weekly budget). */
interface AutoBisect {
  /** Start a bisection of this cell tonight (already recorded in the body's state marker). */
  bisect?: BisectTarget;
  /** The budget held tonight's bisection back: "TPS at 8 clients (the budget of 2 a week is spent ...)". */
  held?: string;
}

export type IssueAction =
  | ({ kind: 'open'; event: string; title: string; body: string } & AutoBisect)
  | ({
      kind: 'update';
      event: string;
      issue: number;
      title: string;
      body: string;
      reopen: boolean;
    } & AutoBisect)
  /** Every cell recovered: the comment, then the issue closed (its body marked recovered, when given). */
  | { kind: 'close'; event: string; issue: number; body?: string; note: string }
  /** An open issue whose cells joined an older issue's event: closed pointing at it, tracking nothing. */
  | { kind: 'merge'; event: string; issue: number; into: number; body: string }
  /** An issue of the one-issue-per-series format, closed pointing at the event's issue (`by`: known yet). */
  | { kind: 'supersede'; event: string; issue: number; by?: number };

export interface IssuePlanOptions {
  /** When tonight's run started: the automatic bisections of the 7 days before count against the budget. */
  now?: Date;
  /** Bisections started without a label in any 7 days (0 or absent: none; the label still works). */
  autoBisectPerWeek?: number;
}

/**
 * What to do, event by event (the largest first): open an issue for a new regression event, update the
 * event's issue while it persists (reopen it when pgperf had closed it as recovered and the same change point
 * is back), merge into it the other open issues its cells now share a range with, close an issue with the
 * recovery note when none of its cells is regressed any more, and bisect the largest cell of an event that
 * has not been bisected while the week's budget lasts. Unchanged issues are left alone.
 */
export function planIssueActions(
  analysis: HistoryAnalysis,
  existing: readonly IssueSummary[],
  login: string,
  links: IssueLinks = {},
  options: IssuePlanOptions = {},
): IssueAction[] {
  // The oldest issue first, should a race ever have opened two.
  const mine = existing.filter((i) => i.userLogin === login).sort((a, b) => a.number - b.number);
  const states = new Map(mine.map((i) => [i.number, parseEventState(i.body)]));
  const stateOf = (i: IssueSummary) => states.get(i.number)!;
  const tracking = mine.filter((i) => i.state === 'open' && states.get(i.number));
  const judgement = judgeHistory(analysis);
  const groups = groupRegressions(
    judgement,
    tracking.map((i) => stateOf(i).cells.map((c) => c.series)),
  );
  const budget = autoBudget(mine, states, options);
  const handled = new Set<number>();
  const actions: IssueAction[] = [];
  for (const g of groups) {
    const ids = new Set(g.regressed.map((c) => c.series.id));
    const adopting = tracking.filter((i) => stateOf(i).cells.some((t) => ids.has(t.series)));
    const target =
      adopting[0] ??
      [...mine]
        .reverse()
        .find((i) => i.state === 'closed' && states.get(i.number) && sameEvent(stateOf(i), g));
    const merged = adopting.slice(1);
    const state = target ? stateOf(target) : undefined;
    const tracked: TrackedCell[] = [state, ...merged.map(stateOf)].flatMap((s) => s?.cells ?? []);
    const cells = eventCells(g, tracked);
    // Closed by hand while the regression persists: someone's decision; nothing starts on its own.
    const byHand = target?.state === 'closed' && state!.state !== 'recovered';
    const auto = byHand ? {} : budget.take(state?.bisected, bisectCell(cells));
    const title = issueTitle(g);
    const body = issueBody(g, cells, 'open', links, {
      ...(auto.started ? { started: auto.started } : {}),
      ...(auto.held ? { heldBack: auto.held } : {}),
    });
    const bisect: AutoBisect = {
      ...(auto.bisect ? { bisect: auto.bisect } : {}),
      ...(auto.held ? { held: auto.held } : {}),
    };
    if (!target) {
      actions.push({ kind: 'open', event: g.id, title, body, ...bisect });
    } else {
      handled.add(target.number);
      const reopen = target.state === 'closed' && state!.state === 'recovered';
      if (reopen || target.body !== body || target.title !== title || auto.bisect) {
        actions.push({ kind: 'update', event: g.id, issue: target.number, title, body, reopen, ...bisect });
      }
    }
    for (const other of merged) {
      handled.add(other.number);
      const body = withEventState(other.body, { ...stateOf(other), cells: [] });
      actions.push({ kind: 'merge', event: g.id, issue: other.number, into: target!.number, body });
    }
    for (const old of legacyOf(mine, states, (id) => ids.has(id))) {
      handled.add(old.number);
      actions.push({
        kind: 'supersede',
        event: g.id,
        issue: old.number,
        ...(target ? { by: target.number } : {}),
      });
    }
  }
  const series = judgement.workloads.flatMap((w) => w.series);
  for (const issue of tracking.filter((i) => !handled.has(i.number))) {
    const state = stateOf(issue);
    const subject: RegressionGroup = { id: state.event, regressed: [], series };
    const cells = eventCells(subject, state.cells);
    actions.push({
      kind: 'close',
      event: state.event,
      issue: issue.number,
      body: issueBody(subject, cells, 'recovered', links, state.bisected ? { started: state.bisected } : {}),
      note: recoveryNote(subject, cells, links),
    });
  }
  const analysed = new Set(series.map((s) => s.series.id));
  for (const old of legacyOf(mine, states, (id) => analysed.has(id))) {
    if (handled.has(old.number)) continue;
    const s = series.find((x) => old.body.includes(seriesMarker(x.series.id)))!;
    const { clients, metric, fingerprint, workload } = s.series.key;
    const subject: RegressionGroup = { id: `${fingerprint}/${workload}`, regressed: [], series };
    const cells = eventCells(subject, [{ series: s.series.id, clients, metric, run: '', sha: null }]);
    actions.push({
      kind: 'close',
      event: subject.id,
      issue: old.number,
      note: recoveryNote(subject, cells, links),
    });
  }
  return actions;
}

/** Open issues of the one-issue-per-series format (no state marker) with a series marker `has` holds. */
function legacyOf(
  mine: readonly IssueSummary[],
  states: ReadonlyMap<number, EventState | undefined>,
  has: (series: string) => boolean,
): IssueSummary[] {
  const marked = /<!-- pgperf:series=([^ ]*) -->/g;
  return mine.filter(
    (i) =>
      i.state === 'open' &&
      !states.get(i.number) &&
      [...i.body.matchAll(marked)].some((m) => has(safeDecode(m[1]!))),
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The week's budget of automatic bisections: the ones the issues' state markers record as started in the
 * 7 days before `now` count; an event already bisected is not bisected again (the label still can).
 * Attribution of a range of several commits (#43) would be decided here too, when it exists.
 */
function autoBudget(
  mine: readonly IssueSummary[],
  states: ReadonlyMap<number, EventState | undefined>,
  options: IssuePlanOptions,
) {
  const perWeek = options.autoBisectPerWeek ?? 0;
  const now = options.now ?? new Date();
  const since = now.getTime() - WEEK_MS;
  const recent = mine
    .map((i) => states.get(i.number)?.bisected?.at)
    .filter(
      (at): at is string => at !== undefined && Date.parse(at) > since && Date.parse(at) <= now.getTime(),
    )
    .sort();
  let used = recent.length;
  return {
    take(
      before: AutoBisection | undefined,
      cell: ReturnType<typeof bisectCell>,
    ): { started?: AutoBisection; bisect?: BisectTarget; held?: string } {
      if (before) return { started: before };
      if (perWeek <= 0 || !cell) return {};
      if (used >= perWeek) {
        return {
          held:
            `the budget of ${perWeek} automatic bisection${perWeek === 1 ? '' : 's'} a week is spent ` +
            `(${used} started since ${recent[0]?.slice(0, 10) ?? new Date(since).toISOString().slice(0, 10)})`,
        };
      }
      used++;
      recent.push(now.toISOString());
      const bisect = bisectTargetOf(cell);
      const { series, good, bad } = bisect;
      return { started: { at: now.toISOString(), series, good, bad }, bisect };
    },
  };
}

/** A closed issue tracks this event when one of its cells regressed at the change point the cell has now. */
function sameEvent(state: EventState, g: RegressionGroup): boolean {
  return g.regressed.some((c) =>
    state.cells.some(
      (t) =>
        t.series === c.series.id &&
        (t.run === c.changePoint.firstAfter.runId ||
          (t.sha !== null && t.sha === c.changePoint.firstAfter.sha)),
    ),
  );
}

/**
 * Carries out planIssueActions against the API; the bisections to start tonight are returned (with their
 * issues' numbers), for the nightly flow to run.
 */
export async function syncRegressionIssues(
  api: GitHubApi,
  analysis: HistoryAnalysis,
  links: IssueLinks = {},
  options: IssuePlanOptions = {},
): Promise<SyncOutcome> {
  const [login, existing] = await Promise.all([api.viewerLogin(), api.listIssues(REGRESSION_LABEL)]);
  const outcome: SyncOutcome = {
    opened: [],
    updated: [],
    closed: [],
    // Only issues this login opened carry trusted state; the others are left alone, and said so.
    ignored: existing.filter((i) => i.userLogin !== login).map((i) => i.number),
  };
  // A superseded issue follows its event's open action in the plan.
  let lastOpened: number | undefined;
  for (const action of planIssueActions(analysis, existing, login, links, options)) {
    if (action.kind === 'open' || action.kind === 'update') {
      let number: number;
      if (action.kind === 'open') {
        const issue = await api.createIssue({
          title: action.title,
          body: action.body,
          labels: [REGRESSION_LABEL],
        });
        number = lastOpened = issue.number;
        outcome.opened.push(number);
      } else {
        await api.updateIssue(action.issue, {
          title: action.title,
          body: action.body,
          ...(action.reopen ? { state: 'open' as const } : {}),
        });
        number = action.issue;
        outcome.updated.push(number);
      }
      if (action.bisect) (outcome.bisections ??= []).push({ issue: number, target: action.bisect });
      if (action.held) (outcome.heldBack ??= []).push({ issue: number, why: action.held });
    } else {
      const note =
        action.kind === 'close'
          ? action.note
          : action.kind === 'merge'
            ? mergedNote(action.into)
            : supersededNote(action.by ?? lastOpened);
      await api.createComment(action.issue, note);
      const body = action.kind === 'supersede' ? undefined : action.body;
      await api.updateIssue(action.issue, { ...(body !== undefined ? { body } : {}), state: 'closed' });
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
  options: IssuePlanOptions = {},
): Promise<IssueSync> {
  return tryIssueSync('the regression issues were', () =>
    syncRegressionIssues(api, analysis, links, options),
  );
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
