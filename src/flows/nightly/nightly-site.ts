/**
 * The nightly report, shared by `pgperf nightly` and the Action's `mode: nightly` (through the one nightly
 * flow, src/flows/nightly/nightly-flow.ts): after the branch head was measured and saved, the whole stored history is
 * analysed (every series), judged (which workloads have an open regression event, in which cells; which
 * series improved), rendered as job-summary markdown and, on request, as the history site. Publishing
 * (stdout, the step summary, issues, a data branch) stays with the callers.
 */
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { formatPct } from '../../core/compare/format.js';
import { escapeMarkdown } from '../../core/report/markdown-escape.js';
import type { ResultStore } from '../../store/store.js';
import {
  analyseHistory,
  type HistoryAnalysis,
  type HistoryOptions,
  type SeriesAnalysis,
  type SeriesChangePoint,
} from '../../core/history/history-analysis.js';
import { loadStoredRuns } from '../history/load-runs.js';
import { renderHistoryMarkdown } from '../../core/report/history/history-markdown.js';
import { historySiteData, type SiteOptions } from '../../core/report/history/page-data.js';
import { renderHistorySite } from '../../core/report/history/page-html.js';
import { isCanaryWorkload, type Series } from '../../core/history/series.js';
import { loadChartAssets } from '../history/uplot-assets.js';
import { writeSite } from '../history/write-site.js';

/** Every complete run of the store, analysed series by series. */
export async function analyseStore(store: ResultStore, options: HistoryOptions): Promise<HistoryAnalysis> {
  return analyseHistory(await loadStoredRuns(store), options);
}

/**
 * Renders the history site into `dir`; returns the files written. A `.nojekyll` file beside the pages
 * tells GitHub Pages to serve them as they are when `dir` is the Pages source.
 */
export async function writeHistorySite(
  dir: string,
  analysis: HistoryAnalysis,
  options: SiteOptions,
): Promise<string[]> {
  const files = await writeSite(
    dir,
    renderHistorySite(historySiteData(analysis, options), await loadChartAssets()),
  );
  await writeFile(path.join(dir, '.nojekyll'), '');
  return files;
}

export type NightlyVerdict = 'regression' | 'improvement' | 'no-change';

/** A cell (one client count and metric of a workload) whose latest change point is a regression. */
export interface RegressedCell {
  series: Series;
  changePoint: SeriesChangePoint;
}

/**
 * One workload on one machine (fingerprint) as the history stands: its analysed series and the cells
 * regressed now. A workload with a regressed cell has an open regression event (one issue).
 */
export interface WorkloadStanding {
  /** "fingerprint/workload", the prefix of its series ids. */
  id: string;
  fingerprint: string;
  workload: string;
  /** Every analysed series of the workload (client counts × metrics). */
  series: SeriesAnalysis[];
  /** The cells whose latest change point is a regression, the worst first (the one a bisection takes). */
  regressed: RegressedCell[];
}

export interface NightlyJudgement {
  /** regression: some workload has an open regression event; improvement: none, but some series improved. */
  verdict: NightlyVerdict;
  /** Series whose latest change point is a regression (the cells of the events). */
  regressed: SeriesAnalysis[];
  /** Series whose latest change point is an improvement. */
  improved: SeriesAnalysis[];
  /** Every workload with at least one analysed series, by fingerprint then workload. */
  workloads: WorkloadStanding[];
  /** The open regression events: the workloads with a regressed cell. */
  events: WorkloadStanding[];
  /** Series with too few runs to be analysed yet (nothing can be said about them). */
  unanalysed: SeriesAnalysis[];
}

/** "fingerprint/workload": what one regression event (and its issue) is about. */
export function workloadId(fingerprint: string, workload: string): string {
  return `${fingerprint}/${workload}`;
}

/**
 * How bad a change is, whatever the metric's direction: |ln(after/before)|, so -20% TPS (0.22) and +25%
 * latency (0.22) weigh the same.
 */
export function severity(cp: Pick<SeriesChangePoint, 'relativeChange'>): number {
  return Math.abs(Math.log1p(cp.relativeChange));
}

/**
 * Where each series stands now, judged by its latest change point, and grouped by workload: a workload
 * with a series whose latest change point is a regression has an open regression event, its cells the
 * worst first (ties: fewer clients, then the series order).
 */
export function judgeHistory(analysis: HistoryAnalysis): NightlyJudgement {
  // A runner canary's series say nothing about PostgreSQL (night-watch.ts reads them).
  const project = analysis.series.filter((s) => !isCanaryWorkload(s.series.key.workload));
  const analysed = project.filter((s) => s.status === 'analysed');
  const latest = (kind: 'regression' | 'improvement') =>
    analysed.filter((s) => s.changePoints.at(-1)?.kind === kind);
  const regressed = latest('regression');
  const improved = latest('improvement');
  const byWorkload = new Map<string, WorkloadStanding>();
  for (const s of analysed) {
    const { fingerprint, workload } = s.series.key;
    const id = workloadId(fingerprint, workload);
    let standing = byWorkload.get(id);
    if (!standing) {
      standing = { id, fingerprint, workload, series: [], regressed: [] };
      byWorkload.set(id, standing);
    }
    standing.series.push(s);
    const cp = s.changePoints.at(-1);
    if (cp?.kind === 'regression') standing.regressed.push({ series: s.series, changePoint: cp });
  }
  const workloads = [...byWorkload.values()];
  for (const w of workloads) {
    // Stable sort: equal severities keep the series order (fewer clients first).
    w.regressed.sort((a, b) => severity(b.changePoint) - severity(a.changePoint));
  }
  const events = workloads.filter((w) => w.regressed.length > 0);
  return {
    verdict: events.length > 0 ? 'regression' : improved.length > 0 ? 'improvement' : 'no-change',
    regressed,
    improved,
    workloads,
    events,
    unanalysed: project.filter((s) => s.status !== 'analysed'),
  };
}

export interface NightlySummaryOptions {
  repoUrl?: string;
  /** What was measured tonight (shown as "master @ 1a2b3c4d5e", or "the given install" with neither). */
  measured?: { ref?: string; sha?: string };
  /** Extra lines under the verdict (issues opened, where the site went). */
  notes?: readonly string[];
}

/** "1 client" / "8 clients". */
export function clientsText(clients: number): string {
  return `${clients} client${clients === 1 ? '' : 's'}`;
}

/**
 * The job summary: the verdict first (the workloads with an open regression event and their cells, or
 * none; the improved series), then the history's markdown (every change point with its commit range and CI).
 */
export function renderNightlySummary(
  analysis: HistoryAnalysis,
  judgement: NightlyJudgement,
  options: NightlySummaryOptions = {},
): string {
  const events = judgement.events.length;
  const cells = judgement.regressed.length;
  // Events whose every cell changed the night the runner canary did (night-watch.ts) are suspect.
  const suspect = judgement.events.filter((e) => e.regressed.every((r) => r.changePoint.suspect)).length;
  const headline =
    events > suspect
      ? `## pgperf nightly: 🔴 ${events} workload${events === 1 ? '' : 's'} regressed (${cells} cell${cells === 1 ? '' : 's'})`
      : events > 0
        ? `## pgperf nightly: ⚠️ ${events} suspect regression${events === 1 ? '' : 's'}: the runner canary moved the same night`
        : `## pgperf nightly: ✅ no workload regressed`;
  const change = (cp: SeriesChangePoint) =>
    `${formatPct(cp.relativeChange * 100)} since ${escapeMarkdown((cp.firstAfter.sha ?? 'an unrecorded commit').slice(0, 10))}`;
  const seriesLine = (s: Series, cp: SeriesChangePoint) =>
    `at ${clientsText(s.key.clients)} (${s.key.metric}): ${change(cp)}` +
    (cp.suspect ? ` ⚠️ ${escapeMarkdown(cp.suspect)}` : '');
  const lines = [headline, ''];
  if (options.measured) lines.push(`Measured ${measuredText(options.measured)}.`, '');
  if (events > 0) {
    lines.push('**Regressed** (latest change point), one regression event per workload:');
    for (const e of judgement.events) {
      lines.push(
        `- ${escapeMarkdown(e.workload)} on ${escapeMarkdown(e.fingerprint)}: ${e.regressed.length} cell${e.regressed.length === 1 ? '' : 's'}`,
        ...e.regressed.map((c) => `  - ${seriesLine(c.series, c.changePoint)}`),
      );
    }
    lines.push('');
  }
  if (judgement.improved.length > 0) {
    lines.push(
      '**Improved** (latest change point):',
      ...judgement.improved.map(
        (s) => `- ${escapeMarkdown(s.series.key.workload)} ${seriesLine(s.series, s.changePoints.at(-1)!)}`,
      ),
      '',
    );
  }
  if (options.notes?.length) lines.push(...options.notes, '');
  return `${lines.join('\n')}${renderHistoryMarkdown(analysis, { repoUrl: options.repoUrl })}`;
}

/** "master @ 1a2b3c4d5e", escaped; "the given install" when neither is known. */
export function measuredText(measured: { ref?: string; sha?: string }): string {
  const parts = [measured.ref, measured.sha?.slice(0, 10)].filter((p): p is string => Boolean(p));
  return parts.length > 0 ? parts.map((p) => escapeMarkdown(p)).join(' @ ') : 'the given install';
}

/** The job summary of a night whose run did not complete: nothing was added, nothing analysed. */
export function renderIncompleteNightly(why: string, notes: readonly string[] = []): string {
  return [
    '## pgperf nightly: ⚠️ no verdict',
    '',
    `${escapeMarkdown(why)}; nothing was analysed.`,
    ...(notes.length ? ['', ...notes] : []),
    '',
  ].join('\n');
}
