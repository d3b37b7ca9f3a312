/**
 * A regression event as its GitHub issue tells it, free of any API: which cells (client counts × metrics of
 * the workloads and machines whose change points share a commit range: core/history/regression-groups.ts)
 * the issue tracks and where each stands now (eventCells), the hidden markers the issue carries (its state,
 * with the automatic bisection it started; a series marker per cell; the bisect marker of the largest
 * cell), and the issue's title, body and comments, escaped. flows/nightly/regression-issues.ts decides what
 * to do with the issues and does it; this module only computes and renders.
 */
import { formatP, formatPct, formatPctInterval } from '../../compare/format.js';
import { commitLink, escapeMarkdown, issueTitleText, markdownLink, safeUrl } from '../markdown-escape.js';
import { METRICS, isMetricName, type MetricName } from '../../results/metrics.js';
import { currentChangePoint, isLevelChange, type SeriesChangePoint } from '../../history/history-analysis.js';
import { bisectMarker, jsonMarker, markerText, type BisectTarget } from '../../history/bisect-marker.js';
import { clientsText } from './nightly-summary.js';
import { severity } from '../../history/nightly-judgement.js';
import type { EventSubject } from '../../history/regression-groups.js';
import type { SeriesPoint } from '../../history/series.js';

/** Added to a regression issue, it asks the Action's `mode: bisect` to bisect the issue's worst cell. */
export const BISECT_LABEL = 'pgperf-bisect';

const SERIES_MARKER_PREFIX = '<!-- pgperf:series=';

/** `<!-- pgperf:series=<id> -->`, percent-encoded so an id can never end the comment early. */
export function seriesMarker(seriesId: string): string {
  return `${SERIES_MARKER_PREFIX}${encodeURIComponent(seriesId)} -->`;
}

/** The name of the event's state marker, `<!-- pgperf:regression {json} -->`. */
const EVENT_MARKER = 'regression';

/** Rows of an issue's cell table at most (GitHub's body limit is 65,536 characters); the markers keep all. */
const MAX_TABLE_ROWS = 100;

/** A cell an issue tracks, with the change point it regressed at (its first bad run and commit). */
export interface TrackedCell {
  /** The series id ("fingerprint/workload@clients/metric"). */
  series: string;
  clients: number;
  metric: MetricName;
  /** The stored run id and the commit of the change point's first bad point. */
  run: string;
  sha: string | null;
}

/** The automatic bisection an issue's nightly started (one per issue): counted against the weekly budget. */
export interface AutoBisection {
  /** When the night that started it began (ISO 8601). */
  at: string;
  /** The cell bisected (its series id) and the change point's commits. */
  series: string;
  good: string;
  bad: string;
}

/** What an issue's state marker records. */
export interface EventState {
  /** The anchor workload's id ("fingerprint/workload"): the group member whose change point came first. */
  event: string;
  /** 'recovered' once pgperf closed the issue because every cell had recovered. */
  state: 'open' | 'recovered';
  cells: TrackedCell[];
  /** The bisection pgperf started without a label, if it did. */
  bisected?: AutoBisection;
}

/** The state marker of an issue body. */
export function eventStateMarker(state: EventState): string {
  return jsonMarker(EVENT_MARKER, state);
}

/** `body` with its state marker replaced by `state`'s (a body without one gets it first). */
export function withEventState(body: string, state: EventState): string {
  const text = markerText(body, EVENT_MARKER);
  const marker = eventStateMarker(state);
  return text === undefined
    ? `${marker}\n${body}`
    : body.replace(`<!-- pgperf:${EVENT_MARKER} ${text} -->`, () => marker);
}

/** The event state of an issue body; undefined for any other body, or a marker edited into something else. */
export function parseEventState(body: string): EventState | undefined {
  const text = markerText(body, EVENT_MARKER);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { event, state, cells, bisected } = parsed as Record<string, unknown>;
  if (typeof event !== 'string' || (state !== 'open' && state !== 'recovered') || !Array.isArray(cells)) {
    return undefined;
  }
  const tracked: TrackedCell[] = [];
  for (const cell of cells as unknown[]) {
    const c = (cell ?? {}) as Record<string, unknown>;
    const { series, clients, metric, run, sha } = c;
    if (
      typeof series !== 'string' ||
      !Number.isInteger(clients) ||
      typeof metric !== 'string' ||
      !isMetricName(metric) ||
      typeof run !== 'string' ||
      (sha !== null && typeof sha !== 'string')
    ) {
      return undefined;
    }
    tracked.push({ series, clients: clients as number, metric, run, sha });
  }
  const auto = parseAutoBisection(bisected);
  return { event, state, cells: tracked, ...(auto ? { bisected: auto } : {}) };
}

/** A recorded automatic bisection; an edited one that is not one is dropped (it then counts for nothing). */
function parseAutoBisection(value: unknown): AutoBisection | undefined {
  const { at, series, good, bad } = (value ?? {}) as Record<string, unknown>;
  const text = (v: unknown): v is string => typeof v === 'string' && v !== '';
  if (!text(at) || Number.isNaN(Date.parse(at)) || !text(series) || !text(good) || !text(bad)) {
    return undefined;
  }
  return { at, series, good, bad };
}

/** One cell of an event's issue as the history stands now. */
export interface EventCell extends TrackedCell {
  /** The workload and machine of its series. */
  workload: string;
  fingerprint: string;
  /**
   * regressed: its latest change point is a regression; recovered: an improvement followed its regression;
   * cleared: the history shows no regression there any more; missing: its series is no longer analysed.
   */
  now: 'regressed' | 'recovered' | 'cleared' | 'missing';
  /** The regression: the current one, else the series' last regression change point, if still found. */
  regression?: SeriesChangePoint;
  /** The improvement that brought it back (now 'recovered'). */
  recovery?: SeriesChangePoint;
}

/**
 * The cells of an event: the ones regressed now and the ones an issue already tracks, the regressed first
 * (the worst first), then by workload, metric and client count.
 */
export function eventCells(w: EventSubject, tracked: readonly TrackedCell[]): EventCell[] {
  const ids = [...new Set([...w.regressed.map((c) => c.series.id), ...tracked.map((t) => t.series)])];
  const cells = ids.map((id): EventCell => {
    const s = w.series.find((x) => x.series.id === id);
    const before = tracked.find((t) => t.series === id);
    const latest = s && currentChangePoint(s);
    // A transient came back: it is not what a cell regressed at.
    const regression = s?.changePoints.findLast((cp) => cp.kind === 'regression' && isLevelChange(cp));
    const now: EventCell['now'] = !s
      ? 'missing'
      : latest?.kind === 'regression'
        ? 'regressed'
        : latest?.kind === 'improvement' && regression
          ? 'recovered'
          : 'cleared';
    const key = s
      ? s.series.key
      : { ...placeOfSeriesId(id), clients: before!.clients, metric: before!.metric };
    // A cell regressed now is tracked at its current change point; the others keep the one they had.
    const at =
      now === 'regressed' || !before
        ? { run: regression!.firstAfter.runId, sha: regression!.firstAfter.sha }
        : { run: before.run, sha: before.sha };
    return {
      series: id,
      workload: key.workload,
      fingerprint: key.fingerprint,
      clients: key.clients,
      metric: key.metric,
      ...at,
      now,
      ...(regression ? { regression } : {}),
      ...(now === 'recovered' ? { recovery: latest! } : {}),
    };
  });
  const order = (c: EventCell) => (c.now === 'regressed' ? 0 : 1);
  return cells.sort(
    (a, b) =>
      order(a) - order(b) ||
      (a.now === 'regressed' ? severity(b.regression!) - severity(a.regression!) : 0) ||
      a.fingerprint.localeCompare(b.fingerprint) ||
      a.workload.localeCompare(b.workload) ||
      a.metric.localeCompare(b.metric) ||
      a.clients - b.clients,
  );
}

/** The machine and workload of a series id ("fingerprint/workload@clients/metric") no longer analysed. */
function placeOfSeriesId(id: string): { fingerprint: string; workload: string } {
  const slash = id.indexOf('/');
  const at = id.lastIndexOf('@');
  return slash > 0 && at > slash
    ? { fingerprint: id.slice(0, slash), workload: id.slice(slash + 1, at) }
    : { fingerprint: '', workload: id };
}

/** The workloads and machines of an event's cells, in the cells' order. */
interface Scope {
  workloads: string[];
  machines: string[];
  /** More than one workload or machine: each cell names its own. */
  several: boolean;
}

function scopeOf(cells: readonly Pick<EventCell, 'workload' | 'fingerprint'>[]): Scope {
  const workloads = [...new Set(cells.map((c) => c.workload))];
  const machines = [...new Set(cells.map((c) => c.fingerprint))];
  return { workloads, machines, several: workloads.length > 1 || machines.length > 1 };
}

export interface IssueLinks {
  /** e.g. https://github.com/postgres/postgres: commits link to <repoUrl>/commit/<sha>. */
  repoUrl?: string;
  /** The workflow run that found it. */
  runUrl?: string;
}

export interface SyncOutcome {
  opened: number[];
  updated: number[];
  closed: number[];
  /** Issues with the label that this workflow's login did not open: never read or touched. */
  ignored: number[];
  /** The bisections to start without a label tonight (recorded in their issues' state markers). */
  bisections?: BisectionRequest[];
  /** The automatic bisections the weekly budget held back tonight: the issue, and why. */
  heldBack?: { issue: number; why: string }[];
}

/** A bisection pgperf starts on its own: the issue's largest cell between its commits. */
export interface BisectionRequest {
  issue: number;
  target: BisectTarget;
}

/** "1 opened, 0 updated, 2 closed[, 1 ignored (...)]", for a log line or a summary. */
export function describeSync(outcome: SyncOutcome): string {
  const ignored = outcome.ignored.length
    ? `, ${outcome.ignored.length} ignored (labelled by hand or opened by another account: ${outcome.ignored.map((n) => `#${n}`).join(', ')})`
    : '';
  return `${outcome.opened.length} opened, ${outcome.updated.length} updated, ${outcome.closed.length} closed${ignored}`;
}

/**
 * "Bisection started without a label: #12 (fp/select-only@8/tps)." and "Automatic bisection held back: #14
 * (the budget of 2 … is spent).", or nothing when no automatic bisection was due; `text` escapes the
 * series ids and reasons for markdown (identity for a log line).
 */
export function describeAutoBisect(outcome: SyncOutcome, text: (s: string) => string = (s) => s): string[] {
  return [
    ...(outcome.bisections?.length
      ? [
          `Bisection started without a label: ${outcome.bisections.map((b) => `#${b.issue} (${text(b.target.series)})`).join(', ')}.`,
        ]
      : []),
    ...(outcome.heldBack?.length
      ? [
          `Automatic bisection held back: ${outcome.heldBack.map((h) => `#${h.issue} (${text(h.why)})`).join('; ')}.`,
        ]
      : []),
  ];
}

/** What a sync did, or why it could not be done (an API failure, said with the permission it needs). */
export type IssueSync = { done: SyncOutcome } | { error: string };

/** The comment that closes an open issue whose cells joined an older issue's group (their commit ranges overlap). */
export function mergedNote(into: number): string {
  return (
    `Merged into #${into}: its regressed cells share their commit range with the cells that issue tracks, ` +
    'so pgperf keeps them in one issue (one cause, one bisection). Closing this one.'
  );
}

/** The comment that closes an issue of the earlier one-issue-per-series format, pointing at the event's. */
export function supersededNote(by: number | undefined): string {
  return (
    `Superseded${by !== undefined ? ` by #${by}` : ''}: pgperf now keeps one issue per regression event of a ` +
    'workload, listing every regressed client count and metric. Closing this one.'
  );
}

/** "TPS at 2 clients". */
const cellName = (c: { clients: number; metric: MetricName }) =>
  `${METRICS[c.metric].label} at ${clientsText(c.clients)}`;

/**
 * A cell as the body names it: "TPS at 2 clients"; in an event of several workloads or machines, with its
 * own: "**select-only** TPS at 2 clients on fp-1".
 */
const cellText = (c: EventCell, scope: Scope) =>
  scope.several
    ? `**${escapeMarkdown(c.workload)}** ${cellName(c)}` +
      (scope.machines.length > 1 ? ` on ${escapeMarkdown(c.fingerprint)}` : '')
    : cellName(c);

/** "-4.1%", or "drift -2.0% over 60 runs" for a drift: one event, no single commit to blame. */
const change = (cp: SeriesChangePoint) =>
  cp.drift
    ? `drift ${formatPct(cp.relativeChange * 100, 1)} over ${cp.drift.runs} runs`
    : formatPct(cp.relativeChange * 100, 1);

/** The regressed cells of a subject as event cells (for the title, which needs no tracked ones). */
const regressedScope = (w: EventSubject): Scope =>
  scopeOf(
    w.regressed.map((c) => ({ workload: c.series.key.workload, fingerprint: c.series.key.fingerprint })),
  );

/**
 * "Performance regression: select-only, 2 cells (worst TPS at 8 clients -20.4%, first bad 1a2b3c4d5e)";
 * several workloads: "Performance regression: select-only + tpcb-like, 3 cells (worst select-only TPS at 8
 * clients -20.4%, …)". GitHub shows a title as plain text: names go through issueTitleText, not
 * escapeMarkdown.
 */
export function issueTitle(w: EventSubject): string {
  const worst = w.regressed[0]!;
  const n = w.regressed.length;
  const scope = regressedScope(w);
  const names = issueTitleText(scope.workloads.join(' + '), 80);
  const worstName = `${scope.workloads.length > 1 ? `${issueTitleText(worst.series.key.workload, 40)} ` : ''}${cellName(worst.series.key)}`;
  return (
    `Performance regression: ${names}, ${n} cell${n === 1 ? '' : 's'} ` +
    `(worst ${worstName} ${change(worst.changePoint)}, ${worst.changePoint.drift ? 'since' : 'first bad'} ${shortText(worst.changePoint.firstAfter.sha)})`
  );
}

/** The automatic bisection of an issue as the night stands: started (now or before), held back, or off. */
export interface AutoBisectStatus {
  /** The bisection pgperf started for this issue (recorded in its state marker). */
  started?: AutoBisection;
  /** Why tonight's automatic bisection was not started (the weekly budget is spent). */
  heldBack?: string;
}

/**
 * The issue body: the markers (state, a series marker per cell, the bisect marker of the largest cell whose
 * commits are known), the headline, one table row per cell with its change-point delta [95% CI], p, the
 * level before and after, the last good and first bad commits and where the cell stands now; what became
 * of the automatic bisection.
 */
export function issueBody(
  w: EventSubject,
  cells: readonly EventCell[],
  state: EventState['state'],
  links: IssueLinks,
  auto: AutoBisectStatus = {},
): string {
  const tracked = cells.map(({ series, clients, metric, run, sha }) => ({
    series,
    clients,
    metric,
    run,
    sha,
  }));
  const regressed = cells.filter((c) => c.now === 'regressed');
  const target = bisectCell(cells);
  const drifts = regressed.filter((c) => c.regression?.drift);
  const scope = scopeOf(cells);
  const rows = cells.slice(0, MAX_TABLE_ROWS).map((c) => cellRow(c, scope, links));
  const foundBy = safeUrl(links.runUrl ?? '');
  return [
    eventStateMarker({
      event: w.id,
      state,
      cells: tracked,
      ...(auto.started ? { bisected: auto.started } : {}),
    }),
    ...cells.map((c) => seriesMarker(c.series)),
    ...(target ? [bisectMarker(bisectTargetOf(target))] : []),
    headline(scope, regressed, state),
    '',
    '| cell | change [95% CI] | p | before → after | last good | first bad | now |',
    '| --- | --: | --: | --: | --- | --- | --- |',
    ...rows,
    ...(cells.length > rows.length ? ['', `… and ${cells.length - rows.length} more cells.`] : []),
    '',
    ...driftLines(drifts, scope, links),
    // Runner drift said where the regression is (night-watch.ts): the canary moved the same night.
    ...suspectLines(regressed, scope),
    ...autoBisectLines(auto, cells, scope, target, links),
    ...(foundBy
      ? [`${state === 'recovered' ? 'Closed' : 'Updated'} by ${markdownLink('this run', foundBy)}.`, '']
      : []),
    'This issue is updated by every nightly run while the regression persists (cells that regress later over ' +
      'the same commits, of any workload or machine, are added) and closed when every cell has recovered.' +
      (target
        ? ` Add the label \`${BISECT_LABEL}\` to find the first bad commit of the largest cell, ` +
          `${cellText(target, scope)}, between its last good and first bad commits (pgperf mode bisect).`
        : ''),
  ].join('\n');
}

/**
 * The cell a bisection searches: the largest with both commits known. A drift is spread over many
 * commits: no one commit to find. (Attribution of a range of several commits, #43, would take the others.)
 */
export function bisectCell(cells: readonly EventCell[]): EventCell | undefined {
  return cells.find(
    (c) =>
      c.regression?.shape !== 'drift' &&
      isSha(c.regression?.lastBefore.sha) &&
      isSha(c.regression?.firstAfter.sha),
  );
}

/** What mode bisect reads back from the issue: the cell and its change point's commits. */
export function bisectTargetOf(c: EventCell): BisectTarget {
  return {
    series: c.series,
    workload: c.workload,
    clients: c.clients,
    metric: c.metric,
    fingerprint: c.fingerprint,
    good: c.regression!.lastBefore.sha!,
    bad: c.regression!.firstAfter.sha!,
  };
}

/**
 * "**select-only** on the machine fp regressed in 2 cells (worst: …)."; several workloads or machines:
 * "**select-only** and **tpcb-like** regressed over the same commits in 3 cells on 2 machines (largest: …)."
 */
function headline(scope: Scope, regressed: readonly EventCell[], state: EventState['state']): string {
  const names = scope.workloads.map((n) => `**${escapeMarkdown(n)}**`);
  const who = scope.several
    ? `${names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}` : names[0]!}` +
      (scope.machines.length > 1
        ? ` (${scope.machines.length} machines)`
        : ` on the machine ${escapeMarkdown(scope.machines[0]!)}`)
    : `${names[0]!} on the machine ${escapeMarkdown(scope.machines[0]!)}`;
  if (state === 'recovered')
    return `${who} ${scope.several ? 'have' : 'has'} recovered in every cell this issue tracked.`;
  const n = regressed.length;
  const worst = regressed[0];
  return (
    `${who} regressed${scope.several ? ' over the same commits' : ''} in ${n} cell${n === 1 ? '' : 's'}` +
    (worst
      ? ` (${scope.several ? 'largest' : 'worst'}: ${cellText(worst, scope)} ${change(worst.regression!)})`
      : '') +
    '.'
  );
}

/**
 * What became of the automatic bisection: started (by which night), or held back by the weekly budget.
 * Nothing when it is off or there is nothing to bisect.
 */
function autoBisectLines(
  auto: AutoBisectStatus,
  cells: readonly EventCell[],
  scope: Scope,
  target: EventCell | undefined,
  links: IssueLinks,
): string[] {
  if (auto.started) {
    const cell = cells.find((c) => c.series === auto.started!.series);
    const what = cell ? cellText(cell, scope) : escapeMarkdown(auto.started.series);
    return [
      `🔎 pgperf started the bisection of the largest cell, ${what}, on ${escapeMarkdown(auto.started.at.slice(0, 10))} ` +
        `without a label (between ${commit(auto.started.good, links)} and ${commit(auto.started.bad, links)}): its result is commented here.`,
      '',
    ];
  }
  if (auto.heldBack && target) {
    return [
      `⏸️ The automatic bisection of ${cellText(target, scope)} is held back: ${escapeMarkdown(auto.heldBack)}. ` +
        `It starts on a later night, or now with the label \`${BISECT_LABEL}\`.`,
      '',
    ];
  }
  return [];
}

/**
 * What a drift is and why it is not bisected: "TPS at 1 client drifted -2.0% over 60 runs (-0.03% a run),
 * from 1a2b… to 3c4d…: a gradual change, one event; no single commit to bisect."
 */
function driftLines(cells: readonly EventCell[], scope: Scope, links: IssueLinks): string[] {
  const lines = cells.map((c) => {
    const cp = c.regression!;
    return (
      `📉 ${cellText(c, scope)} drifted ${formatPct(cp.relativeChange * 100, 1)} over ${cp.drift!.runs} runs ` +
      `(${formatPct(cp.drift!.perRun * 100, 3)} a run), from ${point(cp.lastBefore, links)} to ` +
      `${point(cp.drift!.end, links)}: a gradual change, one event; no single commit to bisect.`
    );
  });
  return lines.length > 0 ? [...lines, ''] : [];
}

/** "⚠️ select-only at 8 clients (tps): suspect: the runner canary ...", one line per suspect cell. */
function suspectLines(cells: readonly EventCell[], scope: Scope): string[] {
  const lines = cells
    .filter((c) => c.regression?.suspect)
    .map((c) => `⚠️ ${cellText(c, scope)}: ${escapeMarkdown(c.regression!.suspect!)}.`);
  return lines.length > 0 ? [...lines, ''] : [];
}

function cellRow(c: EventCell, scope: Scope, links: IssueLinks): string {
  const cp = c.regression;
  const unit = METRICS[c.metric].unit;
  const regression = cp
    ? `${change(cp)} ${formatPctInterval(cp.ciLower * 100, cp.ciUpper * 100)} | ${formatP(cp.p)} ` +
      `| ${round(cp.before)} → ${round(cp.after)} ${unit} | ${point(cp.lastBefore, links)} | ` +
      (cp.drift
        ? `${point(cp.firstAfter, links)} … ${point(cp.drift.end, links)}`
        : point(cp.firstAfter, links))
    : '— | — | — | — | —';
  const now =
    c.now === 'regressed'
      ? '🔴 regressed'
      : c.now === 'recovered'
        ? `🟢 recovered ${change(c.recovery!)} at ${point(c.recovery!.firstAfter, links)}`
        : c.now === 'cleared'
          ? '⚪ no longer a change point'
          : '⚪ no longer analysed';
  return `| ${cellText(c, scope)} | ${regression} | ${now} |`;
}

/** The comment that closes a recovered event: the commit and stored run where each cell came back. */
export function recoveryNote(_w: EventSubject, cells: readonly EventCell[], links: IssueLinks): string {
  const foundBy = safeUrl(links.runUrl ?? '');
  const scope = scopeOf(cells);
  const line = (c: EventCell) =>
    c.now === 'recovered'
      ? `- ${cellText(c, scope)}: ${change(c.recovery!)} at ${point(c.recovery!.firstAfter, links)}, ` +
        `stored run ${escapeMarkdown(c.recovery!.firstAfter.runId)}`
      : `- ${cellText(c, scope)}: ${c.now === 'cleared' ? 'no longer a change point in the history' : 'no longer analysed'}`;
  const names = scope.workloads.map((n) => `**${escapeMarkdown(n)}**`).join(', ');
  const where = scope.machines.map((m) => escapeMarkdown(m)).join(', ');
  return [
    `**Recovered**: no cell of ${names} on ${where} is regressed any more. Closing.`,
    '',
    ...cells.map(line),
    ...(foundBy ? ['', `Found by ${markdownLink('this run', foundBy)}.`] : []),
  ].join('\n');
}

/** A commit (linked when the repository is known) with its date: "[`1a2b3c4d5e`](…/commit/…) 2026-10-27". */
function point(p: SeriesPoint, links: IssueLinks): string {
  return `${commit(p.sha, links)} ${escapeMarkdown(p.date.slice(0, 10))}`;
}

/** A full commit id (what mode bisect accepts); anything else from the store is only text. */
function isSha(sha: string | null | undefined): sha is string {
  return typeof sha === 'string' && /^[0-9a-f]{7,40}$/i.test(sha);
}

function commit(sha: string | null, links: IssueLinks): string {
  if (!sha) return '(no commit recorded)';
  return commitLink(sha, links.repoUrl, { digits: 10 });
}

/** A commit in a title: its first 10 hex digits, else the text as a title shows it. */
function shortText(sha: string | null): string {
  if (!sha) return 'unknown';
  return isSha(sha) ? sha.slice(0, 10) : issueTitleText(sha, 12);
}

const round = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(4));
