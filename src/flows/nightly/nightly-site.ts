/**
 * The nightly's reading and writing of the history (through the one nightly flow,
 * src/flows/nightly/nightly-flow.ts): the whole stored history analysed (every series), and the history site
 * written on request. The judgement is core/history/nightly-judgement.ts, the summary
 * core/report/nightly/nightly-summary.ts; publishing (stdout, the step summary, issues, a data branch) stays
 * with the callers.
 */
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import type { ResultStore } from '../../store/store.js';
import {
  analyseHistory,
  type HistoryAnalysis,
  type HistoryOptions,
} from '../../core/history/history-analysis.js';
import { loadStoredRuns } from '../history/load-runs.js';
import { historySiteData, type SiteOptions } from '../../core/report/history/page-data.js';
import { renderHistorySite } from '../../core/report/history/page-html.js';
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
