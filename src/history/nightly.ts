/**
 * The nightly report, shared by `pgperf nightly` and the Action's `mode: nightly`: after the branch head
 * was measured and saved, the whole stored history is analysed (every series), judged (which series are
 * regressed now, which improved), rendered as job-summary markdown and, on request, as the history site.
 * Publishing (stdout, the step summary, issues, a data branch) stays with the callers.
 */
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { formatPct } from '../compare/format.js';
import { escapeMarkdown } from '../report/markdown-escape.js';
import type { ResultStore } from '../store/store.js';
import { analyseHistory, type HistoryAnalysis, type HistoryOptions, type SeriesAnalysis } from './analyse.js';
import { loadStoredRuns } from './load-runs.js';
import { renderHistoryMarkdown } from './markdown.js';
import { historySiteData, type SiteOptions } from './page-data.js';
import { renderHistorySite } from './page-html.js';
import { loadChartAssets } from './uplot-assets.js';
import { writeSite } from './write-site.js';

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

export interface NightlyJudgement {
  /** regression: some series' latest change point is a regression; improvement: none, but some improved. */
  verdict: NightlyVerdict;
  /** Series whose latest change point is a regression (each has, or gets, its issue). */
  regressed: SeriesAnalysis[];
  /** Series whose latest change point is an improvement. */
  improved: SeriesAnalysis[];
}

/** Where each series stands now: judged by its latest change point, as the regression issues are. */
export function judgeHistory(analysis: HistoryAnalysis): NightlyJudgement {
  const latest = (kind: 'regression' | 'improvement') =>
    analysis.series.filter((s) => s.status === 'analysed' && s.changePoints.at(-1)?.kind === kind);
  const regressed = latest('regression');
  const improved = latest('improvement');
  return {
    verdict: regressed.length > 0 ? 'regression' : improved.length > 0 ? 'improvement' : 'no-change',
    regressed,
    improved,
  };
}

export interface NightlySummaryOptions {
  repoUrl?: string;
  /** What was measured tonight, e.g. "master @ 1a2b3c4d5e". */
  measured?: string;
  /** Extra lines under the verdict (issues opened, where the site went). */
  notes?: readonly string[];
}

/**
 * The job summary: the verdict first (regressed series or none, improved series listed), then the
 * history's markdown (every change point with its commit range, change and CI).
 */
export function renderNightlySummary(
  analysis: HistoryAnalysis,
  judgement: NightlyJudgement,
  options: NightlySummaryOptions = {},
): string {
  const n = judgement.regressed.length;
  const headline =
    n > 0 ? `## pgperf nightly: 🔴 ${n} series regressed` : `## pgperf nightly: ✅ no series regressed`;
  const line = (s: SeriesAnalysis) => {
    const cp = s.changePoints.at(-1)!;
    const k = s.series.key;
    return `- ${escapeMarkdown(k.workload)} at ${k.clients} client${k.clients === 1 ? '' : 's'} (${k.metric}): ${formatPct(cp.relativeChange * 100)} since ${escapeMarkdown((cp.firstAfter.sha ?? 'an unrecorded commit').slice(0, 10))}`;
  };
  const lines = [headline, ''];
  if (options.measured) lines.push(`Measured ${options.measured}.`, '');
  if (n > 0) lines.push('**Regressed** (latest change point):', ...judgement.regressed.map(line), '');
  if (judgement.improved.length > 0)
    lines.push('**Improved** (latest change point):', ...judgement.improved.map(line), '');
  if (options.notes?.length) lines.push(...options.notes, '');
  return `${lines.join('\n')}${renderHistoryMarkdown(analysis, { repoUrl: options.repoUrl })}`;
}
