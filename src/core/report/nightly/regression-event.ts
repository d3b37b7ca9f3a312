/**
 * A regression event of a workload as its GitHub issue tells it, free of any API: which cells (client counts
 * × metrics of one workload on one machine) the issue tracks and where each stands now (eventCells), the
 * hidden markers the issue carries (its state, a series marker per cell, the bisect marker of the worst
 * cell), and the issue's title, body and comments, escaped. flows/nightly/regression-issues.ts decides what
 * to do with the issues and does it; this module only computes and renders.
 */
import { formatP, formatPct, formatPctInterval } from '../../compare/format.js';
import { commitLink, escapeMarkdown, issueTitleText, markdownLink, safeUrl } from '../markdown-escape.js';
import { METRICS, isMetricName, type MetricName } from '../../results/metrics.js';
import { currentChangePoint, isLevelChange, type SeriesChangePoint } from '../../history/history-analysis.js';
import { bisectMarker, jsonMarker, markerText } from '../../history/bisect-marker.js';
import { clientsText } from './nightly-summary.js';
import { severity, type WorkloadStanding } from '../../history/nightly-judgement.js';
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

/** What an issue's state marker records. */
export interface EventState {
  /** The workload id ("fingerprint/workload"). */
  event: string;
  /** 'recovered' once pgperf closed the issue because every cell had recovered. */
  state: 'open' | 'recovered';
  cells: TrackedCell[];
}

/** The state marker of an issue body. */
export function eventStateMarker(state: EventState): string {
  return jsonMarker(EVENT_MARKER, state);
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
  const { event, state, cells } = parsed as Record<string, unknown>;
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
  return { event, state, cells: tracked };
}

/** One cell of an event's issue as the history stands now. */
export interface EventCell extends TrackedCell {
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
 * The cells of a workload's event: the ones regressed now and the ones an issue already tracks, the
 * regressed first (the worst first), then by metric and client count.
 */
export function eventCells(w: WorkloadStanding, tracked: readonly TrackedCell[]): EventCell[] {
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
    const key = s ? s.series.key : { clients: before!.clients, metric: before!.metric };
    // A cell regressed now is tracked at its current change point; the others keep the one they had.
    const at =
      now === 'regressed' || !before
        ? { run: regression!.firstAfter.runId, sha: regression!.firstAfter.sha }
        : { run: before.run, sha: before.sha };
    return {
      series: id,
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
      a.metric.localeCompare(b.metric) ||
      a.clients - b.clients,
  );
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
}

/** "1 opened, 0 updated, 2 closed[, 1 ignored (...)]", for a log line or a summary. */
export function describeSync(outcome: SyncOutcome): string {
  const ignored = outcome.ignored.length
    ? `, ${outcome.ignored.length} ignored (labelled by hand or opened by another account: ${outcome.ignored.map((n) => `#${n}`).join(', ')})`
    : '';
  return `${outcome.opened.length} opened, ${outcome.updated.length} updated, ${outcome.closed.length} closed${ignored}`;
}

/** What a sync did, or why it could not be done (an API failure, said with the permission it needs). */
export type IssueSync = { done: SyncOutcome } | { error: string };

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

/** "-4.1%", or "drift -2.0% over 60 runs" for a drift: one event, no single commit to blame. */
const change = (cp: SeriesChangePoint) =>
  cp.drift
    ? `drift ${formatPct(cp.relativeChange * 100, 1)} over ${cp.drift.runs} runs`
    : formatPct(cp.relativeChange * 100, 1);

/**
 * "Performance regression: select-only, 2 cells (worst TPS at 8 clients -20.4%, first bad 1a2b3c4d5e)".
 * GitHub shows a title as plain text: names go through issueTitleText, not escapeMarkdown.
 */
export function issueTitle(w: WorkloadStanding): string {
  const worst = w.regressed[0]!;
  const n = w.regressed.length;
  return (
    `Performance regression: ${issueTitleText(w.workload, 80)}, ${n} cell${n === 1 ? '' : 's'} ` +
    `(worst ${cellName(worst.series.key)} ${change(worst.changePoint)}, ${worst.changePoint.drift ? 'since' : 'first bad'} ${shortText(worst.changePoint.firstAfter.sha)})`
  );
}

/**
 * The issue body: the markers (state, a series marker per cell, the bisect marker of the worst cell whose
 * commits are known), the headline, one table row per cell with its change-point delta [95% CI], p, the
 * level before and after, the last good and first bad commits and where the cell stands now.
 */
export function issueBody(
  w: WorkloadStanding,
  cells: readonly EventCell[],
  state: EventState['state'],
  links: IssueLinks,
): string {
  const tracked = cells.map(({ series, clients, metric, run, sha }) => ({
    series,
    clients,
    metric,
    run,
    sha,
  }));
  const regressed = cells.filter((c) => c.now === 'regressed');
  // The worst cell with both commits is what a bisection searches; without one there is nothing to bisect.
  // A drift is spread over many commits: no one commit to find.
  const target = cells.find(
    (c) =>
      c.regression?.shape !== 'drift' &&
      isSha(c.regression?.lastBefore.sha) &&
      isSha(c.regression?.firstAfter.sha),
  );
  const drifts = regressed.filter((c) => c.regression?.drift);
  const workload = `**${escapeMarkdown(w.workload)}** on the machine ${escapeMarkdown(w.fingerprint)}`;
  const headline =
    state === 'recovered'
      ? `${workload} has recovered in every cell this issue tracked.`
      : `${workload} regressed in ${regressed.length} cell${regressed.length === 1 ? '' : 's'}` +
        (regressed.length > 0
          ? ` (worst: ${cellName(regressed[0]!)} ${change(regressed[0]!.regression!)})`
          : '') +
        '.';
  const rows = cells.slice(0, MAX_TABLE_ROWS).map((c) => cellRow(c, links));
  const foundBy = safeUrl(links.runUrl ?? '');
  return [
    eventStateMarker({ event: w.id, state, cells: tracked }),
    ...cells.map((c) => seriesMarker(c.series)),
    ...(target
      ? [
          bisectMarker({
            series: target.series,
            workload: w.workload,
            clients: target.clients,
            metric: target.metric,
            fingerprint: w.fingerprint,
            good: target.regression!.lastBefore.sha!,
            bad: target.regression!.firstAfter.sha!,
          }),
        ]
      : []),
    headline,
    '',
    '| cell | change [95% CI] | p | before → after | last good | first bad | now |',
    '| --- | --: | --: | --: | --- | --- | --- |',
    ...rows,
    ...(cells.length > rows.length ? ['', `… and ${cells.length - rows.length} more cells.`] : []),
    '',
    ...driftLines(drifts, links),
    // Runner drift said where the regression is (night-watch.ts): the canary moved the same night.
    ...suspectLines(regressed),
    ...(foundBy
      ? [`${state === 'recovered' ? 'Closed' : 'Updated'} by ${markdownLink('this run', foundBy)}.`, '']
      : []),
    'This issue is updated by every nightly run while the regression persists (cells that regress later are ' +
      'added) and closed when every cell has recovered.' +
      (target
        ? ` Add the label \`${BISECT_LABEL}\` to find the first bad commit of the worst cell, ` +
          `${cellName(target)}, between its last good and first bad commits (pgperf mode bisect).`
        : ''),
  ].join('\n');
}

/**
 * What a drift is and why it is not bisected: "TPS at 1 client drifted -2.0% over 60 runs (-0.03% a run),
 * from 1a2b… to 3c4d…: a gradual change, one event; no single commit to bisect."
 */
function driftLines(cells: readonly EventCell[], links: IssueLinks): string[] {
  const lines = cells.map((c) => {
    const cp = c.regression!;
    return (
      `📉 ${cellName(c)} drifted ${formatPct(cp.relativeChange * 100, 1)} over ${cp.drift!.runs} runs ` +
      `(${formatPct(cp.drift!.perRun * 100, 3)} a run), from ${point(cp.lastBefore, links)} to ` +
      `${point(cp.drift!.end, links)}: a gradual change, one event; no single commit to bisect.`
    );
  });
  return lines.length > 0 ? [...lines, ''] : [];
}

/** "⚠️ select-only at 8 clients (tps): suspect: the runner canary ...", one line per suspect cell. */
function suspectLines(cells: readonly EventCell[]): string[] {
  const lines = cells
    .filter((c) => c.regression?.suspect)
    .map((c) => `⚠️ ${cellName(c)}: ${escapeMarkdown(c.regression!.suspect!)}.`);
  return lines.length > 0 ? [...lines, ''] : [];
}

function cellRow(c: EventCell, links: IssueLinks): string {
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
  return `| ${cellName(c)} | ${regression} | ${now} |`;
}

/** The comment that closes a recovered event: the commit and stored run where each cell came back. */
export function recoveryNote(w: WorkloadStanding, cells: readonly EventCell[], links: IssueLinks): string {
  const foundBy = safeUrl(links.runUrl ?? '');
  const line = (c: EventCell) =>
    c.now === 'recovered'
      ? `- ${cellName(c)}: ${change(c.recovery!)} at ${point(c.recovery!.firstAfter, links)}, ` +
        `stored run ${escapeMarkdown(c.recovery!.firstAfter.runId)}`
      : `- ${cellName(c)}: ${c.now === 'cleared' ? 'no longer a change point in the history' : 'no longer analysed'}`;
  return [
    `**Recovered**: no cell of **${escapeMarkdown(w.workload)}** on ${escapeMarkdown(w.fingerprint)} is regressed any more. Closing.`,
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
